// The service worker, /sw.js (generator/offline.go builds it with the
// build's file list). Registered by the pages once they are loaded and
// their islands live, it keeps the pages and files of the visitor's
// languages on the phone and serves them when the network is gone, with
// a banner saying so; it sends the outbox (lib/outbox.ts) once the
// connection returns. One worker serves every language: it keeps the
// language of the pages open when it installs, and another language the
// first time the visitor opens one of its pages, so switching languages
// neither replaces the worker nor drops what it keeps. Every rebuild that
// changes a file changes this script, so browsers install the new worker,
// which takes over at once and deletes the caches of the old one: pages
// always come from the network first, so no visitor is kept on an old
// site.
import { flush } from './lib/outbox';
import { answerFor, languageOf } from './lib/workerRoutes';

// PRECACHE holds, for each language, [URL path, content hash] of its pages
// and of every file they use, its home page first; OFFLINE the banners'
// texts in that language (locales offline.banner and offline.notSaved).
declare const PRECACHE: Record<string, Array<[string, string]>>;
declare const OFFLINE: Record<string, { banner: string; notSaved: string }>;

// The worker's own types (the "webworker" lib clashes with "dom").
interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  preloadResponse: Promise<Response | undefined>;
  respondWith(r: Promise<Response>): void;
}
interface SyncEvent extends ExtendableEvent {
  tag: string;
}
interface Worker {
  location: Location;
  registration: ServiceWorkerRegistration & { navigationPreload?: { enable(): Promise<void> } };
  clients: { claim(): Promise<void>; matchAll(o: { type: 'window'; includeUncontrolled: boolean }): Promise<Array<{ url: string }>> };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate' | 'message', f: (e: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', f: (e: FetchEvent) => void): void;
  addEventListener(type: 'sync', f: (e: SyncEvent) => void): void;
}
const sw = self as unknown as Worker;

const langs = Object.keys(PRECACHE);
const homes = new Map(langs.map((l) => [l, PRECACHE[l][0][0]]));
// Every file the worker keeps, whatever its language.
const listed = new Set(langs.flatMap((l) => PRECACHE[l].map(([path]) => path)));
const hashHeader = 'X-Content-Hash';

function hash(s: string): string {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return (h >>> 0).toString(36);
}

// A language's cache is named after it and the hashes of its files, so
// the name changes with any of them.
const cacheNames = new Map(langs.map((l) => [l, 'site-' + l + '-' + hash(PRECACHE[l].map(([, h]) => h).join())]));

const langOf = (path: string) => languageOf(path, homes);

// keep fills a language's cache, once per worker; a file already kept
// with its hash, in any cache, is copied instead of downloaded.
const keeping = new Map<string, Promise<void>>();
function keep(lang: string): Promise<void> {
  let done = keeping.get(lang);
  if (!done) {
    done = fill(lang);
    keeping.set(lang, done);
    done.catch(() => keeping.delete(lang)); // tried again at the next visit
  }
  return done;
}

// fill takes two files at a time: it runs while the visitor reads or
// opens the next page, on a phone with few cores and a thin connection,
// and must leave both to the page.
async function fill(lang: string): Promise<void> {
  const cache = await caches.open(cacheNames.get(lang)!);
  await inTurn(
    PRECACHE[lang],
    2,
    async ([path, h]) => {
      if ((await cache.match(path))?.headers.get(hashHeader) === h) return;
      const old = await caches.match(path);
      if (old?.headers.get(hashHeader) === h) return cache.put(path, old);
      // Hashed files never change; anything else is checked with the server.
      const res = await fetch(path, { cache: path.startsWith('/assets/build/') ? 'default' : 'no-cache' });
      if (!res.ok) throw new Error(`precaching ${path}: HTTP ${res.status}`);
      const headers = new Headers(res.headers);
      headers.set(hashHeader, h);
      // The body is kept decoded, so these no longer describe it.
      headers.delete('Content-Encoding');
      headers.delete('Content-Length');
      await cache.put(path, new Response(await res.blob(), { status: res.status, statusText: res.statusText, headers }));
    },
  );
}

// inTurn calls f on every item, at most n at once.
async function inTurn<T>(items: T[], n: number, f: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await f(items[next++]);
  };
  await Promise.all(Array.from({ length: n }, worker));
}

// A new worker keeps the languages of the open pages and those the old
// one kept.
sw.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const open = (await sw.clients.matchAll({ type: 'window', includeUncontrolled: true })).map((c) => langOf(new URL(c.url).pathname));
      const kept = (await caches.keys()).map((name) => langs.find((l) => name.startsWith('site-' + l + '-')));
      const wanted = new Set([...open, ...kept].filter((l): l is string => l !== undefined));
      await Promise.all([...wanted].map(keep));
      await sw.skipWaiting();
    })(),
  );
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const current = new Set(cacheNames.values());
      for (const name of await caches.keys()) if (!current.has(name)) await caches.delete(name);
      await sw.registration.navigationPreload?.enable();
      await sw.clients.claim();
    })(),
  );
});

// A sync that leaves entries unsent fails, so the browser tries again later.
sw.addEventListener('sync', (event) => {
  if (event.tag === 'outbox')
    event.waitUntil(
      flush().then((left) => {
        if (left) throw new Error(`outbox: ${left} not sent yet`);
      }),
    );
});
sw.addEventListener('message', (event) => event.waitUntil(flush()));

sw.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  switch (answerFor(req, sw.location.origin, listed)) {
    case 'visit':
      // A visit is when kept messages go, where Background Sync is
      // missing, and when a language opened for the first time is kept.
      event.waitUntil(flush().catch(() => {}));
      event.waitUntil(keep(langOf(url.pathname)).catch(() => {}));
      event.respondWith(page(event, url));
      break;
    case 'hashed':
      // Hashed files never change: the kept copy is as good as the network's.
      event.respondWith(caches.match(req).then((kept) => kept ?? fetch(req)));
      break;
    case 'listed':
      event.respondWith(fetch(req).catch(() => caches.match(url.pathname).then((kept) => kept ?? Response.error())));
      break;
  }
});

// page is the network's answer to a visit, or without a network the kept
// page with the offline banner (the language's home page when that one is
// not kept).
async function page(event: FetchEvent, url: URL): Promise<Response> {
  try {
    return (await event.preloadResponse) ?? (await fetch(event.request));
  } catch (err) {
    const lang = langOf(url.pathname);
    const cacheName = cacheNames.get(lang)!;
    const texts = OFFLINE[lang];
    const kept = await caches.match(url.pathname.replace(/(.)\/$/, '$1'), { cacheName });
    if (kept) return withBanner(kept, texts.banner);
    const fallback = await caches.match(homes.get(lang)!, { cacheName });
    if (fallback) return withBanner(fallback, texts.notSaved);
    throw err;
  }
}

// withBanner puts the banner at the top of the page's <main> (a landmark,
// as every part of a page is in one), as a status the screen reader reads.
async function withBanner(res: Response, text: string): Promise<Response> {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const html = (await res.text()).replace(/<main\b[^>]*>/, (tag) => `${tag}<p class="offline-banner" role="status">${escaped}</p>`);
  return new Response(html, { status: 200, headers: res.headers });
}
