package generator

import "freightsite/internal/site"

// The layout of dist/ is internal/site's, which serves it (site/layout.go):
// the names the build writes it with.
const (
	manifestFile  = site.ManifestFile
	headersFile   = site.HeadersFile
	redirectsFile = site.RedirectsFile
)

type manifest = site.Manifest

var (
	routeFile    = site.RouteFile
	notFoundFile = site.NotFoundFile
	matchRoute   = site.MatchRoute
	splitPrefix  = site.SplitPrefix
)

// stableStylesheet is a copy of the hashed site stylesheet under a fixed
// name, for the pages the API writes (formapi's members' page).
const stableStylesheet = "assets/site.css"

// localePath is route's URL path in the language with the given prefix.
func localePath(prefix, route string) string {
	if route == "/" {
		if prefix == "" {
			return "/"
		}
		return prefix
	}
	return prefix + route
}
