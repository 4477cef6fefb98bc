// The client entry, loaded by pages that contain an island (and by the boot
// script on a tenant's host). It is tiny on purpose: the browser paints the
// server-rendered page first, with nothing else on the wire, and only then
// are React, the page's islands and its translations (SPEC §7) fetched, all
// at once, and hydrated (hydrate.tsx).
import type { Lang } from './lib/site';
import { cached, lookUp, tenantLabels } from './lib/tenant';

// Until its island is live, a form must not submit the browser's way: that
// is a GET of the page itself, which would put what was typed (a password
// even) in the address and the server's log. Such a submit is held back
// (nothing is sent; one during hydration React replays to the island), and
// once the island is live the next one reaches it. This runs as soon as the
// entry does, before the page's first paint.
document.addEventListener(
  'submit',
  (event) => {
    const island = event.target instanceof Element ? event.target.closest<HTMLElement>('[data-island], [data-lazy-island]') : null;
    if (island && island.dataset.hydrated !== 'true') event.preventDefault();
  },
  true,
);

// preloadScripts asks for every file the page's scripts import (listed by
// the build on the entry's script tag) in parallel, instead of one level
// of imports after another.
function preloadScripts() {
  const listed = document.querySelector<HTMLScriptElement>('script[data-preload]')?.dataset.preload ?? '';
  for (const href of listed.split(' ').filter(Boolean)) {
    const link = document.createElement('link');
    link.rel = 'modulepreload';
    link.href = href;
    document.head.append(link);
  }
}

// afterFirstPaint resolves once the first content is on screen (the
// browser's paint timing entry, which comes when the frame is shown). A
// hidden tab paints nothing, so it starts at once; so does a browser
// without paint timing, and the fallback timer makes sure a page whose
// paint is never reported still gets its islands.
function afterFirstPaint(): Promise<void> {
  return new Promise((resolve) => {
    if (document.visibilityState === 'hidden' || !PerformanceObserver.supportedEntryTypes?.includes('paint')) return resolve();
    const observer = new PerformanceObserver((list) => {
      if (list.getEntriesByName('first-contentful-paint').length > 0) done();
    });
    const timer = setTimeout(done, 5000);
    function done() {
      observer.disconnect();
      clearTimeout(timer);
      resolve();
    }
    observer.observe({ type: 'paint', buffered: true });
    document.addEventListener('visibilitychange', done, { once: true });
  });
}

// A script the page needs did not load: the site may have been rebuilt
// since the page was opened, and the page's own scripts expired (a
// release keeps those of the last week), or the network failed.
class ChunkError extends Error {}

const chunk = <T,>(load: Promise<T>): Promise<T> =>
  load.catch((err: unknown) => {
    throw new ChunkError(String(err));
  });

const lang = (document.documentElement.dataset.lang ?? 'en') as Lang;
const messages = () =>
  fetch(`/assets/i18n/${lang}.json`).then((r) => {
    if (!r.ok) throw new Error(`loading translations for ${lang}: HTTP ${r.status}`);
    return r.json() as Promise<Record<string, Record<string, string>>>;
  });

// brandsThisHost says whether a tenant's branding applies to this host
// (lib/tenant.ts), looking it up once a tab and remembering the answer.
async function brandsThisHost(): Promise<boolean> {
  const labels = tenantLabels(location.hostname);
  if (!labels) return false;
  const b = cached(labels.alias) ?? (await lookUp(labels));
  return b.logo !== '' && b.isDefault !== 'Y';
}

// firstInteraction resolves when the visitor first moves the pointer,
// touches, scrolls or presses a key on the page.
function firstInteraction(): Promise<void> {
  const events = ['pointermove', 'pointerdown', 'touchstart', 'wheel', 'scroll', 'keydown'];
  return new Promise((resolve) => {
    const done = () => {
      for (const name of events) removeEventListener(name, done, true);
      resolve();
    };
    for (const name of events) addEventListener(name, done, { capture: true, passive: true });
  });
}

// neededAtLoad: an island that is no onInteraction one (lib/island.tsx),
// or one whose data-at-once matches this path.
const neededAtLoad = (el: HTMLElement) =>
  el.dataset.island !== undefined && (el.dataset.onInteraction === undefined || (el.dataset.atOnce !== undefined && new RegExp(el.dataset.atOnce).test(location.pathname)));

async function start() {
  await afterFirstPaint();
  const elements = [...document.querySelectorAll<HTMLElement>('[data-island], [data-lazy-island]')];
  if (elements.length === 0) return;
  // The lazy TenantLogo is wanted only on a tenant's host (a page whose
  // only island it is gets this entry from the boot script on a host that
  // may be one): React comes for it only there, and there at once.
  const branded = elements.some((el) => el.dataset.lazyIsland) && (await brandsThisHost());
  if (!branded && !elements.some((el) => el.dataset.island)) return;
  // A page whose islands can all wait for the visitor (the not-found
  // page) works as served until then: no script runs at load, and the
  // service worker need not wait for them.
  if (!branded && !elements.some(neededAtLoad)) {
    void registerWorker();
    await firstInteraction();
  }
  preloadScripts();
  const islands = elements.map((el) => chunk(import(`./islands/${el.dataset.island ?? el.dataset.lazyIsland}.tsx`)));
  const { hydrateIslands } = await chunk(import('./hydrate'));
  await hydrateIslands(lang, messages(), elements, islands);
}

// reloadedKey remembers (for this tab) when a missing script last made
// the page reload, so it reloads once, not in a loop.
const reloadedKey = 'freightsite:reloaded';

// scriptsFailed reloads the page once, which brings the current release's
// page and scripts; if they fail again, it says so in the page's language
// with a button to try again.
async function scriptsFailed() {
  try {
    if (Date.now() - Number(sessionStorage.getItem(reloadedKey)) > 60_000) {
      sessionStorage.setItem(reloadedKey, '' + Date.now());
      return location.reload();
    }
  } catch {
    // No session storage: show the notice rather than risk a loop.
  }
  const { page } = await messages().catch(() => ({ page: { loadFailed: 'Part of this page could not be loaded.', reload: 'Reload the page' } }));
  const notice = document.createElement('div');
  notice.className = 'notice bad load-failed';
  notice.setAttribute('role', 'alert');
  notice.appendChild(document.createElement('p')).textContent = page.loadFailed;
  const button = notice.appendChild(document.createElement('button'));
  button.type = 'button';
  button.className = 'button';
  button.textContent = page.reload;
  button.onclick = () => location.reload();
  (document.querySelector('main') ?? document.body).prepend(notice);
}

// registerWorker registers the service worker of a page with islands
// (data-sw-after-islands; the boot script registers that of a page
// without, data-sw) once the page has loaded and its islands are live or
// failed: the worker's first install downloads the language's pages and
// files, which must not compete with the islands' scripts and hydration.
// (Once: it may come before the islands, see start.)
let registered: Promise<void> | undefined;
function registerWorker() {
  return (registered ??= (async () => {
    const url = document.documentElement.dataset.swAfterIslands;
    if (!url) return;
    if (document.readyState !== 'complete') await new Promise((loaded) => addEventListener('load', loaded, { once: true }));
    await navigator.serviceWorker?.register(url).catch(() => {});
  })());
}

start()
  .catch((err) => (err instanceof ChunkError ? scriptsFailed() : console.error('starting islands:', err)))
  .finally(registerWorker);
