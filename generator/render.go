package generator

import (
	"fmt"
	"maps"
	"runtime"
	"sync"

	"github.com/dop251/goja"
)

// polyfills gives goja the few browser globals React's server renderer
// touches when it loads: MessageChannel and TextEncoder (used by its
// streaming half, which renderToString never runs), and console; and the
// one part of Intl i18next uses, plural rules, for the site's languages
// (CLDR: Hindi counts 0 and 1 as "one", English and Marathi only 1).
const polyfills = `
var Intl = {
  PluralRules: function (locale) {
    var hi = String(locale).slice(0, 2) === 'hi';
    this.select = function (n) { return n === 1 || (hi && n === 0) ? 'one' : 'other'; };
    this.resolvedOptions = function () { return { locale: String(locale), pluralCategories: ['one', 'other'] }; };
  },
};
Intl.PluralRules.supportedLocalesOf = function (l) { return [].concat(l); };
Intl.getCanonicalLocales = function (l) { return [].concat(l); };
var console = { log: __log, info: __log, warn: __log, error: __log, debug: function () {} };
function MessageChannel() {
  var a = { onmessage: null }, b = { onmessage: null };
  a.postMessage = function (d) { if (b.onmessage) b.onmessage({ data: d }); };
  b.postMessage = function (d) { if (a.onmessage) a.onmessage({ data: d }); };
  this.port1 = a; this.port2 = b;
}
function TextEncoder() {}
TextEncoder.prototype.encode = function (s) {
  s = String(s === undefined ? '' : s);
  var out = [];
  for (var i = 0; i < s.length; i++) {
    var c = s.codePointAt(i);
    if (c > 0xffff) i++;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return new Uint8Array(out);
};
TextEncoder.prototype.encodeInto = function (s, dest) {
  var bytes = this.encode(s); dest.set(bytes.subarray(0, dest.length));
  return { read: s.length, written: Math.min(bytes.length, dest.length) };
};
function setTimeout(f) { f(); return 0; } function clearTimeout() {}
function queueMicrotask(f) { f(); }
`

// page is what the server bundle's render() returns for one page.
type page struct {
	Body        string   `json:"body"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Islands     []string `json:"islands"`
	// LazyIslands hydrate only when something else loads the client
	// (the tenant's logo); they load nothing themselves.
	LazyIslands []string `json:"lazyIslands"`
	// OnInteraction are the Islands that hydrate on the visitor's first
	// interaction (lib/island.tsx): a page with only such islands loads
	// just the client entry at once.
	OnInteraction []string `json:"onInteraction"`
	// Content are the API calls whose answers are the page's main content.
	Content []string `json:"content"`
	// OGType and StructuredData are for link previews and search
	// engines (share.go).
	OGType         string `json:"ogType"`
	StructuredData []any  `json:"structuredData"`
	// Reads names the build's data the page read ("figures": the key
	// figures), which the render cache checks besides its key.
	Reads []string `json:"reads"`
}

// routeInfo is one entry of the server bundle's routes().
type routeInfo struct {
	Path      string `json:"path"`
	Canonical string `json:"canonical"`
}

// renderer runs the server bundle in goja runtimes, one per core, each
// used by one goroutine at a time (a goja runtime is not thread-safe).
type renderer struct {
	vendor  *goja.Program // gojaVendor, run first
	program *goja.Program
	runGlobals
	pool chan *vm
}

type vm struct {
	rt       *goja.Runtime
	render   goja.Callable
	routes   goja.Callable
	favicon  goja.Callable
	setTexts goja.Callable
}

// newRenderer starts a runtime a core running the server bundle of the
// source tree root.
func newRenderer(root string, server []byte, globals map[string]string) (*renderer, error) {
	vendor, err := gojaVendor(root)
	if err != nil {
		return nil, err
	}
	program, err := compileServer(server)
	if err != nil {
		return nil, err
	}
	return startRenderer(vendor, program, globals, runtime.NumCPU())
}

// serverFile is the server bundle's name in the runtimes' stacks.
const serverFile = "server.js"

func compileServer(server []byte) (*goja.Program, error) {
	program, err := goja.Compile(serverFile, string(server), false)
	if err != nil {
		return nil, fmt.Errorf("compiling the server bundle: %w", err)
	}
	return program, nil
}

// startRenderer starts n runtimes of the compiled server bundle with
// these globals, each running vendor (gojaVendor) first. freightsite
// dev starts one: it renders a page or two at a time, and starting more
// would only take the cores it needs.
func startRenderer(vendor, program *goja.Program, globals map[string]string, n int) (*renderer, error) {
	r := &renderer{vendor: vendor, program: program, runGlobals: runGlobals{globals: globals}, pool: make(chan *vm, n)}
	// Starting a runtime runs the whole bundle once: start them all at once.
	errs := make(chan error, n)
	for range n {
		go func() {
			v, err := r.newVM()
			if err == nil {
				r.pool <- v
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *renderer) newVM() (*vm, error) {
	rt := goja.New()
	rt.SetFieldNameMapper(goja.TagFieldNameMapper("json", true))
	// The bundle's console output is dropped, as Node's workers drop it.
	rt.Set("__log", func(goja.FunctionCall) goja.Value { return goja.Undefined() })
	for name, value := range r.globalsNow() {
		rt.Set(name, value)
	}
	rt.Set(escapeHTMLName, func(call goja.FunctionCall) goja.Value { return escapeHTML(rt, call.Argument(0)) })
	if _, err := rt.RunProgram(r.vendor); err != nil {
		return nil, fmt.Errorf("starting the server bundle's packages: %w", err)
	}
	if _, err := rt.RunProgram(r.program); err != nil {
		return nil, fmt.Errorf("starting the server bundle: %w", err)
	}
	site := rt.Get("Site").ToObject(rt)
	render, ok1 := goja.AssertFunction(site.Get("render"))
	routes, ok2 := goja.AssertFunction(site.Get("routes"))
	favicon, ok3 := goja.AssertFunction(site.Get("favicon"))
	setTexts, ok4 := goja.AssertFunction(site.Get("setTexts"))
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, fmt.Errorf("the server bundle exports no render(), routes(), favicon() or setTexts()")
	}
	return &vm{rt: rt, render: render, routes: routes, favicon: favicon, setTexts: setTexts}, nil
}

// escapeHTMLName is the global of escapeHTML in the runtimes, which the
// React of goja's packages calls (see stringRenderer).
const escapeHTMLName = "__escapeHTML"

// htmlEntity is the entity React's escapeTextForBrowser writes for c, or
// "" if it writes c itself.
func htmlEntity(c uint16) string {
	switch c {
	case '"':
		return "&quot;"
	case '&':
		return "&amp;"
	case '\'':
		return "&#x27;"
	case '<':
		return "&lt;"
	case '>':
		return "&gt;"
	}
	return ""
}

// escapeHTML escapes a string as React's escapeTextForBrowser does. Most
// texts need nothing: it looks at them in place and gives them back. It
// cuts and joins the runtime's own string, so any text (lone surrogates
// too) comes out as React would write it.
func escapeHTML(rt *goja.Runtime, v goja.Value) goja.Value {
	s, ok := v.(goja.String)
	if !ok {
		return v
	}
	var out goja.String
	last := 0
	for i, n := 0, s.Length(); i < n; i++ {
		entity := htmlEntity(s.CharAt(i))
		if entity == "" {
			continue
		}
		piece := s.Substring(last, i).Concat(rt.ToValue(entity).(goja.String))
		if out == nil {
			out = piece
		} else {
			out = out.Concat(piece)
		}
		last = i + 1
	}
	if out == nil {
		return v
	}
	return out.Concat(s.Substring(last, s.Length()))
}

func (r *renderer) routes() ([]routeInfo, error) {
	v := <-r.pool
	defer func() { r.pool <- v }()
	res, err := v.routes(goja.Undefined())
	if err != nil {
		return nil, fmt.Errorf("listing routes: %w", err)
	}
	var out []routeInfo
	if err := v.rt.ExportTo(res, &out); err != nil {
		return nil, fmt.Errorf("reading routes: %w", err)
	}
	return out, nil
}

// favicon is the site's icon: the logo mark as a standalone SVG file.
func (r *renderer) favicon() (string, error) {
	v := <-r.pool
	defer func() { r.pool <- v }()
	res, err := v.favicon(goja.Undefined())
	if err != nil {
		return "", fmt.Errorf("rendering the favicon: %w", err)
	}
	return res.String(), nil
}

func (r *renderer) render(path, lang string, year int) (page, error) {
	v := <-r.pool
	defer func() { r.pool <- v }()
	res, err := v.render(goja.Undefined(), v.rt.ToValue(path), v.rt.ToValue(lang), v.rt.ToValue(year))
	if err != nil {
		return page{}, fmt.Errorf("rendering %s in %s: %w", path, lang, err)
	}
	var p page
	if err := v.rt.ExportTo(res, &p); err != nil {
		return page{}, fmt.Errorf("reading the render of %s in %s: %w", path, lang, err)
	}
	return p, nil
}

// setTexts gives every runtime new texts, once none is rendering, instead
// of starting them again (freightsite dev): changed holds the languages
// whose texts changed (JSON by code), locales all of them (LOCALES).
func (r *renderer) setTexts(changed, locales string) error {
	vms, release := holdAll(r.pool)
	defer release()
	for _, v := range vms {
		if _, err := v.setTexts(goja.Undefined(), v.rt.ToValue(changed)); err != nil {
			return fmt.Errorf("giving the runtimes new texts: %w", err)
		}
	}
	r.setLocales(locales)
	return nil
}

// holdAll takes every item of pool, waiting for those in use, and gives
// them back on release: nothing else uses the pool meanwhile.
func holdAll[T any](pool chan T) (held []T, release func()) {
	held = make([]T, 0, cap(pool))
	for range cap(pool) {
		held = append(held, <-pool)
	}
	return held, func() {
		for _, item := range held {
			pool <- item
		}
	}
}

// runGlobals are the globals an engine's runtimes run with, by name:
// LOCALES (every language's texts, JSON) and KEY_FIGURES (JSON); dev's
// setTexts changes LOCALES.
type runGlobals struct {
	mu      sync.Mutex
	globals map[string]string
}

// globalsNow is a copy of the globals the runtimes run with.
func (g *runGlobals) globalsNow() map[string]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.globals)
}

// runs reports whether the runtimes run with these globals.
func (g *runGlobals) runs(globals map[string]string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Equal(g.globals, globals)
}

func (g *runGlobals) setLocales(locales string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	globals := maps.Clone(g.globals)
	globals["LOCALES"] = locales
	g.globals = globals
}

// close frees nothing: the runtimes are the process's memory.
func (r *renderer) close() {}

// renderAll renders every job on all runtimes at once.
func (r *renderer) renderAll(jobs []*job, done func(*job)) error {
	return renderEach(jobs, cap(r.pool), r.render, done)
}

// textEngine is an engine whose texts freightsite dev can replace in
// place (goja's runtimes, Node's workers).
type textEngine interface {
	engine
	setTexts(changed, locales string) error
	runs(globals map[string]string) bool
	globalsNow() map[string]string
}

type job struct {
	route, lang string
	year        int
	key         string // of its inputs, in the render cache
	page        page
}
