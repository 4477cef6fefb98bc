package generator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"
	"github.com/go-sourcemap/sourcemap"

	"freightsite/data"
)

// Dev is the site built in memory for `freightsite dev`: nothing is
// written to disk. It keeps an incremental esbuild context of each bundle
// and the pages it has rendered; Rebuild rebuilds the bundles and drops
// only the renders whose inputs changed (see stale). A page is rendered
// when it is first asked for, and the pages open in a browser (Rebuild's
// viewed) before a rebuild counts as done, so a rebuild costs the bundles
// and the pages someone is looking at, not the whole site.
//
// A rebuild that fails (a bundle error, a page that throws) changes
// nothing: the last good build keeps being served.
type Dev struct {
	opts   Options
	inject string // HTML put before </head> of every page (the live-reload script)
	// failed is told of a page that throws when it is first asked for
	// (the pages rendered by Rebuild return their error instead).
	failed func(error)

	mu      sync.Mutex // one rebuild at a time
	in      *input
	bundler bundler
	ctxs    []api.BuildContext // server, boot, client
	// results are each context's last build, and inputs the source
	// files it read (its metafile's, slash paths under the tree): a
	// change rebuilds only the contexts that read a changed file.
	results []api.BuildResult
	inputs  []map[string]bool
	cur     atomic.Pointer[devBuild]
}

// devBuild is one good build: its bundles, renderer and pages.
type devBuild struct {
	in        *input
	b         *bundles
	r         *renderer
	routes    []routeInfo
	canonical map[string]string
	files     map[string][]byte // every file but the pages
	pages     map[string]*devPage
	st        *siteState
	server    api.BuildOptions // the server bundle's options (renderError)
	dev       *Dev
}

// devPage is one page of a build, rendered on first use.
type devPage struct {
	job  job
	mu   sync.Mutex
	made bool // html and err are set
	page page // the render, kept by the next build when its inputs did not change
	done bool // page holds a render
	html []byte
	err  error
}

// DevReport says what a rebuild did.
type DevReport struct {
	Bundles  []string // the bundles whose output changed: "server", "boot", "client", "stylesheet"
	Stale    int      // pages whose render was dropped
	Rendered []string // the pages rendered at once (those open in a browser), URL paths
	// StyleOnly: only the stylesheet changed, pages can swap it without
	// a reload (Stylesheet is its URL path).
	StyleOnly  bool
	Stylesheet string
	// Changed are the pages (files, "hi/faq/index.html") whose HTML may
	// differ; All: every page's (their scripts changed).
	Changed map[string]bool
	All     bool
	// Duration is the whole rebuild's time; Bundle esbuild's, Start
	// the new renderer's (when the server bundle changed), Render the
	// viewed pages'.
	Duration, Bundle, Start, Render time.Duration
}

// NewDev builds the site into memory. inject is HTML that every page
// served gets before its </head> (and build output never does).
// failed is told of a page that throws when it is first asked for.
func NewDev(opts Options, inject string, failed func(error)) (*Dev, error) {
	d := &Dev{opts: opts, inject: inject, failed: failed}
	if _, err := d.Rebuild([]string{"data/site.json"}, nil); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// Close frees esbuild's contexts.
func (d *Dev) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.ctxs {
		c.Dispose()
	}
	d.ctxs = nil
}

// Built says what the current build's pages carry (for serve's checks).
func (d *Dev) Built() Built {
	in := d.cur.Load().in
	return Built{BaseURL: in.base, Placeholders: in.site.Placeholders()}
}

// PageOf is the page file the current build shows at a URL path.
func (d *Dev) PageOf(urlPath string) string {
	file, _ := d.cur.Load().pageOf(urlPath)
	return file
}

// Handler serves the current build the way Site serves a published one.
func (d *Dev) Handler(news NewsLookup) http.Handler {
	return &site{news: news, memory: func() *siteState { return d.cur.Load().st }}
}

// Rebuild brings the build up to date with the source files that changed
// (slash paths under the source tree: "locales/hi.json"), rendering at
// once the pages of the URL paths in viewed. A change under data/ reads
// the settings again and starts the bundles afresh.
func (d *Dev) Rebuild(changed, viewed []string) (*DevReport, error) {
	start := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	prev := d.cur.Load()
	if d.in == nil || slices.ContainsFunc(changed, func(f string) bool { return strings.HasPrefix(f, "data/") }) {
		in, err := prepare(d.opts)
		if err != nil {
			return nil, err
		}
		o := newBundler(in.root, in.site.Languages, in.raw, "/"+in.qr.File, in.figures, in.opts.RecaptchaSiteKey)
		o.server.Metafile, o.boot.Metafile = true, true
		var ctxs []api.BuildContext
		for _, opts := range []api.BuildOptions{o.server, o.boot, o.client} {
			c, cerr := api.Context(opts)
			if cerr != nil {
				for _, c := range ctxs {
					c.Dispose()
				}
				return nil, fmt.Errorf("starting esbuild: %v", cerr.Errors)
			}
			ctxs = append(ctxs, c)
		}
		for _, c := range d.ctxs {
			c.Dispose()
		}
		d.in, d.bundler, d.ctxs, prev = in, o, ctxs, nil
		d.results, d.inputs = make([]api.BuildResult, len(ctxs)), make([]map[string]bool, len(ctxs))
	}
	var wg sync.WaitGroup
	for i, c := range d.ctxs {
		if d.inputs[i] != nil && len(d.results[i].Errors) == 0 && !slices.ContainsFunc(changed, func(f string) bool { return d.inputs[i][f] || !d.known(f) }) {
			continue
		}
		wg.Go(func() {
			d.results[i] = c.Rebuild()
			d.inputs[i] = metafileInputs(d.results[i].Metafile)
		})
	}
	wg.Wait()
	bundled := time.Now()
	b, err := d.bundler.bundles(d.results[0], d.results[1], d.results[2])
	if err != nil {
		return nil, err
	}

	next := &devBuild{in: d.in, b: b, server: d.bundler.server, pages: map[string]*devPage{}, dev: d}
	rep := &DevReport{Stylesheet: b.css, Changed: map[string]bool{}, Bundle: bundled.Sub(start)}
	serverChanged := prev == nil || !bytes.Equal(prev.b.server, b.server)
	if serverChanged {
		rep.Bundles = append(rep.Bundles, "server")
		if next.r, err = newRenderer(b.server, d.in.news); err != nil {
			return nil, err
		}
		if next.routes, err = next.r.routes(); err != nil {
			return nil, next.renderError(err)
		}
		rep.Start = time.Since(bundled)
	} else {
		next.r, next.routes = prev.r, prev.routes
	}
	if prev != nil && prev.b.boot != b.boot {
		rep.Bundles = append(rep.Bundles, "boot")
	}
	cssChanged := prev != nil && !bytes.Equal(prev.b.files[strings.TrimPrefix(prev.b.css, "/")], b.files[strings.TrimPrefix(b.css, "/")])
	clientChanged := prev != nil && !sameScripts(prev.b, b)
	if cssChanged {
		rep.Bundles = append(rep.Bundles, "stylesheet")
	}
	if clientChanged {
		rep.Bundles = append(rep.Bundles, "client")
	}
	next.canonical = canonicals(next.routes)
	stale := d.stale(changed)
	for _, j := range d.in.jobs(next.routes) {
		p := &devPage{job: j}
		file := pageFile(d.in, j)
		if old := prev.page(file); old != nil && !(serverChanged && stale(j)) {
			if pg, ok := old.rendered(); ok {
				p.page, p.done = pg, true
			}
		} else if prev != nil {
			rep.Stale++
			rep.Changed[file] = true
		}
		next.pages[file] = p
	}
	if next.files, err = d.in.siteFiles(b, next.r, next.routes, []string{b.bootHash()}); err != nil {
		return nil, next.renderError(err)
	}
	if next.st, err = memoryState(next.files, next.file); err != nil {
		return nil, err
	}
	renderStart := time.Now()
	for _, v := range viewed {
		file, ok := next.pageOf(v)
		if !ok {
			continue
		}
		p := next.pages[file]
		if _, had := p.rendered(); !had && !slices.Contains(rep.Rendered, v) {
			rep.Rendered = append(rep.Rendered, v)
		}
		if _, err := p.document(next); err != nil {
			return nil, next.renderError(err)
		}
	}
	rep.Render = time.Since(renderStart)
	rep.StyleOnly = prev != nil && cssChanged && !serverChanged && !clientChanged && prev.b.boot == b.boot
	if prev != nil && (clientChanged || prev.b.boot != b.boot) {
		rep.All = true
	}
	d.cur.Store(next)
	rep.Duration = time.Since(start)
	return rep, nil
}

// known reports whether some bundle read the file: a file none read
// (a new one, say) rebuilds them all.
func (d *Dev) known(file string) bool {
	return slices.ContainsFunc(d.inputs, func(in map[string]bool) bool { return in[file] })
}

// metafileInputs are the files an esbuild build read.
func metafileInputs(raw string) map[string]bool {
	var m struct {
		Inputs map[string]json.RawMessage `json:"inputs"`
	}
	out := map[string]bool{}
	if json.Unmarshal([]byte(raw), &m) == nil {
		for f := range m.Inputs {
			out[f] = true
		}
	}
	return out
}

// stale says which pages a change of these files may change once the
// server bundle differs: a translation file only its language's pages,
// anything else every page.
func (d *Dev) stale(changed []string) func(job) bool {
	langs := map[string]bool{}
	for _, f := range changed {
		lang, ok := strings.CutPrefix(f, "locales/")
		lang, isJSON := strings.CutSuffix(lang, ".json")
		if !ok || !isJSON || !slices.ContainsFunc(d.in.site.Languages, func(l data.Language) bool { return l.Code == lang }) {
			return func(job) bool { return true }
		}
		langs[lang] = true
	}
	return func(j job) bool { return langs[j.lang] }
}

// sameScripts reports whether two builds load the same client scripts.
func sameScripts(a, b *bundles) bool {
	for name, content := range b.files {
		if strings.HasSuffix(name, ".js") && !bytes.Equal(a.files[name], content) {
			return false
		}
	}
	return len(a.files) == len(b.files) && a.entry == b.entry
}

func pageFile(in *input, j job) string {
	prefix := languageOf(in.site, j.lang).Prefix
	if j.route == "/404" {
		return notFoundFile(prefix)
	}
	return routeFile(prefix, j.route)
}

func (b *devBuild) page(file string) *devPage {
	if b == nil {
		return nil
	}
	return b.pages[file]
}

// rendered is the page's render, if it has one.
func (p *devPage) rendered() (page, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.done {
		return page{}, false
	}
	return p.page, true
}

// pageOf is the page file a URL path shows.
func (b *devBuild) pageOf(p string) (string, bool) {
	prefix, route := splitPrefix(b.st.manifest.Prefixes, p)
	for _, rt := range b.st.manifest.Routes {
		if matchRoute(rt, route) {
			return routeFile(prefix, rt), true
		}
	}
	file := notFoundFile(prefix)
	_, ok := b.pages[file]
	return file, ok
}

// document renders the page (once) and gives its HTML.
func (p *devPage) document(b *devBuild) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.made {
		return p.html, p.err
	}
	p.made = true
	if !p.done {
		if p.page, p.err = b.r.render(p.job.route, p.job.lang, p.job.year); p.err != nil {
			return nil, p.err
		}
		p.done = true
	}
	j := p.job
	j.page = p.page
	var html string
	html, _, p.err = b.in.document(b.b, b.canonical, j)
	p.html = []byte(strings.Replace(html, "</head>", b.dev.inject+"</head>", 1))
	return p.html, p.err
}

// file is a file of the build; a page is rendered when first asked for.
// Files carry no modification time: two builds within a second would
// have the same Last-Modified, and a browser revalidating a page would
// keep the older one.
func (b *devBuild) file(name string) *builtFile {
	if content, ok := b.files[name]; ok {
		return &builtFile{data: content}
	}
	p := b.pages[name]
	if p == nil {
		return nil
	}
	html, err := p.document(b)
	if err != nil {
		// The page is the overlay's: the script the dev server injects
		// shows what failed.
		err = b.renderError(err)
		if b.dev.failed != nil {
			b.dev.failed(err)
		}
		doc := "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Render error</title>" + b.dev.inject + "</head><body><pre>" + template.HTMLEscapeString(err.Error()) + "</pre></body></html>\n"
		return &builtFile{data: []byte(doc)}
	}
	return &builtFile{data: html}
}

// RenderError is an exception the server bundle threw, placed in the
// source of pages/ by the bundle's source map where it can be.
type RenderError struct {
	Problem Problem
	err     error
}

func (e *RenderError) Error() string {
	if e.Problem.File == "" {
		return e.err.Error()
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Problem.File, e.Problem.Line, e.Problem.Column, e.err)
}

func (e *RenderError) Unwrap() error { return e.err }

// renderError places a goja exception in the source files: the first
// frame of the stack that the server bundle's source map leads to a file
// of the tree outside node_modules. The map is made only then: the same
// build with a source map beside it, which leaves the code as it is.
func (b *devBuild) renderError(err error) error {
	var ex *goja.Exception
	if !errors.As(err, &ex) {
		return err
	}
	msg := err.Error()
	if v := ex.Value(); v != nil {
		msg = v.String()
	}
	re := &RenderError{Problem: Problem{Message: msg}, err: err}
	opts := b.server
	opts.Sourcemap = api.SourceMapExternal
	var raw []byte
	for _, f := range api.Build(opts).OutputFiles {
		if strings.HasSuffix(f.Path, ".map") {
			raw = f.Contents
		}
	}
	smap, perr := sourcemap.Parse("server.js.map", raw)
	if perr != nil {
		return re
	}
	// The renderer runs the polyfills and the bundle as one program.
	offset := strings.Count(polyfills, "\n")
	for _, f := range ex.Stack() {
		pos := f.Position()
		if pos.Line <= offset {
			continue
		}
		file, _, line, col, ok := smap.Source(pos.Line-offset, pos.Column-1)
		if !ok || strings.Contains(file, "node_modules/") {
			continue
		}
		// The map names the sources relative to the tree (the bundle's folder).
		re.Problem.File, re.Problem.Line, re.Problem.Column = path.Clean(file), line, col+1
		break
	}
	return re
}
