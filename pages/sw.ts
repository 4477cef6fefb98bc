// The service worker, /sw.js (generator/offline.go builds it with the
// build's file list). Registered by the boot script after the page has
// loaded, as /sw.js?lang=CODE, it keeps the pages and files of that
// language on the phone and serves them when the network is gone, with a
// banner saying so; it sends the outbox (lib/outbox.ts) once the
// connection returns. Every rebuild that changes a file changes this
// script, so browsers install the new worker, which takes over at once
// and deletes the caches of the old one: pages always come from the
// network first, so no visitor is kept on an old site.
import { flush } from './lib/outbox';

// PRECACHE holds, for each language, [URL path, content hash] of its pages
// and of every file they use; OFFLINE the banners' texts in that language
// (locales offline.banner and offline.notSaved).
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
  clients: { claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate' | 'message', f: (e: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', f: (e: FetchEvent) => void): void;
  addEventListener(type: 'sync', f: (e: SyncEvent) => void): void;
}
const sw = self as unknown as Worker;

const lang = new URLSearchParams(sw.location.search).get('lang') ?? '';
const files = PRECACHE[lang] ?? PRECACHE.en;
const texts = OFFLINE[lang] ?? OFFLINE.en;
const home = files[0][0]; // the language's home page comes first
const hashes = new Map(files);
// The cache's name changes with any file of the language.
const cacheName = 'site-' + lang + '-' + hash(files.map(([, h]) => h).join());
const hashHeader = 'X-Content-Hash';

function hash(s: string): string {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return (h >>> 0).toString(36);
}

// A file whose hash has not changed is copied from the old worker's cache
// instead of being downloaded again.
sw.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(cacheName);
      await Promise.all(
        files.map(async ([path, h]) => {
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
        }),
      );
      await sw.skipWaiting();
    })(),
  );
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== cacheName) await caches.delete(name);
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
  if (req.method !== 'GET' || url.origin !== sw.location.origin || url.pathname.startsWith('/api/')) return;
  if (req.mode === 'navigate') {
    // A visit is when kept messages go, where Background Sync is missing.
    event.waitUntil(flush().catch(() => {}));
    event.respondWith(page(event, url));
  } else if (url.pathname.startsWith('/assets/build/')) {
    // Hashed files never change: the kept copy is as good as the network's.
    event.respondWith(caches.match(req, { cacheName }).then((kept) => kept ?? fetch(req)));
  } else if (hashes.has(url.pathname)) {
    event.respondWith(fetch(req).catch(() => caches.match(url.pathname, { cacheName }).then((kept) => kept ?? Response.error())));
  }
});

// page is the network's answer to a visit, or without a network the kept
// page with the offline banner (the home page when that one is not kept).
async function page(event: FetchEvent, url: URL): Promise<Response> {
  try {
    return (await event.preloadResponse) ?? (await fetch(event.request));
  } catch (err) {
    const path = url.pathname.replace(/(.)\/$/, '$1');
    const kept = await caches.match(path, { cacheName });
    if (kept) return withBanner(kept, texts.banner);
    const fallback = await caches.match(home, { cacheName });
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
