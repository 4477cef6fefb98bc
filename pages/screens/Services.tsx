import { LinkedText } from '../components/LinkedText';
import { useT } from '../lib/i18n';
import { localePath } from '../lib/site';
import type { ScreenProps } from '../routes';

// The six services of SPEC §2, in order.
const services = ['trade', 'chat', 'loadBoard', 'database', 'legalCase', 'cloud'] as const;

// The pages service texts name, linked from the words marked in them.
const linked: Partial<Record<(typeof services)[number], string>> = { cloud: '/standard-15-day-format' };

// Services shows one card per service, each with what it gives a member.
export function Services({ lang }: ScreenProps) {
  const { t } = useT();
  return (
    <>
      <section>
        <h1>{t('services.title')}</h1>
        <p className="lead">{t('services.intro')}</p>
        <ul className="cards">
          {services.map((s) => (
            <li className="card service" key={s}>
              <h2>{t(`services.items.${s}.title`)}</h2>
              <p>
                <LinkedText text={t(`services.items.${s}.text`)} href={localePath(lang, linked[s] ?? '')} />
              </p>
            </li>
          ))}
        </ul>
      </section>
      <section className="signup-prompt" aria-labelledby="services-signup">
        <h2 id="services-signup">{t('services.signUpTitle')}</h2>
        <p>{t('services.signUpText')}</p>
        <a className="button" href={localePath(lang, '/registration')}>
          {t('services.signUpLink')}
        </a>
      </section>
    </>
  );
}
