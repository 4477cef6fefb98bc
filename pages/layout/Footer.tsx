import { LogoMark } from '../components/Logo';
import { useT } from '../lib/i18n';
import { Prerendered } from '../lib/prerendered';
import { localePath, settings, type Lang } from '../lib/site';

const links: Array<[route: string, key: string]> = [
  ['/privacy-policy', 'footer.privacy'],
  ['/legal', 'footer.legal'],
  ['/copyright', 'footer.copyright'],
  ['/terms-n-conditions', 'footer.terms'],
];

// The secondary pages, which the navigation bar does not list, named by
// their titles: every page of the site is a link away from any other.
const more: Array<[route: string, key: string]> = [
  ['/donate', 'donate.title'],
  ['/mobile-app', 'mobileApp.title'],
  ['/feedback-form', 'feedbackForm.title'],
  ['/standard-15-day-format', 'importFormat.title'],
  ['/unsubscribe', 'unsubscribe.title'],
];

// The footer's two lists of links, each named for assistive technology.
const groups: Array<[label: string, links: Array<[route: string, key: string]>]> = [
  ['footer.more', more],
  ['footer.label', links],
];

// Footer shows the copyright range from the start year of SPEC §9 to the
// year of the build; the boot script moves it to the visitor's current year.
export function Footer({ lang, year }: { lang: Lang; year: number }) {
  const { t } = useT();
  return (
    <Prerendered as="footer" className="site-footer" id={String(year)}>
      <div className="footer-brand">
        <p className="brand">
          <LogoMark />
          <span>{settings.name}</span>
        </p>
        <p>{t('home.title')}</p>
      </div>
      {groups.map(([label, group]) => (
        <nav aria-label={t(label)} key={label}>
          <ul>
            {group.map(([to, key]) => (
              <li key={to}>
                <a href={localePath(lang, to)}>{t(key)}</a>
              </li>
            ))}
          </ul>
        </nav>
      ))}
      <p className="copyright-line">
        © {settings.copyrightStartYear}–<span data-current-year="">{year}</span> {t('footer.rights', { name: settings.name })}
      </p>
    </Prerendered>
  );
}
