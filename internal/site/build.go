package site

import "net/http"

// What the build (generator) writes dist/ with and hands freightsite
// dev's builds over through: the names of layout.go and site.go it needs.

// redirectsFile holds the rules of static hosts that read _redirects
// (Netlify; Cloudflare takes neither a 404 status nor a proxy to another
// origin, so `release export --for cloudflare` leaves it out). The site
// handler never serves it.
const redirectsFile = "_redirects"

// The files of dist/ the handler reads or keeps from visitors.
const (
	ManifestFile  = manifestFile
	HeadersFile   = headersFile
	RedirectsFile = redirectsFile
)

// Manifest is ManifestFile's content: a build's routes and languages.
type Manifest = manifest

// RouteFile is the file under dist/ holding route in the language with
// the given URL prefix ("/faq" in "/hi" is "hi/faq/index.html").
func RouteFile(prefix, route string) string { return routeFile(prefix, route) }

// NotFoundFile is the 404 page of the language with the given prefix.
func NotFoundFile(prefix string) string { return notFoundFile(prefix) }

// MatchRoute reports whether the URL path p (without language prefix)
// is route, with ":name" segments matching any one non-empty segment.
func MatchRoute(route, p string) bool { return matchRoute(route, p) }

// SplitPrefix separates the language prefix from a URL path: "/hi/faq"
// is ("/hi", "/faq").
func SplitPrefix(prefixes []string, p string) (prefix, route string) {
	return splitPrefix(prefixes, p)
}

// HeaderRule is a rule of HeadersFile: a path pattern ("/*", an exact
// path) and the headers of the answers whose paths it matches.
type HeaderRule struct {
	Pattern string
	Header  http.Header
}

// ParseHeaders reads the rules of a HeadersFile.
func ParseHeaders(raw []byte) []HeaderRule {
	var rules []HeaderRule
	for _, r := range parseHeaders(raw) {
		rules = append(rules, HeaderRule{r.pattern, r.header})
	}
	return rules
}

// State is a build held in memory, as MemoryState makes it.
type State = siteState

// Manifest is the build's routes and languages.
func (st *State) Manifest() Manifest { return st.manifest }

// File is a file of a build held in memory.
type File = builtFile

// NewFile is a file with these bytes.
func NewFile(data []byte) *File { return &builtFile{data: data} }

// MemoryState is a build held in memory: its route manifest and _headers
// from files, every file from source (nil for a name it does not have).
func MemoryState(files map[string][]byte, source func(name string) *File) (*State, error) {
	return memoryState(files, source)
}

// Memory serves the build current gives (freightsite dev's, changing
// with each rebuild) the way Site serves a published one.
func Memory(news NewsLookup, current func() *State) http.Handler {
	return &site{news: news, memory: current}
}
