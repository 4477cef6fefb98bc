// How the service worker (pages/sw.ts) answers a request, decided from
// the request and the worker's lists alone.

// Answer is the worker's way with a request: 'visit', a page opened (the
// network first; without one, the kept page with the offline banner);
// 'hashed', a file whose name carries its content hash (the kept copy
// first); 'listed', another file the worker keeps (the network first; the
// kept copy without one); null, none of the worker's business (the
// browser asks the network as usual): anything but a GET, another site's
// files, the API, and what the worker does not keep.
export type Answer = 'visit' | 'hashed' | 'listed' | null;

export function answerFor(req: { method: string; url: string; mode: string }, origin: string, listed: Set<string>): Answer {
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== origin || url.pathname.startsWith('/api/')) return null;
  if (req.mode === 'navigate') return 'visit';
  if (url.pathname.startsWith('/assets/build/')) return 'hashed';
  if (listed.has(url.pathname)) return 'listed';
  return null;
}

// languageOf is the language of a page's path: the one whose home page
// prefixes it, or the one at the root. homes maps each language to the
// path of its home page, in the build's order of languages.
export function languageOf(path: string, homes: Map<string, string>): string {
  const langs = [...homes.keys()];
  const prefixed = langs.find((l) => homes.get(l) !== '/' && (path === homes.get(l) || path.startsWith(homes.get(l) + '/')));
  return prefixed ?? langs.find((l) => homes.get(l) === '/') ?? langs[0];
}
