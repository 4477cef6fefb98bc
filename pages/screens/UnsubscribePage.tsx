import MailX from 'lucide-react/icons/mail-x';
import Unsubscribe from '../islands/Unsubscribe';
import { PageHead } from '../components/PageHead';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';

// UnsubscribePage is the /unsubscribe route (SPEC §2): one e-mail field
// and an Unsubscribe button.
export function UnsubscribePage() {
  const { t } = useT();
  return (
    <>
      <PageHead title={t('unsubscribe.title')} lead={t('unsubscribe.intro')} icon={MailX} kind="compact" />
      <section className="form-section-band" aria-label={t('unsubscribe.title')}>
        <div className="form-card narrow">
          <Island name="Unsubscribe" component={Unsubscribe} props={{}} />
        </div>
      </section>
    </>
  );
}
