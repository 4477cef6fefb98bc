package site

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// Site serves a folder written by Build the way SPEC §2 and DESIGN.md
// want it served: exact routes in every language, that language's 404 page
// with status 404 for anything else, a redirect from a trailing slash,
// precompressed .gz files when the client accepts gzip, immutable caching
// of hashed assets and the security headers the build wrote in _headers.
// dist is the path a build publishes (a link to its newest release): each
// release is read through the folder the link named when its route list
// was read, so one answer never mixes two releases, and a new release is
// picked up by the requests that come a millisecond after it
// (manifestCheckEvery).
//
// A news item's page, /news-feed/news/{id}, is the page the build wrote
// for the item; news, when given, says whether an item exists, so an
// unknown id answers 404 even where the build wrote a page, and an item
// added after the build gets the shell page that loads it. Without news
// (or for a malformed id) only the build's pages answer, anything else 404.
func Site(dist string, news NewsLookup) (http.Handler, error) {
	s := &site{dist: dist, news: news}
	if _, err := s.current(); err != nil {
		return nil, err
	}
	return s, nil
}

// Built is what the build published at dist says about itself.
type Built struct {
	BaseURL      string
	Placeholders []string
}

// ReadBuilt reads the base URL and the placeholders of the build
// published at dist.
func ReadBuilt(dist string) (Built, error) {
	raw, err := os.ReadFile(filepath.Join(dist, manifestFile))
	if err != nil {
		return Built{}, fmt.Errorf("%s holds no built site (%s is missing): run `freightsite build --out %s` first", dist, manifestFile, dist)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return Built{}, fmt.Errorf("reading %s: %w", manifestFile, err)
	}
	return Built{BaseURL: m.BaseURL, Placeholders: m.Placeholders}, nil
}

// NewsLookup says whether the news item with this id exists.
type NewsLookup func(ctx context.Context, id int64) (bool, error)

// newsRoute is the route of a news item's page (pages/routes.tsx).
const newsRoute = "/news-feed/news/:newsId"

type site struct {
	dist string
	news NewsLookup
	// memory, when set, gives the build to serve instead of dist's
	// (freightsite dev's, held in memory).
	memory func() *siteState

	mu     sync.Mutex  // held while dist is looked at
	loaded os.FileInfo // the manifest last read
	// state is the build served; checked when dist's manifest was last
	// looked at (Unix nanoseconds): read without the lock by every
	// request.
	state   atomic.Pointer[siteState]
	checked atomic.Int64
}

// manifestCheckEvery is how often a busy server looks at dist for a new
// release: a stat of the manifest a millisecond rather than one a
// request (a stat is a sizeable part of a static answer's CPU time).
const manifestCheckEvery = time.Millisecond

type siteState struct {
	dir      string // the release folder (dist with its link resolved)
	manifest manifest
	headers  []headerRule
	// files keeps each file of this build that has been served, read once:
	// a build's files are small and never change (a new build brings a new
	// siteState). Only files that exist are kept, so probes for random
	// paths cannot grow it.
	files sync.Map // name under dist -> *builtFile
	// source, when set, gives the files instead of dir (a build held in
	// memory): nil for a name it does not have.
	source func(name string) *builtFile
	// answers keeps the whole 200 answer (answerKey) of each route and
	// file that has been asked for by its clean path, its headers worked
	// out once; like files, only for what exists.
	answers sync.Map // answerKey -> *answer
}

// answerKey names a prepared answer: the URL path, and whether the
// client takes gzip.
type answerKey struct {
	path string
	gzip bool
}

// answer is a 200 answer ready to send: every header the site sets
// (Content-Length included, so it goes out in one piece rather than
// chunked; the entity tag) with its values built once, and the body.
type answer struct {
	header []headerField
	body   []byte
}

// headerField is one header of a prepared answer: its canonical name and
// its values, shared by every answer that sends them (an answer's header
// map is given these slices, never written into).
type headerField struct {
	name   string
	values []string
}

func (a *answer) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for _, f := range a.header {
		h[f.name] = f.values
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(a.body)
	}
}

// plainGet reports whether a request asks for a whole answer with no
// conditions (no Range, no If-*): one a prepared answer can serve.
func plainGet(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	for k := range r.Header {
		if k == "Range" || strings.HasPrefix(k, "If-") {
			return false
		}
	}
	return true
}

// builtFile is a file of a build. Its validator is its entity tag, not
// a modification time: a build writes every file anew, unchanged or not,
// and a build held in memory (dev) has none.
type builtFile struct {
	data []byte

	tagOnce sync.Once
	tag     string // etag's, once worked out
}

// etag is the file's strong entity tag: a hash of its bytes, so the
// gzip file and the page it holds have their own, and a file that a
// rebuild leaves unchanged keeps its tag.
func (f *builtFile) etag() string {
	f.tagOnce.Do(func() {
		sum := sha256.Sum256(f.data)
		f.tag = `"` + base64.RawURLEncoding.EncodeToString(sum[:15]) + `"`
	})
	return f.tag
}

// file returns the build's file name (a slash path under dist), or nil
// when there is no such regular file.
func (st *siteState) file(name string) *builtFile {
	if st.source != nil {
		return st.source(name)
	}
	if f, ok := st.files.Load(name); ok {
		return f.(*builtFile)
	}
	p := filepath.Join(st.dir, filepath.FromSlash(name))
	info, err := os.Stat(p)
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	f, _ := st.files.LoadOrStore(name, &builtFile{data: data})
	return f.(*builtFile)
}

// memoryState is a build held in memory: its route manifest and _headers
// from files, every file from source.
func memoryState(files map[string][]byte, source func(name string) *builtFile) (*siteState, error) {
	st := &siteState{source: source, headers: parseHeaders(files[headersFile])}
	if err := json.Unmarshal(files[manifestFile], &st.manifest); err != nil {
		return nil, fmt.Errorf("reading %s: %w", manifestFile, err)
	}
	return st, nil
}

type headerRule struct {
	pattern string // "/*" or "/assets/*" style: a prefix ending in *, or an exact path
	header  http.Header
}

// current returns the routes and headers of the build now in dist,
// re-reading them after a rebuild.
func (s *site) current() (*siteState, error) {
	if s.memory != nil {
		return s.memory(), nil
	}
	if st := s.state.Load(); st != nil && time.Now().UnixNano()-s.checked.Load() < int64(manifestCheckEvery) {
		return st, nil
	}
	checked := time.Now()
	info, err := os.Stat(filepath.Join(s.dist, manifestFile))
	if err != nil {
		return nil, fmt.Errorf("%s holds no built site (%s is missing): run `freightsite build --out %s` first", s.dist, manifestFile, s.dist)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.state.Load(); st != nil && os.SameFile(info, s.loaded) {
		s.checked.Store(checked.UnixNano())
		return st, nil
	}
	var st siteState
	if st.dir, err = filepath.EvalSymlinks(s.dist); err != nil {
		return nil, err
	}
	manifestPath := filepath.Join(st.dir, manifestFile)
	if info, err = os.Stat(manifestPath); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(manifestPath)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &st.manifest); err != nil {
		return nil, fmt.Errorf("reading %s: %w", manifestFile, err)
	}
	if raw, err := os.ReadFile(filepath.Join(st.dir, headersFile)); err == nil {
		st.headers = parseHeaders(raw)
	}
	s.loaded = info
	s.state.Store(&st)
	s.checked.Store(checked.UnixNano())
	return &st, nil
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st, err := s.current()
	if err != nil {
		http.Error(w, "site not built", http.StatusServiceUnavailable)
		return
	}
	p := r.URL.Path
	plain := plainGet(r)
	if plain {
		if a, ok := st.answers.Load(answerKey{p, acceptsGzip(r)}); ok {
			a.(*answer).serve(w, r)
			return
		}
	}
	// Every answer carries the build's headers (_headers): pages, the
	// not-found page, redirects and refusals alike.
	h := w.Header()
	st.buildHeaders(h, p)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		h.Set("Cache-Control", "no-cache")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	prefix, route := splitPrefix(st.manifest.Prefixes, p)
	if len(p) > 1 && strings.HasSuffix(p, "/") {
		if target, ok := st.slashless(p, r.URL.RawQuery); ok {
			h.Set("Cache-Control", "no-cache")
			http.Redirect(w, r, target, http.StatusMovedPermanently)
			return
		}
		s.serveFile(w, r, st, notFoundFile(prefix), http.StatusNotFound)
		return
	}
	if matchRoute(newsRoute, route) {
		s.serveNewsItem(w, r, st, prefix, route)
		return
	}
	name, found := st.feedPage(prefix, route)
	for _, rt := range st.manifest.Routes {
		if !found && matchRoute(rt, route) {
			name, found = routeFile(prefix, rt), true
			break
		}
	}
	if !found {
		name, found = s.staticFile(st, p)
	}
	// Prepared answers are kept for clean paths only: the ways of writing
	// one path (/assets//x.js) cannot grow them.
	if found && plain && path.Clean(p) == p {
		a := st.prepare(p, name, acceptsGzip(r))
		if a == nil {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		st.answers.Store(answerKey{p, acceptsGzip(r)}, a)
		a.serve(w, r)
		return
	}
	if found {
		s.serveFile(w, r, st, name, http.StatusOK)
		return
	}
	s.serveFile(w, r, st, notFoundFile(prefix), http.StatusNotFound)
}

// slashless is where a path with a trailing slash redirects: the page
// without the slash, when the build wrote that page, with the query kept.
// Any other path ending in a slash is not found, so no address a visitor
// made up ends up in a Location header: the target is always a clean,
// percent-encoded path of this site (onSite).
func (st *siteState) slashless(p, rawQuery string) (string, bool) {
	target := strings.TrimRight(p, "/")
	if target == "" {
		target = "/"
	}
	if !onSite(target) || path.Clean(target) != target || st.file(path.Join(target[1:], "index.html")) == nil {
		return "", false
	}
	location := (&url.URL{Path: target}).EscapedPath()
	if rawQuery != "" {
		location += "?" + escapeQuery(rawQuery)
	}
	return location, true
}

// onSite reports whether a decoded URL path can only ever lead to this
// site: it starts with exactly one "/" and holds no backslash (browsers
// read it as "/", so "/\evil.example" is "//evil.example"), no control
// character (browsers drop tabs and line breaks, with the same effect),
// no space of any kind, no format character (bidi overrides, zero-width
// marks) and nothing that is not UTF-8.
func onSite(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || !utf8.ValidString(p) {
		return false
	}
	for _, c := range p {
		if c == '\\' || unicode.IsControl(c) || unicode.IsSpace(c) || unicode.In(c, unicode.Zs, unicode.Zl, unicode.Zp, unicode.Cf) {
			return false
		}
	}
	return true
}

// escapeQuery percent-encodes the bytes of a raw query that do not belong
// in a header value as they are (the server has refused control bytes
// already): non-ASCII bytes and backslashes.
func escapeQuery(q string) string {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		if c := q[i]; c >= 0x80 || c == '\\' || c <= ' ' || c == 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// serveNewsItem answers /news-feed/news/{id} (route, in the language of
// prefix): the item's page, the shell for an item the build did not see,
// or the not-found page.
func (s *site) serveNewsItem(w http.ResponseWriter, r *http.Request, st *siteState, prefix, route string) {
	id, err := strconv.ParseInt(path.Base(route), 10, 64)
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != path.Base(route) {
		s.serveFile(w, r, st, notFoundFile(prefix), http.StatusNotFound)
		return
	}
	exists := false
	if s.news != nil {
		if exists, err = s.news(r.Context(), id); err != nil {
			http.Error(w, "the news cannot be read just now", http.StatusServiceUnavailable)
			return
		}
		if !exists {
			s.serveFile(w, r, st, notFoundFile(prefix), http.StatusNotFound)
			return
		}
	}
	switch {
	case st.file(routeFile(prefix, route)) != nil:
		s.serveFile(w, r, st, routeFile(prefix, route), http.StatusOK)
	case exists:
		s.serveFile(w, r, st, routeFile(prefix, newsRoute), http.StatusOK)
	default:
		s.serveFile(w, r, st, notFoundFile(prefix), http.StatusNotFound)
	}
}

// feedPage is the file of a page of the news archive, /news-feed/page/{n}
// for n from 1 to the build's FeedPages.
func (st *siteState) feedPage(prefix, route string) (string, bool) {
	n, ok := strings.CutPrefix(route, "/news-feed/page/")
	if !ok {
		return "", false
	}
	i, err := strconv.Atoi(n)
	if err != nil || i < 1 || i > st.manifest.FeedPages || strconv.Itoa(i) != n {
		return "", false
	}
	return routeFile(prefix, route), true
}

// splitPrefix separates the language prefix from a URL path:
// "/hi/faq" is ("/hi", "/faq"), "/faq" is ("", "/faq"), "/hi" is ("/hi", "/").
func splitPrefix(prefixes []string, p string) (prefix, route string) {
	for _, pre := range prefixes {
		if pre != "" && (p == pre || strings.HasPrefix(p, pre+"/")) {
			route = strings.TrimPrefix(p, pre)
			if route == "" {
				route = "/"
			}
			return pre, route
		}
	}
	return "", p
}

// staticFile finds a non-page file (assets, translations, sitemap,
// robots.txt, favicon) for a URL path; pages, 404s, dotfiles and the
// build's own bookkeeping files are only reachable as routes.
func (s *site) staticFile(st *siteState, p string) (string, bool) {
	name := strings.TrimPrefix(path.Clean(p), "/")
	if name == "" || name == manifestFile || name == headersFile || name == redirectsFile || path.Ext(name) == ".html" || path.Ext(name) == ".gz" {
		return "", false
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") {
			return "", false
		}
	}
	return name, st.file(name) != nil
}

// buildHeaders sets the build's headers (_headers) for URL path p.
func (st *siteState) buildHeaders(h http.Header, p string) {
	for _, rule := range st.headers {
		if rule.matches(p) {
			for k, v := range rule.header {
				h[k] = v
			}
		}
	}
}

// prepare works out the 200 answer for file name at URL path p, or nil
// when there is no such file. It has the headers http.ServeContent sets
// for a whole file but Accept-Ranges, which only says what a range
// request finds out anyway: every header is a key of the answer's header
// map, which net/http makes anew each request, and past 14 keys the map
// is built twice over (its table grows from 16 slots to 32).
func (st *siteState) prepare(p, name string, gzip bool) *answer {
	h := http.Header{}
	st.buildHeaders(h, p)
	f := st.fileHeaders(h, p, name, http.StatusOK, gzip)
	if f == nil {
		return nil
	}
	h.Set("Content-Length", strconv.Itoa(len(f.data)))
	a := &answer{body: f.data}
	for _, name := range slices.Sorted(maps.Keys(h)) {
		a.header = append(a.header, headerField{name, slices.Clip(h[name])})
	}
	return a
}

// fileHeaders sets the headers of file name's answer with this status at
// URL path p and returns the file to send: its .gz twin when gzip is
// taken and the build wrote one (nil when there is no such file).
func (st *siteState) fileHeaders(h http.Header, p, name string, status int, gzip bool) *builtFile {
	if status != http.StatusOK {
		h.Set("Cache-Control", "no-cache")
	} else if cc := st.cacheControl(p); cc != "" {
		h.Set("Cache-Control", cc)
	} else if path.Ext(name) == ".html" || path.Ext(name) == ".json" {
		h.Set("Cache-Control", "no-cache")
	} else {
		h.Set("Cache-Control", "public, max-age=3600")
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h.Set("Content-Type", ctype)
	h.Add("Vary", "Accept-Encoding")

	f := st.file(name)
	if gzip {
		if gz := st.file(name + ".gz"); gz != nil {
			f = gz
			h.Set("Content-Encoding", "gzip")
		}
	}
	if f != nil && status == http.StatusOK {
		h.Set("Etag", f.etag()) // ServeContent answers If-None-Match and If-Range with it
	}
	return f
}

func (s *site) serveFile(w http.ResponseWriter, r *http.Request, st *siteState, name string, status int) {
	h := w.Header()
	f := st.fileHeaders(h, r.URL.Path, name, status, acceptsGzip(r))
	if f == nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if status != http.StatusOK {
		// A 404 page is sent whole: no ranges or conditional answers.
		h.Set("Content-Length", strconv.Itoa(len(f.data)))
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			_, _ = w.Write(f.data)
		}
		return
	}
	if limitRanges(w, r, len(f.data)) {
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(f.data))
	}
}

// maxRanges caps the ranges one request may ask for, as nginx's
// max_ranges does: past it the whole file is sent (200), so a thousand
// one-byte ranges cannot multiply what an answer costs.
const maxRanges = 8

// limitRanges tidies the Range header for http.ServeContent: more ranges
// than maxRanges are dropped for the whole file, and a zero-length suffix
// ("-0", the last no bytes) selects nothing; a header of nothing else is
// answered 416 here (false), as RFC 9110 has it, where ServeContent
// would send an empty 206.
func limitRanges(w http.ResponseWriter, r *http.Request, size int) bool {
	spec, ok := strings.CutPrefix(r.Header.Get("Range"), "bytes=")
	if !ok {
		return true // no ranges, or not bytes: ServeContent answers that
	}
	var kept []string
	for _, s := range strings.Split(spec, ",") {
		s = strings.TrimSpace(s)
		if digits, suffix := strings.CutPrefix(s, "-"); suffix && digits != "" && strings.Trim(digits, "0") == "" {
			continue
		}
		kept = append(kept, s)
	}
	switch {
	case len(kept) == 0:
		w.Header().Set("Content-Range", "bytes */"+strconv.Itoa(size))
		http.Error(w, "requested range not satisfiable", http.StatusRequestedRangeNotSatisfiable)
		return false
	case len(kept) > maxRanges:
		r.Header.Del("Range")
	default:
		r.Header.Set("Range", "bytes="+strings.Join(kept, ","))
	}
	return true
}

// acceptsGzip reports whether Accept-Encoding lists gzip (or *) with a
// non-zero quality.
func acceptsGzip(r *http.Request) bool {
	for part := range strings.SplitSeq(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(part, ";")
		enc = strings.ToLower(strings.TrimSpace(enc))
		if enc != "gzip" && enc != "*" {
			continue
		}
		q := 1.0
		if v, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		return q > 0
	}
	return false
}

// cacheControl is the Cache-Control _headers sets for a URL path, or "".
func (st *siteState) cacheControl(p string) string {
	cc := ""
	for _, rule := range st.headers {
		if v := rule.header.Get("Cache-Control"); v != "" && rule.matches(p) {
			cc = v
		}
	}
	return cc
}

func (h headerRule) matches(p string) bool {
	if pre, ok := strings.CutSuffix(h.pattern, "*"); ok {
		return strings.HasPrefix(p, pre)
	}
	return p == h.pattern
}

// parseHeaders reads the _headers format: a line with a path pattern, then
// indented "Name: value" lines for it.
func parseHeaders(raw []byte) []headerRule {
	var rules []headerRule
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if line[0] != ' ' && line[0] != '\t' {
			rules = append(rules, headerRule{pattern: strings.TrimSpace(line), header: http.Header{}})
			continue
		}
		if len(rules) == 0 {
			continue
		}
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			rules[len(rules)-1].header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	return rules
}
