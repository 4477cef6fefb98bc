import TenantLogo from '../islands/TenantLogo';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';
import { Prerendered } from '../lib/prerendered';
import { languages, localePath, type Lang } from '../lib/site';

// The navigation links of SPEC §2, in order.
const links: Array<[route: string, key: string]> = [
  ['/', 'nav.home'],
  ['/registration', 'nav.signUp'],
  ['/about-us', 'nav.about'],
  ['/values', 'nav.values'],
  ['/faq', 'nav.faq'],
  ['/services', 'nav.services'],
  ['/testimonials', 'nav.testimonials'],
  ['/contact-us', 'nav.contact'],
  ['/members-profile', 'nav.members'],
  ['/news-feed', 'nav.news'],
  ['/login', 'nav.login'],
];

interface Props {
  lang: Lang;
  route: string;
  languageSelector: boolean;
}

// Nav is plain HTML. On phones the menu is a <details> disclosure, closed
// on every page, that its summary opens and closes without JavaScript;
// the inline boot script (pages/boot.ts) only adds Escape. On wide
// screens the stylesheet shows the links and hides the summary.
export function Nav({ lang, route, languageSelector }: Props) {
  const { t } = useT();
  const current = route === '/home' ? '/' : route;
  const active = links.some(([to]) => to === current) ? current : '';
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
          <nav aria-label={t('nav.label')}>
            <Prerendered as="ul" className="nav-links" id={active}>
              {links.map(([to, key]) => (
                <li key={to}>
                  <a href={localePath(lang, to)} aria-current={to === active ? 'page' : undefined}>
                    {t(key)}
                  </a>
                </li>
              ))}
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
