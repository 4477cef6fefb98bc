import TenantLogo from '../islands/TenantLogo';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';
import { Prerendered } from '../lib/prerendered';
import { languages, localePath, type Lang } from '../lib/site';

type Link = [route: string, key: string];

// The navigation links of SPEC §2, grouped: home, a group of the pages
// about the network, the members, news, FAQ and contact; then the two
// accounts actions, sign in (secondary) and sign up (primary).
const about: Link[] = [
  ['/about-us', 'nav.about'],
  ['/values', 'nav.values'],
  ['/services', 'nav.services'],
  ['/testimonials', 'nav.testimonials'],
];
const links: Array<Link | { group: string; links: Link[] }> = [
  ['/', 'nav.home'],
  { group: 'nav.aboutGroup', links: about },
  ['/members-profile', 'nav.members'],
  ['/news-feed', 'nav.news'],
  ['/faq', 'nav.faq'],
  ['/contact-us', 'nav.contact'],
];
const actions: Array<[...Link, kind: 'secondary' | 'primary']> = [
  ['/login', 'nav.login', 'secondary'],
  ['/registration', 'nav.signUp', 'primary'],
];

// navRoutes are every route the navigation links, in its order.
export const navRoutes = [...links.flatMap((l) => ('group' in l ? l.links.map(([to]) => to) : [l[0]])), ...actions.map(([to]) => to)];

interface Props {
  lang: Lang;
  route: string;
  languageSelector: boolean;
}

// Nav is plain HTML. On phones the menu is a <details> disclosure, closed
// on every page, that its summary opens and closes without JavaScript;
// the inline boot script (pages/boot.ts) only adds Escape. On wide
// screens the stylesheet shows the links and hides the summary; the
// group of pages about the network is a <details> too, a menu that
// opens under its summary, with the keyboard (Enter, Space) and without
// JavaScript; its summary is marked while one of its pages is shown.
// Sign in and sign up are buttons at the end of the links.
export function Nav({ lang, route, languageSelector }: Props) {
  const { t } = useT();
  const current = route === '/home' ? '/' : route;
  const active = navRoutes.includes(current) ? current : '';
  const link = (to: string, key: string, className?: string) => (
    <a href={localePath(lang, to)} className={className} aria-current={to === active ? 'page' : undefined}>
      {t(key)}
    </a>
  );
  return (
    <header className="site-header">
      <Prerendered as="div" className="bar" id="">
        <Island name="TenantLogo" component={TenantLogo} props={{ home: localePath(lang, '/') }} lazy />
      </Prerendered>
      <details className="site-menu" data-nav="">
        <summary className="nav-toggle">
          <span className="nav-toggle-icon" aria-hidden="true"></span>
          {t('nav.menu')}
        </summary>
        <div className="menu" id="site-menu">
          <nav className="site-nav" aria-label={t('nav.label')}>
            <Prerendered as="div" className="nav-rows" id={`nav ${active}`}>
              <ul className="nav-links">
                {links.map((l) =>
                  'group' in l ? (
                    <li key={l.group}>
                      <details className="nav-group" data-nav-group="">
                        <summary className={l.links.some(([to]) => to === active) ? 'current' : undefined}>{t(l.group)}</summary>
                        <ul>
                          {l.links.map(([to, key]) => (
                            <li key={to}>{link(to, key)}</li>
                          ))}
                        </ul>
                      </details>
                    </li>
                  ) : (
                    <li key={l[0]}>{link(l[0], l[1])}</li>
                  ),
                )}
              </ul>
              <ul className="nav-actions">
                {actions.map(([to, key, kind]) => (
                  <li key={to}>{link(to, key, kind === 'primary' ? 'button' : 'button secondary')}</li>
                ))}
              </ul>
            </Prerendered>
          </nav>
          {languageSelector && (
            <nav className="lang-select" aria-label={t('nav.language')}>
              <ul>
                {languages.map((l) => (
                  <li key={l.code}>
                    <a
                      href={localePath(l.code, route)}
                      hrefLang={l.htmlLang}
                      lang={l.htmlLang}
                      data-lang-link={l.code}
                      aria-current={l.code === lang ? 'true' : undefined}
                    >
                      {l.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
        </div>
      </details>
    </header>
  );
}
