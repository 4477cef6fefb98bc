import HandCoins from 'lucide-react/icons/hand-coins';
import Info from 'lucide-react/icons/info';
import DonationForm from '../islands/DonationForm';
import { NoScriptNotice } from '../components/NoScriptNotice';
import { PageHead } from '../components/PageHead';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';
import { settings } from '../lib/site';

// Donate: why to give, the not-tax-deductible notice of SPEC §2 and the
// donation form island, which posts to the card payment provider of
// data/site.json.
export function Donate() {
  const { t } = useT();
  const { donationURL, subscriptionURL, currency, itemName } = settings.payment;
  return (
    <>
      <PageHead title={t('donate.title')} lead={t('donate.intro')} icon={HandCoins} kind="compact" />
      <section className="split" aria-label={t('donate.title')}>
        <div className="prose">
          <p>{t('donate.why')}</p>
          <p className="notice note" role="note">
            <Info className="icon" />
            <span>{t('donate.taxNotice', { name: settings.provider.name })}</span>
          </p>
          <p className="hint">{t('donate.provider')}</p>
        </div>
        <div className="form-card">
          <Island name="DonationForm" component={DonationForm} props={{ donationURL, subscriptionURL, currency, itemName }} />
          <NoScriptNotice />
        </div>
      </section>
    </>
  );
}
