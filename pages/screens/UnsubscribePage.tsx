import Unsubscribe from '../islands/Unsubscribe';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';

// UnsubscribePage is the /unsubscribe route (SPEC §2): one e-mail field
// and an Unsubscribe button.
export function UnsubscribePage() {
  const { t } = useT();
  return (
    <section className="page">
      <h1>{t('unsubscribe.title')}</h1>
      <p className="lead">{t('unsubscribe.intro')}</p>
      <Island name="Unsubscribe" component={Unsubscribe} props={{}} />
    </section>
  );
}
