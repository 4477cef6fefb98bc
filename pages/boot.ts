// The inline script of every page (the generator inlines it in <head> and
// allows it in the CSP by its hash). It does what static pages need without
// React: the first-visit and remembered language choice, the page-view event,
// the collapsible navigation, and language links that keep the current path.
// LANGUAGES is [code, URL prefix] of each language, from data/site.json;
// the generator defines it so the script carries nothing else of that file.
declare const LANGUAGES: Array<[code: string, prefix: string]>;
const languages = LANGUAGES.map(([code, prefix]) => ({ code, prefix }));

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
    const base = tag.toLowerCase().split('-')[0];
    if (base === 'mr' || base === 'ma') return 'ma';
    if (base === 'hi' || base === 'en') return base;
  }
  return 'en';
}

const path = location.pathname;
const current = languages.find((l) => l.prefix && (path === l.prefix || path.startsWith(l.prefix + '/'))) ?? languages[0];
const route = path.slice(current.prefix.length) || '/';
const localized = (prefix: string) => (route === '/' ? prefix || '/' : prefix + route);

// Only the unprefixed English pages redirect: a /hi or /ma address was
// chosen on purpose, and this way a redirect can never loop.
const wanted = current.prefix === '' ? languages.find((l) => l.code === (remembered() ?? fromBrowser())) : undefined;
if (wanted && wanted.prefix !== '') {
  location.replace(localized(wanted.prefix) + location.search + location.hash);
} else {
  html.classList.add('js');
  const w = window as unknown as { dataLayer?: object[] };
  (w.dataLayer = w.dataLayer ?? []).push({ event: 'page_view', page_location: location.href, page_path: path, language: current.code });

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
    for (const el of document.querySelectorAll('[data-current-year]')) el.textContent = String(new Date().getFullYear());
    // Pages shared by many paths (404s, the news detail shell) were built
    // with a placeholder path: point the language links at the real one.
    for (const a of document.querySelectorAll<HTMLAnchorElement>('a[data-lang-link]')) {
      const lang = languages.find((l) => l.code === a.dataset.langLink);
      if (lang) a.setAttribute('href', localized(lang.prefix));
    }
  });
}
