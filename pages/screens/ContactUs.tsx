import ContactForm from '../islands/ContactForm';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';
import { inLanguage, settings } from '../lib/site';
import type { ScreenProps } from '../routes';

// ContactUs: the contact form beside the provider's address, e-mail and
// phone (SPEC §2).
export function ContactUs({ lang }: ScreenProps) {
  const { t } = useT();
  const provider = inLanguage(settings.provider, lang);
  return (
    <section className="page-wide">
      <h1>{t('contactUs.title')}</h1>
      <p className="lead">{t('contactUs.intro')}</p>
      <div className="contact-layout">
        <section aria-labelledby="contact-form-heading">
          <h2 id="contact-form-heading">{t('contact.heading')}</h2>
          <Island name="ContactForm" component={ContactForm} props={{}} />
        </section>
        <aside className="contact-card" aria-labelledby="contact-office-heading">
          <h2 id="contact-office-heading">{t('contactUs.office')}</h2>
          <p className="contact-company">{provider.name}</p>
          <dl className="facts">
            <dt>{t('contactUs.address')}</dt>
            <dd>{provider.address}</dd>
            <dt>{t('contactUs.email')}</dt>
            <dd>
              <a href={`mailto:${provider.email}`}>{provider.email}</a>
            </dd>
            <dt>{t('contactUs.phone')}</dt>
            <dd>
              <a href={`tel:${provider.phone.replace(/\s/g, '')}`}>{provider.phone}</a>
            </dd>
          </dl>
        </aside>
      </div>
    </section>
  );
}
