import ContactForm from '../islands/ContactForm';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';
import type { ScreenProps } from '../routes';
import { localePath } from '../lib/site';

const cards = ['why', 'who', 'goal'] as const;

// Home: hero, the three info cards, the sign-up prompt and the contact
// form of SPEC §2.
export function Home({ lang }: ScreenProps) {
  const { t } = useT();
  return (
    <>
      <section className="hero">
        <h1>{t('home.heroTitle')}</h1>
        <p className="lead">{t('home.heroText')}</p>
        <a className="button" href={localePath(lang, '/registration')}>
          {t('home.heroCta')}
        </a>
      </section>
      <section className="cards" aria-labelledby="home-cards">
        <h2 id="home-cards" className="visually-hidden">
          {t('home.cardsHeading')}
        </h2>
        {cards.map((card) => (
          <article className="card" key={card}>
            <h3>{t(`home.cards.${card}.title`)}</h3>
            <p>{t(`home.cards.${card}.text`)}</p>
          </article>
        ))}
      </section>
      <section className="signup-prompt">
        <h2>{t('home.signUpTitle')}</h2>
        <p>{t('home.signUpText')}</p>
        <a className="button" href={localePath(lang, '/registration')}>
          {t('home.signUpLink')}
        </a>
      </section>
      <section className="home-contact" aria-labelledby="home-contact">
        <h2 id="home-contact">{t('contact.heading')}</h2>
        <Island name="ContactForm" component={ContactForm} props={{}} />
      </section>
    </>
  );
}
