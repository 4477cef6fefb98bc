package generator

import (
	"bytes"
	"fmt"
	"strings"

	"freightsite/data"
)

// redirects writes what serve and deploy/nginx.conf do by themselves: the
// API's paths go to apiOrigin when one is given (proxied, status 200, so
// the site and the API share an origin), and any other path under /hi or
// /ma answers that language's 404 page with status 404 (the root 404.html
// is the host's own). A news item's page is a file of the build (build
// --db); any other item id is not found, and the not-found page's script
// shows an item added after the build, as under nginx.
func redirects(langs []data.Language, apiOrigin string, apiPaths []string) []byte {
	var b bytes.Buffer
	b.WriteString("# Written by freightsite build. Netlify reads every rule; Cloudflare ignores\n" +
		"# proxies and 404s (it serves the nearest 404.html).\n")
	if apiOrigin != "" {
		origin := strings.TrimRight(apiOrigin, "/")
		for _, p := range apiPaths {
			if strings.HasSuffix(p, "/") {
				fmt.Fprintf(&b, "%s*  %s%s:splat  200\n", p, origin, p)
			} else {
				fmt.Fprintf(&b, "%s  %s%s  200\n", p, origin, p)
			}
		}
	}
	for _, l := range langs {
		if l.Prefix != "" {
			fmt.Fprintf(&b, "%s/*  /%s  404\n", l.Prefix, notFoundFile(l.Prefix))
		}
	}
	return b.Bytes()
}
