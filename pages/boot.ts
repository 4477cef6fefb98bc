// The inline script of every page (the generator inlines it in <head> and
// allows it in the CSP by its hash). Its text depends on nothing a build
// sets (only on this file and the languages of data/site.json), so every
// build of one version has the same hash and a web server's CSP stays
// valid across rebuilds. It does what static pages need without
// React: the first-visit and remembered language choice, the page-view event,
// Escape on the open navigation menu, language links that
// keep the current path, and the first look at a tenant's host.
// LANGUAGES is [code, URL prefix] of each language, from data/site.json;
// the generator defines it so the script carries nothing else of that file.
// Entries stay tuples ([0] code, [1] prefix): the script must fit 1.5 KB.
declare const LANGUAGES: Array<[code: string, prefix: string]>;

// doc and loc: the globals' names cost bytes at each of their uses.
const doc = document;
const loc = location;
const html = doc.documentElement;
const storageKey = 'lang';

function remembered(): string | null | undefined {
  try {
    return localStorage.getItem(storageKey);
  } catch {
    // Storage can be off (private mode): nothing is remembered.
  }
}

// fromBrowser picks en, hi or ma from the browser's languages (SPEC §4),
// reading Marathi's real tag mr as ma; anything else is English.
function fromBrowser(): string {
  for (const tag of navigator.languages) {
    const base = tag.slice(0, 2).toLowerCase(); // en, hi and mr are two-letter tags
    if (base === 'mr' || base === 'ma') return 'ma';
    if (base === 'hi' || base === 'en') return base;
  }
  return 'en';
}

const path = loc.pathname;
const current = LANGUAGES.find(([, prefix]) => prefix && (path === prefix || path.startsWith(prefix + '/'))) ?? LANGUAGES[0];
const route = path.slice(current[1].length) || '/';
const localized = (prefix: string) => (route === '/' ? prefix || '/' : prefix + route);

// Only the unprefixed English pages redirect: a /hi or /ma address was
// chosen on purpose, and this way a redirect can never loop.
const wanted = current[1] === '' ? LANGUAGES.find(([code]) => code === (remembered() ?? fromBrowser())) : undefined;
if (wanted && wanted[1] !== '') {
  loc.replace(localized(wanted[1]) + loc.search + loc.hash);
} else {
  html.classList.add('js');
  // The data layer's name and the event's come from data/site.json's
  // analytics settings through <html> attributes, not from this script:
  // its hash (in the CSP) then stays the same whatever a build sets.
  const w = window as unknown as Record<string, object[] | undefined>;
  const { layer, pageView, sw, client } = html.dataset as Record<string, string>;
  (w[layer] = w[layer] ?? []).push({ event: pageView, page_location: loc.href, page_path: path, language: current[0] });
  // The service worker (pages/sw.ts) once the page has loaded. data-sw is
  // absent when the build has it off, and on pages with islands, whose
  // client.tsx registers it once they are live. (window.onload: nothing
  // else of the site sets it.)
  if (sw) onload = () => navigator.serviceWorker?.register(sw).catch(() => {});

  // The phone menu and the group of links in it are <details>
  // (layout/Nav.tsx) that open and close without JavaScript; Escape
  // closes the open group, else the menu, and returns focus to its
  // summary, and a click elsewhere closes the group.
  const group = '[data-nav-group][open]';
  doc.onkeydown = (event) => {
    const open = doc.querySelector<HTMLDetailsElement>(group) ?? doc.querySelector<HTMLDetailsElement>('[data-nav][open]');
    if (event.key === 'Escape' && open) {
      open.open = false;
      open.querySelector('summary')!.focus();
    }
  };
  doc.onclick = (event) => {
    const target = event.target as Element;
    const open = doc.querySelector<HTMLDetailsElement>(group);
    if (open && !open.contains(target)) open.open = false;
    const link = target.closest?.<HTMLElement>('[data-lang-link]');
    if (link) {
      try {
        localStorage.setItem(storageKey, link.dataset.langLink!);
      } catch {
        // Storage can be off (private mode); the link still works.
      }
    }
  };

  doc.addEventListener('DOMContentLoaded', () => {
    for (const el of doc.querySelectorAll('[data-current-year]')) el.textContent = '' + new Date().getFullYear();
    // Pages shared by many paths (404s, the news detail shell) were built
    // with a placeholder path: point the language links at the real one.
    for (const a of doc.querySelectorAll<HTMLAnchorElement>('a[data-lang-link]')) {
      const lang = LANGUAGES.find(([code]) => code === a.dataset.langLink);
      if (lang) a.setAttribute('href', localized(lang[1]));
    }
  });

  // A host with a name (not an IP address) may be a tenant's (SPEC §1;
  // pages/lib/tenant.ts): load the islands' client, which looks it up once
  // a tab and runs the nav's lazily marked TenantLogo only for a tenant.
  // Once this tab knows the host has no tenant (an empty Logo entry for
  // its alias label), static pages load no script at all.
  // (The rule of tenantLabels in lib/tenant.ts, written out: importing it
  // costs bytes this script does not have.)
  const [label, , third] = loc.hostname.split('.');
  try {
    if (!/^\d+$|:/.test(label) && sessionStorage.getItem('Logo' + (third ? label : 'www')) !== '') import(client);
  } catch {
    // No session storage: no tenant branding either.
  }
}
