package generator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"freightsite/data"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"
	"github.com/go-sourcemap/sourcemap"

	"freightsite/internal/site"
)

// Dev is the site built in memory for `freightsite dev`: nothing is
// written to disk. It keeps an incremental esbuild context of each bundle
// and a render cache (RenderCache, by the hash of each render's inputs)
// across rebuilds, so a rebuild runs only the bundles that read a changed
// file and renders again only the pages whose inputs changed: a text of
// one language, that language's pages; anything in the server bundle,
// every page. A page is rendered when it is first asked for, and the
// pages open in a browser (Rebuild's viewed) before a rebuild counts as
// done, so a rebuild costs the bundles and the pages someone is looking
// at, not the whole site.
//
// A rebuild that fails (a bundle error, a page that throws) changes
// nothing: the last good build keeps being served.
type Dev struct {
	opts   Options
	inject string // HTML put before </head> of every page (the live-reload script)
	// failed is told of a page that throws when it is first asked for
	// (the pages rendered by Rebuild return their error instead).
	failed func(error)
	cache  *RenderCache

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
	engines *devEngines
	// share keeps the last share assets (icons, previews, manifests)
	// and what they were made of (pipeline.shareAssets).
	share shareMemo
}

// devBuild is one good build: its pipeline (bundles, renderer, render
// cache) and pages.
type devBuild struct {
	dev    *Dev
	p      *pipeline
	server api.BuildOptions    // the server bundle's options (renderError)
	files  map[string][]byte   // every file but the pages
	pages  map[string]*devPage // by file ("hi/faq/index.html")
	share  shared
	st     *site.State
	// base is the previous build's renderer: this build takes it as it
	// is when the bundle and its globals are the same, or its compiled
	// bundle with the new texts when only they changed. Dev starts one
	// runtime (startRenderer).
	base engine
}

// devPage is one page of a build, made on first use.
type devPage struct {
	job *job
	// fill makes a page of the news archive (news.go) in place of a
	// render.
	fill func() (page, string, error)
	mu   sync.Mutex
	done bool // job.page holds the render
	made bool // html and err are set
	html []byte
	err  error
}

// DevReport says what a rebuild did.
type DevReport struct {
	Bundles  []string // the bundles whose output changed: "server", "boot", "client", "stylesheet"
	Texts    []string // the languages whose texts changed
	Rendered []string // the pages rendered at once (open in a browser, their inputs changed), URL paths
	// StyleOnly: only the stylesheet changed, pages can swap it without
	// a reload (Stylesheet is its URL path).
	StyleOnly  bool
	Stylesheet string
	// Changed are the pages (files, "hi/faq/index.html") whose render
	// inputs changed; All: every page's HTML changed (their scripts did).
	Changed map[string]bool
	All     bool
	// Duration is the whole rebuild's time; Bundle esbuild's, Start
	// the runtimes' (when a page had to be rendered with a new server
	// bundle or new texts), Render the viewed pages'.
	Duration, Bundle, Start, Render time.Duration
}

// NewDev builds the site into memory. inject is HTML that every page
// served gets before its </head> (and build output never does); failed
// is told of a page that throws when it is first asked for.
func NewDev(opts Options, inject string, failed func(error)) (*Dev, error) {
	// A service worker would answer from its cache over the live reload:
	// dev's pages register none, and its /sw.js removes one that a build
	// served at the same address installed (Options.NoServiceWorker).
	opts.NoServiceWorker = true
	d := &Dev{opts: opts, inject: inject, failed: failed, cache: NewRenderCache()}
	// The photos' width sets and the drawn images come from the image
	// cache a build keeps, so dev starts without encoding them again.
	d.cache.drawnDir = imageCache(opts.ImageCache)
	if _, err := d.Rebuild([]string{"data/site.json"}, nil); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// Close frees esbuild's contexts and ends Node's workers.
func (d *Dev) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.ctxs {
		c.Dispose()
	}
	d.ctxs = nil
	if d.engines != nil {
		d.engines.close()
	}
}

// Built says what the current build's pages carry (for serve's checks).
func (d *Dev) Built() site.Built {
	in := d.cur.Load().p.in
	return site.Built{BaseURL: in.base, Placeholders: in.site.Placeholders()}
}

// PageOf is the page file the current build shows at a URL path.
func (d *Dev) PageOf(urlPath string) string {
	file, _ := d.cur.Load().pageOf(urlPath)
	return file
}

// Handler serves the current build the way site.Site serves a published
// one.
func (d *Dev) Handler(news site.NewsLookup) http.Handler {
	return site.Memory(news, func() *site.State { return d.cur.Load().st })
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
	restart := d.in == nil || slices.ContainsFunc(changed, func(f string) bool { return strings.HasPrefix(f, "data/") })
	if restart {
		if err := d.restart(); err != nil {
			return nil, err
		}
	} else if slices.ContainsFunc(changed, isTexts) {
		// Only the languages whose texts were saved are read again.
		var langs []data.Language
		for _, l := range d.in.site.Languages {
			if slices.Contains(changed, "locales/"+l.Code+".json") {
				langs = append(langs, l)
			}
		}
		in := *d.in
		if err := in.readTexts(langs); err != nil {
			return nil, err
		}
		d.in = &in
	}
	var stale []int // the contexts to rebuild (decided before any runs)
	for i := range d.ctxs {
		if d.inputs[i] == nil || len(d.results[i].Errors) > 0 || slices.ContainsFunc(changed, func(f string) bool { return d.inputs[i][f] || !d.known(f) }) {
			stale = append(stale, i)
		}
	}
	var wg sync.WaitGroup
	for _, i := range stale {
		c := d.ctxs[i]
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

	next := &devBuild{dev: d, server: d.bundler.server, pages: map[string]*devPage{}}
	rep := &DevReport{Stylesheet: b.css, Changed: map[string]bool{}, Bundle: bundled.Sub(start)}
	if prev != nil {
		next.base = prev.p.started()
		if prev.b().boot != b.boot {
			rep.Bundles = append(rep.Bundles, "boot")
		}
		if !bytes.Equal(prev.b().files[strings.TrimPrefix(prev.b().css, "/")], b.files[strings.TrimPrefix(b.css, "/")]) {
			rep.Bundles = append(rep.Bundles, "stylesheet")
		}
		if !sameScripts(prev.b(), b) {
			rep.Bundles = append(rep.Bundles, "client")
		}
	}
	p, err := newPipeline(d.in, b, d.cache, next.startRenderer(prev))
	if err != nil {
		return nil, next.renderError(err)
	}
	next.p = p
	if prev != nil {
		if prev.p.inputs.bundle != p.inputs.bundle {
			rep.Bundles = append([]string{"server"}, rep.Bundles...)
		}
		for _, l := range d.in.site.Languages {
			if prev.p.inputs.locales[l.Code] != p.inputs.locales[l.Code] {
				rep.Texts = append(rep.Texts, l.Code)
			}
		}
	}
	for _, j := range p.jobs {
		file := p.file(j)
		if old := prev.page(file); prev != nil && (old == nil || old.job.key != j.key) {
			rep.Changed[file] = true
		}
		next.pages[file] = &devPage{job: j}
	}
	p.keep(p.jobs)
	shapes := newNewsShapes(p)
	feeds := &writer{files: map[string][]byte{}}
	news, err := p.walkNews(shapes, func(nj newsJob) error {
		j := &job{route: nj.route, lang: nj.lang, year: d.in.opts.Year, key: p.inputs.key(nj.route, nj.lang)}
		file := p.file(j)
		if old := prev.page(file); prev != nil && (old == nil || old.job.key != j.key) {
			rep.Changed[file] = true
		}
		next.pages[file] = &devPage{job: j, fill: nj.make}
		return nil
	}, func(code string, entries []newsEntry) error {
		name, feed := p.rss(code, entries)
		feeds.add(name, feed)
		return nil
	})
	if err != nil {
		return nil, next.renderError(err)
	}
	next.files = p.siteFiles([]string{b.bootHash()}, news)
	maps.Copy(next.files, feeds.files)
	if err := d.in.images.start(p.cache)(next.files); err != nil {
		return nil, err
	}
	if next.files[serviceWorkerFile], err = serviceWorker(d.in.root, d.in.site.Languages, nil, nil, nil, true); err != nil {
		return nil, err
	}
	if next.share, err = p.shareAssets(&d.share, next.files, func(lang string) (page, error) {
		pg, _, err := next.pages[p.file(p.homeJob(lang))].render(next)
		return pg, err
	}); err != nil {
		return nil, next.renderError(err)
	}
	if next.st, err = site.MemoryState(next.files, next.file); err != nil {
		return nil, err
	}
	renderStart, startBefore := time.Now(), p.startTime
	for _, v := range viewed {
		file, ok := next.pageOf(v)
		if !ok {
			continue
		}
		rendered, err := next.pages[file].document(next)
		if err != nil {
			return nil, next.renderError(err)
		}
		if rendered && !slices.Contains(rep.Rendered, v) {
			rep.Rendered = append(rep.Rendered, v)
		}
	}
	d.cache.forgetUnused()
	rep.Render, rep.Start = time.Since(renderStart)-(p.startTime-startBefore), p.startTime
	if prev != nil {
		rep.StyleOnly = slices.Equal(rep.Bundles, []string{"stylesheet"}) && len(rep.Changed) == 0
		// The settings and data are in the documents too (links, CSP).
		rep.All = slices.Contains(rep.Bundles, "client") || slices.Contains(rep.Bundles, "boot") || restart
	}
	d.cur.Store(next)
	// The last build's engine may still be rendering a page asked for
	// before this one was in; older ones and failed builds' are not.
	d.engines.keepOnly(next.p.started(), next.base)
	rep.Duration = time.Since(start)
	return rep, nil
}

// restart reads the settings and data again and starts esbuild's
// contexts afresh (their options hold the settings).
func (d *Dev) restart() error {
	in, err := prepare(d.opts)
	if err != nil {
		return err
	}
	o, err := newBundler(in.root, in.site.Languages, in.raw, in.pageImages(), in.opts.RecaptchaSiteKey)
	if err != nil {
		return err
	}
	if d.engines == nil {
		d.engines = newDevEngines(in.root, d.opts.Renderer)
	}
	o.server.Metafile, o.boot.Metafile = true, true
	var ctxs []api.BuildContext
	for _, opts := range []api.BuildOptions{o.server, o.boot, o.client} {
		c, cerr := api.Context(opts)
		if cerr != nil {
			for _, c := range ctxs {
				c.Dispose()
			}
			return fmt.Errorf("starting esbuild: %v", cerr.Errors)
		}
		ctxs = append(ctxs, c)
	}
	for _, c := range d.ctxs {
		c.Dispose()
	}
	d.in, d.bundler, d.ctxs = in, o, ctxs
	d.results, d.inputs = make([]api.BuildResult, len(ctxs)), make([]map[string]bool, len(ctxs))
	return nil
}

// isTexts reports whether a changed file is a language's texts
// (locales/CODE.json), which the renderer reads, not a bundle.
func isTexts(file string) bool {
	name, ok := strings.CutPrefix(file, "locales/")
	return ok && !strings.Contains(name, "/") && strings.HasSuffix(name, ".json")
}

// known reports whether a bundle or the renderer reads the file: a file
// none reads (a new one, say) rebuilds every bundle.
func (d *Dev) known(file string) bool {
	return isTexts(file) || slices.ContainsFunc(d.inputs, func(in map[string]bool) bool { return in[file] })
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

// sameScripts reports whether two builds load the same client scripts.
func sameScripts(a, b *bundles) bool {
	for name, content := range b.files {
		if strings.HasSuffix(name, ".js") && !bytes.Equal(a.files[name], content) {
			return false
		}
	}
	return len(a.files) == len(b.files) && a.entry == b.entry
}

func pageFile(in *input, j *job) string {
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

// b is the build's bundles.
func (b *devBuild) b() *bundles { return b.p.b }

// startRenderer starts the build's renderer: the previous build's when
// the bundle and its globals are the same, or when only the texts changed
// (it takes the new texts), a new one otherwise (goja's with the previous
// build's compiled bundle if the bundle is the same).
func (b *devBuild) startRenderer(prev *devBuild) func(p *pipeline) (engine, error) {
	return func(p *pipeline) (engine, error) {
		sameBundle := prev != nil && prev.p.inputs.bundle == p.inputs.bundle
		base, _ := b.base.(textEngine)
		if base != nil && sameBundle {
			// A saved translation: the runtime takes the new texts.
			if !base.runs(p.globals) {
				g := base.globalsNow()
				g["LOCALES"] = p.globals["LOCALES"]
				if maps.Equal(g, p.globals) {
					changed := map[string][]byte{}
					for code, texts := range p.in.locales {
						if prev.p.inputs.locales[code] != p.inputs.locales[code] {
							changed[code] = texts
						}
					}
					if err := base.setTexts(jsonObject(changed), p.globals["LOCALES"]); err != nil {
						return nil, err
					}
				}
			}
			if base.runs(p.globals) {
				return base, nil
			}
		}
		var program *goja.Program
		if r, ok := b.base.(*renderer); ok && sameBundle {
			program = r.program
		}
		return b.dev.engines.start(p.b.server, p.globals, program)
	}
}

// devEngines start the renderers of dev's builds: a Node worker for each
// server bundle where node runs, with one started ahead, so that a saved
// screen waits for its bundle to run, not for Node to start; goja's
// runtime otherwise (Options.Renderer as a build reads it).
type devEngines struct {
	root  string
	node  bool
	spare chan *nodeWorkers // the worker started ahead (nil: it did not start)

	mu   sync.Mutex
	live []engine // Node's engines started and not closed
}

func newDevEngines(root, renderer string) *devEngines {
	e := &devEngines{root: root, spare: make(chan *nodeWorkers, 1)}
	if _, err := exec.LookPath("node"); err == nil && renderer != RendererGoja {
		e.node = true
		go e.startSpare()
	} else {
		go gojaVendor(root) // bundled and compiled beside the pages' bundles
	}
	return e
}

func (e *devEngines) startSpare() {
	w, err := startNode(1, e.root)
	if err != nil {
		w = nil
	}
	e.spare <- w
}

// start runs server with these globals: in a Node worker, or in a goja
// runtime of program (compiled from server if nil).
func (e *devEngines) start(server []byte, globals map[string]string, program *goja.Program) (engine, error) {
	e.mu.Lock()
	node := e.node
	e.mu.Unlock()
	if node {
		w := <-e.spare
		if w != nil {
			go e.startSpare()
			ng, err := w.init(server, globals)
			if err != nil {
				return nil, err
			}
			e.mu.Lock()
			e.live = append(e.live, ng)
			e.mu.Unlock()
			return ng, nil
		}
		e.mu.Lock()
		e.node = false // node does not start here: goja from now on
		e.mu.Unlock()
	}
	vendor, err := gojaVendor(e.root)
	if err != nil {
		return nil, err
	}
	if program == nil {
		if program, err = compileServer(server); err != nil {
			return nil, err
		}
	}
	return startRenderer(vendor, program, globals, 1)
}

// keepOnly ends every Node engine but those of keep.
func (e *devEngines) keepOnly(keep ...engine) {
	e.mu.Lock()
	defer e.mu.Unlock()
	live := e.live[:0]
	for _, ng := range e.live {
		if slices.Contains(keep, ng) {
			live = append(live, ng)
		} else {
			ng.close()
		}
	}
	e.live = live
}

// close ends every Node worker, the one started ahead too.
func (e *devEngines) close() {
	e.keepOnly()
	e.mu.Lock()
	node := e.node
	e.mu.Unlock()
	if node {
		if w := <-e.spare; w != nil {
			w.close()
		}
		e.spare <- nil
	}
}

// pageOf is the page file a URL path shows.
func (b *devBuild) pageOf(p string) (string, bool) {
	prefix, route := splitPrefix(b.st.Manifest().Prefixes, p)
	// A page of the news archive (an item's, a page of the feed).
	if file := routeFile(prefix, route); b.pages[file] != nil && !strings.Contains(route, "_") {
		return file, true
	}
	for _, rt := range b.st.Manifest().Routes {
		if matchRoute(rt, route) {
			return routeFile(prefix, rt), true
		}
	}
	file := notFoundFile(prefix)
	_, ok := b.pages[file]
	return file, ok
}

// render is the page's render, from the render cache or made now
// (rendered).
func (p *devPage) render(b *devBuild) (page, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.renderLocked(b)
}

func (p *devPage) renderLocked(b *devBuild) (pg page, rendered bool, err error) {
	if p.done {
		return p.job.page, false, nil
	}
	j := *p.job
	if p.fill != nil {
		if j.page, _, err = p.fill(); err != nil {
			return page{}, false, err
		}
		p.job, p.done = &j, true
		return j.page, true, nil
	}
	done, err := b.p.render([]*job{&j}, nil)
	if err != nil {
		return page{}, false, err
	}
	p.job, p.done = &j, true
	rendered = len(done) > 0
	return j.page, rendered, nil
}

// document makes the page's HTML (once), rendering it if it has to
// (rendered).
func (p *devPage) document(b *devBuild) (rendered bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.made {
		return false, p.err
	}
	if _, rendered, err = p.renderLocked(b); err != nil {
		return false, err // not made: a request asks again
	}
	p.made = true
	var html string
	html, _, p.err = b.p.document(b.share, p.job)
	p.html = []byte(strings.Replace(html, "</head>", b.dev.inject+"</head>", 1))
	return rendered, p.err
}

// file is a file of the build; a page is made when first asked for.
func (b *devBuild) file(name string) *site.File {
	if content, ok := b.files[name]; ok {
		return site.NewFile(content)
	}
	p := b.pages[name]
	if p == nil {
		return nil
	}
	if _, err := p.document(b); err != nil {
		// The page is the overlay's: the script the dev server injects
		// shows what failed.
		err = b.renderError(err)
		if b.dev.failed != nil {
			b.dev.failed(err)
		}
		doc := "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Render error</title>" + b.dev.inject + "</head><body><pre>" + template.HTMLEscapeString(err.Error()) + "</pre></body></html>\n"
		return site.NewFile([]byte(doc))
	}
	return site.NewFile(p.html)
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

// renderError places an exception the server bundle threw in the source
// files: the first frame of its stack that the server bundle's source map
// leads to a file of the tree outside node_modules. The map is made only
// then: the same build with a source map beside it, which leaves the code
// as it is.
func (b *devBuild) renderError(err error) error {
	msg, places, ok := thrown(err)
	if !ok {
		return err
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
	for _, at := range places {
		file, _, line, col, ok := smap.Source(at[0], at[1]-1)
		if !ok || strings.Contains(file, "node_modules/") {
			continue
		}
		// The map names the sources relative to the tree (the bundle's folder).
		re.Problem.File, re.Problem.Line, re.Problem.Column = path.Clean(file), line, col+1
		break
	}
	return re
}

// nodeFrame is a frame of a V8 stack in the server bundle.
var nodeFrame = regexp.MustCompile(`\(?` + regexp.QuoteMeta(serverFile) + `:(\d+):(\d+)\)?$`)

// thrown is the message of an exception the server bundle threw, in goja
// or in Node, and the places of its stack in the bundle (line and column,
// from 1); not ok for another error.
func thrown(err error) (msg string, places [][2]int, ok bool) {
	var ex *goja.Exception
	var ne *nodeError
	switch {
	case errors.As(err, &ex):
		ok, msg = true, err.Error()
		if v := ex.Value(); v != nil {
			msg = v.String()
		}
		for _, f := range ex.Stack() {
			if f.SrcName() == serverFile { // not the polyfills and packages (gojaVendor)
				pos := f.Position()
				places = append(places, [2]int{pos.Line, pos.Column})
			}
		}
	case errors.As(err, &ne):
		// A worker runs the polyfills and the bundle as one program.
		offset := strings.Count(polyfills, "\n")
		lines := strings.Split(ne.stack, "\n")
		ok, msg = true, lines[0]
		for _, l := range lines[1:] {
			m := nodeFrame.FindStringSubmatch(strings.TrimSpace(l))
			if m == nil {
				continue
			}
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			if line > offset {
				places = append(places, [2]int{line - offset, col})
			}
		}
	}
	return msg, places, ok
}
