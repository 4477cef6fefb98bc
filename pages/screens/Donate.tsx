import DonationForm from '../islands/DonationForm';
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
    <section className="page">
      <h1>{t('donate.title')}</h1>
      <p className="lead">{t('donate.intro')}</p>
      <p>{t('donate.why')}</p>
      <p className="notice" role="note">
        {t('donate.taxNotice', { name: settings.provider.name })}
      </p>
      <Island name="DonationForm" component={DonationForm} props={{ donationURL, subscriptionURL, currency, itemName }} />
      <noscript>
        <p className="notice">{t('donate.noScript', { email: settings.provider.email })}</p>
      </noscript>
      <p className="hint">{t('donate.provider')}</p>
    </section>
  );
}
