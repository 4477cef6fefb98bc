package generator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evanw/esbuild/pkg/api"

	"freightsite/data"
)

// serviceWorkerFile is the service worker the boot script registers
// (pages/sw.ts), at the root so its scope is the whole site.
const serviceWorkerFile = "sw.js"

// unregisteringWorker is /sw.js of a build with the service worker off
// (Options.NoServiceWorker): a browser that installed an earlier build's
// worker finds this one at its next visit, which deletes the caches and
// unregisters itself. Pages of such a build do not register it.
const unregisteringWorker = `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(caches.keys().then((names) => Promise.all(names.map((n) => caches.delete(n)))).then(() => self.registration.unregister())));
`

// serviceWorkerURL is what the pages register (<html data-sw>), one
// worker for every language; empty when the build has the worker off.
func serviceWorkerURL(off bool) string {
	if off {
		return ""
	}
	return "/" + serviceWorkerFile
}

// precacheList is what the worker keeps for one language, each file with
// its content hash, the language's home page first: the language's pages
// (not the shells of routes with a parameter, nor the 404 page, nor the
// news archive's item pages and archive pages, thousands on a network's
// site: the feed's first page is kept), the
// hashed scripts and styles every island may load, the language's
// translations, the favicon and the images its pages show (no other
// hashed file: link preview images and app icons are not for offline use).
func precacheList(lang data.Language, files map[string][]byte, pages []PageWeight) [][2]string {
	var paths []string
	for _, p := range pages {
		if p.lang != lang.Code || strings.Contains(p.URL, ":") || strings.HasSuffix(p.File, "404.html") || archivePage(p.URL) {
			continue
		}
		paths = append(paths, p.URL)
		for _, img := range p.images {
			if !slices.Contains(paths, img) {
				paths = append(paths, img)
			}
		}
	}
	slices.SortStableFunc(paths, func(a, b string) int {
		// The home page first (the worker's fallback), then by path.
		if a == localePath(lang.Prefix, "/") {
			return -1
		}
		if b == localePath(lang.Prefix, "/") {
			return 1
		}
		return strings.Compare(a, b)
	})
	var assets []string
	for name := range files {
		code := strings.HasSuffix(name, ".js") || strings.HasSuffix(name, ".css")
		if strings.HasPrefix(name, hashedDir) && code && !slices.Contains(paths, "/"+name) {
			assets = append(assets, "/"+name)
		}
	}
	slices.Sort(assets)
	paths = append(paths, assets...)
	paths = append(paths, "/assets/i18n/"+lang.Code+".json", "/favicon.svg")

	out := make([][2]string, 0, len(paths))
	for _, p := range paths {
		content, ok := files[fileOfURL(p, pages)]
		if !ok {
			continue // an image of another site
		}
		sum := sha256.Sum256(content)
		out = append(out, [2]string{p, hex.EncodeToString(sum[:8])})
	}
	return out
}

// archivePage reports whether a URL path is an item's page or a later page
// of the news feed, in any language (not the shell of items to come).
func archivePage(p string) bool {
	return !strings.Contains(p, ":") && (strings.Contains(p, "/news-feed/news/") || strings.Contains(p, "/news-feed/page/"))
}

// fileOfURL is the file under dist/ that serves a URL path: a page's
// index.html, or the file of that name.
func fileOfURL(p string, pages []PageWeight) string {
	for _, pg := range pages {
		if pg.URL == p {
			return pg.File
		}
	}
	return strings.TrimPrefix(p, "/")
}

// serviceWorker bundles pages/sw.ts with every language's precache list
// and offline texts (locales offline.banner, offline.notSaved), or gives
// the unregistering worker when off. Its text changes with any file it
// lists, so browsers install the new worker after a rebuild.
func serviceWorker(root string, langs []data.Language, langTexts map[string]langTexts, files map[string][]byte, pages []PageWeight, off bool) ([]byte, error) {
	if off {
		return []byte(unregisteringWorker), nil
	}
	precache := map[string][][2]string{}
	texts := map[string]json.RawMessage{}
	for _, l := range langs {
		precache[l.Code] = precacheList(l, files, pages)
		texts[l.Code] = langTexts[l.Code].offline
	}
	pj, _ := json.Marshal(precache)
	tj, _ := json.Marshal(texts)
	res := api.Build(api.BuildOptions{
		AbsWorkingDir:     root,
		EntryPoints:       []string{filepath.Join(root, "pages", "sw.ts")},
		Define:            map[string]string{"PRECACHE": string(pj), "OFFLINE": string(tj)},
		Bundle:            true,
		Format:            api.FormatIIFE,
		Platform:          api.PlatformBrowser,
		Target:            api.ES2020,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		LegalComments:     api.LegalCommentsNone,
		Write:             false,
		Outfile:           serviceWorkerFile,
		LogLevel:          api.LogLevelSilent,
	})
	if err := buildErr("service worker", res); err != nil {
		return nil, err
	}
	return res.OutputFiles[0].Contents, nil
}
