import ArrowRight from 'lucide-react/icons/arrow-right';
import Building2 from 'lucide-react/icons/building-2';
import CalendarCheck from 'lucide-react/icons/calendar-check';
import Compass from 'lucide-react/icons/compass';
import Mail from 'lucide-react/icons/mail';
import MapIcon from 'lucide-react/icons/map';
import MapPin from 'lucide-react/icons/map-pin';
import Phone from 'lucide-react/icons/phone';
import Quote from 'lucide-react/icons/quote';
import RouteIcon from 'lucide-react/icons/route';
import Target from 'lucide-react/icons/target';
import Truck from 'lucide-react/icons/truck';
import Users from 'lucide-react/icons/users';
import members from '../../data/members.json';
import ContactForm from '../islands/ContactForm';
import { HeroArt } from '../components/HeroArt';
import { IconCards } from '../components/IconCards';
import { MemberLogo } from '../components/MemberLogo';
import { Partners } from '../components/Partners';
import { QuoteCaption } from '../components/QuoteCaption';
import { SignUpPrompt } from '../components/SignUpPrompt';
import { useT } from '../lib/i18n';
import { keyFigures, type FigureKey } from '../lib/figures';
import { Island } from '../lib/island';
import { inLanguage, localePath, settings } from '../lib/site';
import type { ScreenProps } from '../routes';


const cards = [
  ['why', Compass],
  ['who', Users],
  ['goal', Target],
] as const;

// The key figures' icons; data/site.json's keyFigures.show orders them.
const figureIcons: Record<FigureKey, typeof Users> = {
  members: Users,
  states: MapIcon,
  cities: Building2,
  routes: RouteIcon,
  years: CalendarCheck,
};

// Home: the hero with its illustration and primary action, the network's
// key figures, the three info cards, its members' logos and the partners,
// a member's words, the sign-up prompt and the contact form of SPEC §2.
export function Home({ lang }: ScreenProps) {
  const { t } = useT();
  const counts = keyFigures();
  const figures = (settings.keyFigures.show as FigureKey[]).filter((key) => counts[key] !== undefined);
  // The provider's address in the page's language, as on the contact page.
  const provider = inLanguage(settings.provider, lang);
  return (
    <>
      <section className="hero" aria-labelledby="home-title">
        <div className="hero-text">
          <p className="eyebrow">
            <Truck className="icon" />
            {t('home.title')}
          </p>
          <h1 id="home-title">{t('home.heroTitle')}</h1>
          <p className="lead">{t('home.heroText')}</p>
          <div className="actions">
            <a className="button large" href={localePath(lang, '/registration')}>
              {t('home.heroCta')}
              <ArrowRight className="icon" />
            </a>
            <a className="button secondary large" href={localePath(lang, '/services')}>
              {t('home.heroSecondary')}
            </a>
          </div>
        </div>
        <HeroArt />
      </section>
      <section className="figures-band" aria-labelledby="home-figures">
        <h2 id="home-figures" className="visually-hidden">
          {t('home.figuresHeading')}
        </h2>
        <dl className="figures">
          {figures.map((key) => {
            const Icon = figureIcons[key];
            return (
              <div className="figure" key={key}>
                <dt>
                  <Icon className="icon" />
                  {t(`home.figures.${key}`, { year: String(settings.copyrightStartYear) })}
                </dt>
                <dd>{counts[key]}</dd>
              </div>
            );
          })}
        </dl>
      </section>
      <section className="band" aria-labelledby="home-cards">
        <div className="section-head">
          <h2 id="home-cards">{t('home.cardsHeading')}</h2>
        </div>
        <IconCards items={cards} texts="home.cards" heading="h3" />
      </section>
      <section className="members-band" aria-labelledby="home-members">
        <div className="section-head">
          <h2 id="home-members">{t('home.membersTitle')}</h2>
          <p>{t('home.membersIntro')}</p>
        </div>
        <ul className="member-logos">
          {members.map((m) => (
            <li key={m.slug}>
              <a href={localePath(lang, `/member-details-${m.slug}`)}>
                <MemberLogo name={m.name} logo={m.logo} />
                <span>{inLanguage(m, lang).name}</span>
              </a>
            </li>
          ))}
        </ul>
        <p className="members-more">
          <a href={localePath(lang, '/members-profile')}>
            {t('home.membersLink')}
            <ArrowRight className="icon" />
          </a>
        </p>
      </section>
      <Partners headingId="home-partners" />
      <section className="band quote-band" aria-labelledby="home-quote">
        <h2 id="home-quote" className="visually-hidden">
          {t('testimonials.title')}
        </h2>
        <figure className="quote">
          <Quote className="icon quote-mark" />
          <blockquote>
            <p>{t('testimonials.quote')}</p>
          </blockquote>
          <QuoteCaption />
          <a href={localePath(lang, '/testimonials')}>{t('home.quoteLink')}</a>
        </figure>
      </section>
      <SignUpPrompt id="home-signup" title={t('home.signUpTitle')} text={t('home.signUpText')} link={t('home.signUpLink')} href={localePath(lang, '/registration')} />
      <section className="home-contact" aria-labelledby="home-contact">
        <div className="contact-layout">
          <div>
            <h2 id="home-contact">{t('contact.heading')}</h2>
            <p className="lead">{t('contactUs.intro')}</p>
            <ul className="contact-lines">
              <li>
                <MapPin className="icon" />
                <span>{provider.address}</span>
              </li>
              <li>
                <Mail className="icon" />
                <a href={`mailto:${provider.email}`}>{provider.email}</a>
              </li>
              <li>
                <Phone className="icon" />
                <a href={`tel:${provider.phone.replace(/\s/g, '')}`}>{provider.phone}</a>
              </li>
            </ul>
          </div>
          <div className="form-card">
            <Island name="ContactForm" component={ContactForm} props={{}} />
          </div>
        </div>
      </section>
    </>
  );
}
