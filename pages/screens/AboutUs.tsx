import { useT } from '../lib/i18n';
import { localePath } from '../lib/site';
import type { ScreenProps } from '../routes';
import { Prose } from './Prose';
import { ReadMore } from './ReadMore';

const partners = ['agri', 'port', 'highway'] as const;

// AboutUs: the network's story collapsed behind Read more (SPEC §4), the
// three partner networks and the sign-up link (SPEC §2).
export function AboutUs({ lang }: ScreenProps) {
  const { t } = useT();
  return (
    <>
      <section className="page">
        <h1>{t('aboutUs.title')}</h1>
        <p className="lead">{t('aboutUs.intro')}</p>
        <p>{t('aboutUs.summary')}</p>
        <ReadMore>
          <Prose text={t('aboutUs.story')} />
        </ReadMore>
      </section>
      <section className="cards-section" aria-labelledby="about-partners">
        <h2 id="about-partners">{t('aboutUs.partnersTitle')}</h2>
        <p>{t('aboutUs.partnersIntro')}</p>
        <ul className="cards">
          {partners.map((p) => (
            <li className="card" key={p}>
              <h3>{t(`aboutUs.partners.${p}.title`)}</h3>
              <p>{t(`aboutUs.partners.${p}.text`)}</p>
            </li>
          ))}
        </ul>
      </section>
      <section className="signup-prompt" aria-labelledby="about-signup">
        <h2 id="about-signup">{t('aboutUs.signUpTitle')}</h2>
        <p>{t('aboutUs.signUpText')}</p>
        <a className="button" href={localePath(lang, '/registration')}>
          {t('aboutUs.signUpLink')}
        </a>
      </section>
    </>
  );
}
