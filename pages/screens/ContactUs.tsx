import Mail from 'lucide-react/icons/mail';
import MapPin from 'lucide-react/icons/map-pin';
import MessagesSquare from 'lucide-react/icons/messages-square';
import Phone from 'lucide-react/icons/phone';
import ContactForm from '../islands/ContactForm';
import { Facts } from '../components/Facts';
import { PageHead } from '../components/PageHead';
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
    <>
      <PageHead title={t('contactUs.title')} lead={t('contactUs.intro')} icon={MessagesSquare} />
      <section className="contact-layout contact-page" aria-label={t('contactUs.title')}>
        <aside className="contact-card" aria-labelledby="contact-office-heading">
          <h2 id="contact-office-heading">{t('contactUs.office')}</h2>
          <p className="contact-company">{provider.name}</p>
          <Facts
            rows={[
              [MapPin, t('contactUs.address'), provider.address],
              [Mail, t('contactUs.email'), <a href={`mailto:${provider.email}`}>{provider.email}</a>],
              [Phone, t('contactUs.phone'), <a href={`tel:${provider.phone.replace(/\s/g, '')}`}>{provider.phone}</a>],
            ]}
          />
        </aside>
        <section className="form-card" aria-labelledby="contact-form-heading">
          <h2 id="contact-form-heading" className="form-heading">
            {t('contact.heading')}
          </h2>
          <Island name="ContactForm" component={ContactForm} props={{}} />
        </section>
      </section>
    </>
  );
}
