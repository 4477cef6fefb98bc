// The inline script of every page (the generator inlines it in <head> and
// allows it in the CSP by its hash). Its text depends on nothing a build
// sets (only on this file and the languages of data/site.json), so every
// build of one version has the same hash and a web server's CSP stays
// valid across rebuilds. It does what static pages need without
// React: the first-visit and remembered language choice, the page-view event,
// the collapsible navigation, and language links that keep the current path.
// LANGUAGES is [code, URL prefix] of each language, from data/site.json;
// the generator defines it so the script carries nothing else of that file.
// Entries stay tuples ([0] code, [1] prefix): the script must fit 1.5 KB.
declare const LANGUAGES: Array<[code: string, prefix: string]>;
const languages = LANGUAGES;

const html = document.documentElement;
const storageKey = 'lang';

function remembered(): string | null {
  try {
    return localStorage.getItem(storageKey);
  } catch {
    return null;
  }
}

// fromBrowser picks en, hi or ma from the browser's languages (SPEC §4),
// reading Marathi's real tag mr as ma; anything else is English.
function fromBrowser(): string {
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.slice(0, 2).toLowerCase(); // en, hi and mr are two-letter tags
    if (base === 'mr' || base === 'ma') return 'ma';
    if (base === 'hi' || base === 'en') return base;
  }
  return 'en';
}

const path = location.pathname;
const current = languages.find(([, prefix]) => prefix && (path === prefix || path.startsWith(prefix + '/'))) ?? languages[0];
const route = path.slice(current[1].length) || '/';
const localized = (prefix: string) => (route === '/' ? prefix || '/' : prefix + route);

// Only the unprefixed English pages redirect: a /hi or /ma address was
// chosen on purpose, and this way a redirect can never loop.
const wanted = current[1] === '' ? languages.find(([code]) => code === (remembered() ?? fromBrowser())) : undefined;
if (wanted && wanted[1] !== '') {
  location.replace(localized(wanted[1]) + location.search + location.hash);
} else {
  html.classList.add('js');
  // The data layer's name and the event's come from data/site.json's
  // analytics settings through <html> attributes, not from this script:
  // its hash (in the CSP) then stays the same whatever a build sets.
  const w = window as unknown as Record<string, object[] | undefined>;
  const { layer, pageView } = html.dataset as Record<string, string>;
  (w[layer] = w[layer] ?? []).push({ event: pageView, page_location: location.href, page_path: path, language: current[0] });

  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const link = target?.closest<HTMLElement>('[data-lang-link]');
    if (link) {
      try {
        localStorage.setItem(storageKey, link.dataset.langLink ?? 'en');
      } catch {
        // Storage can be off (private mode); the link still works.
      }
    }
    const toggle = target?.closest('[data-nav-toggle]');
    if (toggle) {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      toggle.setAttribute('aria-expanded', String(open));
      html.classList.toggle('nav-open', open);
    }
  });

  document.addEventListener('DOMContentLoaded', () => {
    for (const el of document.querySelectorAll('[data-current-year]')) el.textContent = '' + new Date().getFullYear();
    // Pages shared by many paths (404s, the news detail shell) were built
    // with a placeholder path: point the language links at the real one.
    for (const a of document.querySelectorAll<HTMLAnchorElement>('a[data-lang-link]')) {
      const lang = languages.find(([code]) => code === a.dataset.langLink);
      if (lang) a.setAttribute('href', localized(lang[1]));
    }
  });

  // A tenant's subdomain (acme.example.com: three labels or more, not www,
  // not an IP address) shows the tenant's logo and theme (SPEC §1): load
  // the islands' client, which runs the nav's lazily marked TenantLogo.
  // Other hosts keep the prerendered brand and load no script.
  const [label, , third] = location.hostname.split('.');
  if (third && label !== 'www' && !/^\d+$/.test(label)) import(html.dataset.client!);
}
