package site

import (
	"path"
	"strings"
)

// This file is the one place that knows how routes map to files in dist/;
// the build writes with it (generator, through build.go's names) and the
// site handler reads with it.

// manifestFile lists the routes and language prefixes of a build, so the
// site handler can match paths exactly (SPEC §2) without the source tree.
const manifestFile = "routes.json"

// headersFile holds the response headers of the static pages in the
// _headers format static hosts (Netlify, Cloudflare Pages) read.
const headersFile = "_headers"

type manifest struct {
	Prefixes []string `json:"prefixes"` // "", "/hi", "/ma"
	Routes   []string `json:"routes"`   // SPEC §2 paths; ":name" segments are parameters
	// BaseURL is the site's address in the pages' links and the sitemap,
	// and Placeholders the example values they carry (data.Settings), so
	// serve can check them against where it listens.
	BaseURL      string   `json:"baseURL"`
	Placeholders []string `json:"placeholders,omitempty"`
	// NewsItems is how many items the news archive has, each with a page
	// (/news-feed/news/{id}), and FeedPages how many pages it is split
	// into (/news-feed/page/1, the oldest, to /news-feed/page/{FeedPages}).
	NewsItems int `json:"newsItems"`
	FeedPages int `json:"feedPages"`
}

// routeFile is the file under dist/ holding route in the language with the
// given URL prefix: "/faq" in "/hi" is "hi/faq/index.html"; a parameter
// segment is written as "_" (the shell page its island fills in).
func routeFile(prefix, route string) string {
	segs := strings.Split(strings.Trim(route, "/"), "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") {
			segs[i] = "_"
		}
	}
	return path.Join(strings.TrimPrefix(prefix, "/"), path.Join(segs...), "index.html")
}

// notFoundFile is the 404 page of the language with the given prefix.
func notFoundFile(prefix string) string {
	return path.Join(strings.TrimPrefix(prefix, "/"), "404.html")
}

// matchRoute reports whether the URL path p (without language prefix)
// is route, with ":name" segments matching any one non-empty segment.
func matchRoute(route, p string) bool {
	if !strings.Contains(route, ":") {
		return route == p
	}
	rs, ps := strings.Split(route, "/"), strings.Split(p, "/")
	if len(rs) != len(ps) {
		return false
	}
	for i := range rs {
		if strings.HasPrefix(rs[i], ":") {
			if ps[i] == "" {
				return false
			}
		} else if rs[i] != ps[i] {
			return false
		}
	}
	return true
}
