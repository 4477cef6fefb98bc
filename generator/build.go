// Package generator builds the static site: it bundles pages/ with
// esbuild, renders every route of SPEC §2 in every language with React (in
// Node's worker processes, or in goja), fills the news archive's pages
// from shapes rendered once per language, and writes dist/ (pages, 404s,
// assets, translations, sitemaps, RSS feeds, robots.txt, headers, .gz
// siblings); internal/site serves it.
package generator

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/klauspost/compress/gzip"

	"freightsite/data"
	"freightsite/receivables"
)

// Options of one build.
type Options struct {
	Root string // the source tree: pages/, locales/, data/, node_modules/
	// Out is where the site is published: a symbolic link to the newest
	// release in Out+".releases" (release.go), replaced in one rename.
	Out string
	// Stage writes the release without publishing it (see Publish).
	Stage   bool
	BaseURL string // absolute URL of the site, for canonical links and the sitemap; empty: site.json's
	Year    int    // the year the footer ends with; zero: this year
	// Settings replaces text settings of data/site.json for this build, by
	// dotted path ("payment.donationURL"): pages, islands and the CSP of
	// _headers all see the replaced value. Tests point the payment
	// provider at a local server with it.
	Settings map[string]string
	// APIOrigin is where a static host that reads _redirects (Netlify)
	// proxies APIPaths to, so the site and its API share an origin;
	// empty: no such rules.
	APIOrigin string
	APIPaths  []string
	// Figures replace or add key figures of the home page (keyFigures):
	// members, the registered accounts of the API's database (build
	// --db). A figure below its minimum in data/site.json is left out.
	Figures map[string]int
	// RecaptchaSiteKey switches the forms' captcha from the self-hosted
	// proof of work to reCAPTCHA (the API then needs the secret) and lets
	// the CSP load Google's script and frame.
	RecaptchaSiteKey string
	// News is the news archive (the API's database, build --db): each
	// item gets a page in every language and the feed lists them all, a
	// page of 20 at a time (news.go). nil: the seed of data/news.json.
	News *NewsArchive
	// Cache keeps the renders of pages between builds of one process
	// (freightsite dev); nil: the cache file in the releases folder.
	// Report.Rendered lists the pages whose inputs changed.
	Cache *RenderCache
	// ImageCache is a folder that keeps the images the build draws (link
	// previews, app icons) by what they are drawn from, and the gzip of
	// its assets by their bytes, across builds and outputs, so a clean
	// build of an unchanged site draws none and compresses only its
	// pages; empty: freightsite/drawn in the user's cache folder; "off":
	// none.
	ImageCache string
	// Renderer is what runs the server bundle: RendererNode, RendererGoja
	// or RendererAuto (Node where it runs). freightsite dev always renders
	// in goja, a page at a time in its own process.
	Renderer string
	// NoServiceWorker leaves the offline service worker out: pages do not
	// register it, and /sw.js is one that unregisters the worker an
	// earlier build installed and deletes its caches (offline.go).
	NoServiceWorker bool
}

// Report says what a build wrote and how long it took.
type Report struct {
	Pages    []PageWeight
	Files    int
	Release  Release // the release written (published unless Options.Stage)
	Carried  int     // hashed files of earlier releases kept in it
	Releases string  // the folder holding the releases
	// CSPChanged: the pages' CSP differs from the one nginx may have
	// loaded (a new boot script, payment provider or captcha); nginx
	// needs a reload (docs/operations.md, "Running in production").
	CSPChanged bool
	// Placeholders are settings the pages carry that hold an example or
	// local value ("baseURL http://localhost:8080"): fine on this
	// machine, wrong anywhere else.
	Placeholders []string
	Duration     time.Duration
	Bundle       time.Duration // esbuild: server, client and boot bundles
	Start        time.Duration // starting the runtimes (goja's, or Node's workers: each runs the server bundle)
	Render       time.Duration // rendering the pages not in the render cache on all cores, and filling the news archive's
	// Rendered lists the pages rendered (URL paths): those whose inputs
	// changed since the render cache took them; the others came from it.
	Rendered []string
	// CPU is the processor time the process spent during the build (all
	// threads), and PeakMemory the most memory it has held (maximum
	// resident set, bytes) by the end of the build.
	CPU        time.Duration
	PeakMemory int64
}

// ErrNoNodeModules is returned when npm ci has not been run.
var ErrNoNodeModules = errors.New("node_modules is missing: run `npm ci` in the source tree first (the build bundles React and i18next from it)")

// buildGCPercent is the garbage collector's GOGC during a build that
// renders in goja, and nodeGCPercent during one that renders in Node.
const (
	buildGCPercent = 400
	nodeGCPercent  = 100
)

// Build writes the site into opts.Out.
func Build(opts Options) (*Report, error) {
	start, cpuStart := time.Now(), cpuTime()
	// goja's runtimes allocate a great deal that dies young: collecting
	// less often costs some memory (see Report.PeakMemory) and saves a
	// third of the build's CPU time. Rendering in Node, the build keeps
	// little and makes little garbage: Go's default keeps its memory low.
	defer debug.SetGCPercent(debug.SetGCPercent(buildGCPercent))
	in, err := prepare(opts)
	if err != nil {
		return nil, err
	}
	rels, err := openReleases(opts.Out)
	if err != nil {
		return nil, err
	}
	cache := opts.Cache
	if cache == nil {
		if cache, err = loadRenderCache(rels.dir); err != nil {
			return nil, err
		}
	}
	cache.drawnDir = imageCache(opts.ImageCache)
	// Without renders to reuse, Node's workers start while esbuild
	// bundles; with them, only if a page's inputs changed.
	engines, err := startEngine(opts.Renderer, in.root, len(cache.Pages) == 0)
	if err != nil {
		return nil, err
	}
	defer engines.stop()
	if engines.inProcess() {
		go gojaVendor(in.root) // bundled and compiled beside the pages' bundles
	} else {
		debug.SetGCPercent(nodeGCPercent)
	}
	// The photos of data/images are encoded while the site is bundled
	// and rendered.
	imageFiles := in.images.start(cache)
	defer imageFiles(map[string][]byte{}) // on an early return: no encoding outlives the build
	bundleStart := time.Now()
	b, clientBundle, err := bundleStaged(in.root, in.site.Languages, in.raw, in.pageImages(), opts.RecaptchaSiteKey)
	if err != nil {
		return nil, err
	}
	var bundleTime time.Duration
	// What reads the client bundle (the documents, its files) waits here.
	client := sync.OnceValue(func() error {
		err := clientBundle()
		bundleTime = time.Since(bundleStart)
		return err
	})

	// The release is written as its files are made: the bundles' files
	// while the pages render, each page once it is rendered.
	rel, err := rels.begin()
	if err != nil {
		return nil, err
	}
	defer rel.abort() // nothing left to delete once it is in place
	rel.cache = cache
	out := rel.stream()
	defer out.wait()
	files := map[string][]byte{} // every file but the news archive's, for the service worker
	put := func(name string, content []byte) error {
		files[name] = content
		return out.put(name, content)
	}

	p, err := newPipeline(in, b, cache, func(p *pipeline) (engine, error) { return engines.engine(p.in.root, p.b.server, p.globals) })
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := p.started(); r != nil {
			r.close()
		}
	}()
	renderStart, startBefore := time.Now(), p.startTime
	// The home pages first: the link previews are drawn from them, and
	// every page's head names those.
	var homes, rest []*job
	for _, j := range p.jobs {
		if j.route == "/" {
			homes = append(homes, j)
		} else {
			rest = append(rest, j)
		}
	}
	rendered, err := p.render(homes, nil)
	if err != nil {
		return nil, err
	}
	shareFiles := map[string][]byte{}
	share, err := p.shareAssets(&shareMemo{}, shareFiles, func(lang string) (page, error) { return p.homeJob(lang).page, nil })
	if err != nil {
		return nil, err
	}
	for name, content := range shareFiles {
		if err := put(name, content); err != nil {
			return nil, err
		}
	}
	// Each page's document is made and written as its render comes in.
	index := make(map[*job]int, len(p.jobs))
	for i, j := range p.jobs {
		index[j] = i
	}
	weights := make([]PageWeight, len(p.jobs))
	var mu sync.Mutex
	var docErr error
	document := func(j *job) {
		err := client()
		var html string
		var weight PageWeight
		if err == nil {
			html, weight, err = p.document(share, j)
		}
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			weights[index[j]] = weight
			err = put(weight.File, []byte(html))
		}
		if err != nil && docErr == nil {
			docErr = err
		}
	}
	more, err := p.render(rest, document)
	for _, j := range homes {
		document(j)
	}
	if err == nil {
		err = docErr
	}
	if err != nil {
		return nil, err
	}
	if err := client(); err != nil {
		return nil, err
	}
	for name, content := range b.files {
		if err := put(name, content); err != nil {
			return nil, err
		}
	}
	rendered = append(rendered, more...)
	report := &Report{Bundle: bundleTime, Start: p.startTime, Placeholders: in.site.Placeholders(), Pages: weights}
	for _, j := range rendered {
		report.Rendered = append(report.Rendered, localePath(languageOf(in.site, j.lang).Prefix, j.route))
	}
	news, err := p.writeNews(share, out, put)
	if err != nil {
		return nil, err
	}
	report.Rendered = append(report.Rendered, news.filled...)
	report.Render = time.Since(renderStart) - (p.startTime - startBefore)
	images := map[string][]byte{}
	if err := imageFiles(images); err != nil {
		return nil, err
	}
	for name, content := range images {
		if err := put(name, content); err != nil {
			return nil, err
		}
	}
	report.Pages = append(report.Pages, news.pages...)
	for name, content := range p.siteFiles(rels.bootHashes(b.bootHash()), news.routes) {
		if _, ok := files[name]; !ok {
			if err := put(name, content); err != nil {
				return nil, err
			}
		}
	}
	sw, err := serviceWorker(in.root, in.site.Languages, in.texts, files, report.Pages, opts.NoServiceWorker)
	if err != nil {
		return nil, err
	}
	if err := put(serviceWorkerFile, sw); err != nil {
		return nil, err
	}
	cache.forgetUnused()
	if opts.Cache == nil && cache.changed {
		if err := cache.save(rels.dir); err != nil {
			return nil, fmt.Errorf("saving the render cache: %w", err)
		}
	}
	if err := out.wait(); err != nil {
		return nil, err
	}
	for i := range report.Pages {
		report.Pages[i].weigh(rel.gzSize, files)
	}
	published, carried, err := rels.finish(rel, files, b.bootHash(), opts.Stage)
	if err != nil {
		return nil, err
	}
	report.Release, report.Carried, report.Releases, report.CSPChanged = *published, carried, rels.dir, rels.cspChanged
	report.Files = rel.files()
	if r := p.started(); r != nil {
		r.close() // its workers' figures are counted once they have ended
	}
	report.Duration, report.CPU, report.PeakMemory = time.Since(start), cpuTime()-cpuStart, peakMemory(engines.workers())
	return report, nil
}

// input is what a build reads before it bundles: the settings (site.json
// with the overrides), the base URL, the texts, and what the pages show
// of data/ and of the API's database.
type input struct {
	opts    Options
	root    string
	raw     []byte // site.json with the overrides, as the bundles read it
	site    data.Settings
	base    string // the base URL without a trailing slash
	qr      *appQRCode
	images  *dataImages // data/images (dataimages.go)
	figures map[string]int
	archive *NewsArchive
	count   int               // the archive's items
	locales map[string][]byte // see readLocales
	// texts are what the Go side takes of each language's texts
	// (readLangTexts), and localesJSON is LOCALES.
	texts       map[string]langTexts
	localesJSON string
}

func prepare(opts Options) (*input, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(root, "node_modules", "react", "package.json")); err != nil {
		return nil, ErrNoNodeModules
	}
	if opts.Year == 0 {
		opts.Year = time.Now().Year()
	}
	raw, err := os.ReadFile(filepath.Join(root, "data", "site.json"))
	if err != nil {
		return nil, err
	}
	if raw, err = overrideSettings(raw, opts.Settings); err != nil {
		return nil, err
	}
	site, err := data.ParseSettings(raw)
	if err != nil {
		return nil, err
	}
	base := strings.TrimRight(site.BaseURL, "/")
	if opts.BaseURL != "" {
		base = strings.TrimRight(opts.BaseURL, "/")
	}
	if u, err := url.Parse(base); err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("base URL %q is not an absolute URL like https://example.com", base)
	}
	if opts.APIOrigin != "" {
		if u, err := url.Parse(opts.APIOrigin); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" {
			return nil, fmt.Errorf("API origin %q is not an origin like https://api.example.com", opts.APIOrigin)
		}
	}
	site.BaseURL = base
	// The pages' structured data carries absolute URLs on this base.
	if raw, err = overrideSettings(raw, map[string]string{"baseURL": base}); err != nil {
		return nil, err
	}
	in := &input{opts: opts, root: root, raw: raw, site: site, base: base}
	if in.qr, err = newAppQRCode(base, site.App.AndroidURL); err != nil {
		return nil, err
	}
	if in.images, err = readDataImages(root); err != nil {
		return nil, err
	}
	if in.archive = opts.News; in.archive == nil {
		if in.archive, err = seedArchive(root); err != nil {
			return nil, err
		}
	}
	if in.count, err = in.archive.Count(); err != nil {
		return nil, fmt.Errorf("counting the news: %w", err)
	}
	if in.figures, err = keyFigures(root, site, opts.Figures, opts.Year); err != nil {
		return nil, err
	}
	if err := in.readTexts(site.Languages); err != nil {
		return nil, err
	}
	return in, nil
}

// readTexts reads the texts of langs (locales/CODE.json) and what the
// Go side takes of them, keeping those of the other languages: once for
// each change of them.
func (in *input) readTexts(langs []data.Language) error {
	locales, err := readLocales(in.root, langs)
	if err != nil {
		return err
	}
	in.locales, in.texts = maps.Clone(in.locales), maps.Clone(in.texts)
	if in.locales == nil {
		in.locales, in.texts = map[string][]byte{}, map[string]langTexts{}
	}
	for code, texts := range locales {
		t, err := readLangTexts(texts, in.site.Name)
		if err != nil {
			return fmt.Errorf("reading locales/%s.json: %w", code, err)
		}
		in.locales[code], in.texts[code] = texts, t
	}
	in.localesJSON = jsonObject(in.locales)
	return nil
}

// globals are what the server bundle reads before it runs: the texts
// (LOCALES) and the key figures (KEY_FIGURES).
func (in *input) globals() map[string]string {
	figures, _ := json.Marshal(in.figures)
	return map[string]string{"LOCALES": in.localesJSON, "KEY_FIGURES": string(figures)}
}

// renderInputs are the inputs of this build's renders (the render
// cache's keys).
func (in *input) renderInputs(b *bundles, globals map[string]string) renderInputs {
	return newRenderInputs(b, in.locales, globals, in.opts.Year, in.base)
}

// siteRenderOf is the route list and icon of the server bundle, from the
// cache or from the runtimes.
func siteRenderOf(cache *RenderCache, inputs renderInputs, runtimes func() (engine, error)) (siteRender, error) {
	sr, ok := cache.site(inputs.site)
	if ok {
		return sr, nil
	}
	r, err := runtimes()
	if err != nil {
		return sr, err
	}
	if sr.Routes, err = r.routes(); err != nil {
		return sr, err
	}
	if sr.Favicon, err = r.favicon(); err != nil {
		return sr, err
	}
	cache.putSite(inputs.site, sr)
	return sr, nil
}

// jobs are the pages of the site the server bundle renders: every route
// (but the news feed, a page of the news archive: news.go) and the
// not-found page in every language, each with its key in the render cache.
func (in *input) jobs(routes []routeInfo, inputs renderInputs) []*job {
	var jobs []*job
	for _, l := range in.site.Languages {
		for _, rt := range append(slices.Clone(routes), routeInfo{Path: "/404"}) {
			if rt.Path == feedRoute {
				continue
			}
			jobs = append(jobs, &job{route: rt.Path, lang: l.Code, year: in.opts.Year, key: inputs.key(rt.Path, l.Code)})
		}
	}
	return jobs
}

// siteFiles are the files of the site other than its pages: the bundles'
// assets, the icon, the QR code, the sample import file, the
// translations, the route manifest, sitemap, robots.txt, _redirects and
// _headers (whose CSP allows the boot scripts of bootHashes). news are the
// routes of the news archive's pages, which the sitemap lists too.
func (in *input) siteFiles(b *bundles, sr siteRender, bootHashes, news []string) map[string][]byte {
	files := maps.Clone(b.files)
	// The pages the API writes itself (the members' page) link the
	// stylesheet by a name that does not change with its content.
	files[stableStylesheet] = b.files[strings.TrimPrefix(b.css, "/")]
	files["favicon.svg"] = []byte(sr.Favicon)
	files[in.qr.File] = in.qr.SVG
	files[strings.TrimPrefix(receivables.Format.SampleFile, "/")] = receivables.Sample()
	for code, texts := range in.locales {
		files["assets/i18n/"+code+".json"] = texts
	}
	paths := make([]string, len(sr.Routes))
	for i, rt := range sr.Routes {
		paths[i] = rt.Path
	}
	m := manifest{Routes: paths, BaseURL: in.base, Placeholders: in.site.Placeholders(), NewsItems: in.count, FeedPages: feedPages(in.count)}
	for _, l := range in.site.Languages {
		m.Prefixes = append(m.Prefixes, l.Prefix)
	}
	files[manifestFile], _ = json.MarshalIndent(m, "", "  ")
	maps.Copy(files, sitemaps(in.base, in.site.Languages, sr.Routes, news))
	files["robots.txt"] = []byte("User-agent: *\nAllow: /\n\nSitemap: " + in.base + "/sitemap.xml\n")
	files[redirectsFile] = redirects(in.site.Languages, in.opts.APIOrigin, in.opts.APIPaths)
	files[headersFile] = headers(in.site, bootHashes, in.opts.RecaptchaSiteKey != "")
	return files
}

// canonicals maps each route to its canonical route.
func canonicals(routes []routeInfo) map[string]string {
	canonical := map[string]string{}
	for _, rt := range routes {
		canonical[rt.Path] = rt.Canonical
	}
	return canonical
}

// document is the HTML file of a rendered page (j.page) and what it
// weighs (PageWeight, its sizes still to be read from the files).
func (in *input) document(b *bundles, canonical map[string]string, share shared, j *job) (string, PageWeight, error) {
	lang := languageOf(in.site, j.lang)
	notFound := j.route == "/404"
	base := in.base
	d := documentData{
		Lang: lang.Code, HTMLLang: lang.HTMLLang,
		Title: j.page.Title, Description: j.page.Description,
		CSS: b.css, Boot: template.JS(b.boot), Body: template.HTML(j.page.Body), Client: b.entry,
		DataLayer: in.site.Analytics.DataLayer, PageViewEvent: in.site.Analytics.PageViewEvent,
		ServiceWorker: serviceWorkerURL(in.opts.NoServiceWorker),
	}
	var err error
	if d.Share, err = share.langs[lang.Code].tags(in.site, lang, j.page, share.icons); err != nil {
		return "", PageWeight{}, fmt.Errorf("writing %s in %s: %w", j.route, j.lang, err)
	}
	if !notFound {
		// The news archive's pages are their own canonical pages.
		route, ok := canonical[j.route]
		if !ok {
			route = j.route
		}
		d.Canonical = base + localePath(lang.Prefix, route)
		for _, l := range in.site.Languages {
			d.Alternates = append(d.Alternates, alternate{l.HTMLLang, base + localePath(l.Prefix, route)})
		}
		d.Alternates = append(d.Alternates, alternate{"x-default", base + route})
	}
	if strings.HasPrefix(j.route, feedRoute) && !strings.Contains(j.route, ":") {
		d.Feed = &alternate{in.texts[lang.Code].feed, localePath(lang.Prefix, "/"+rssFile)}
	}
	if err := b.checkIslands(append(slices.Clone(j.page.Islands), j.page.LazyIslands...)); err != nil {
		return "", PageWeight{}, fmt.Errorf("writing %s in %s: %w", j.route, j.lang, err)
	}
	var scripts, lazy []string
	if len(j.page.Islands) > 0 {
		scripts = b.scripts(j.page.Islands)
		d.Entry, d.EntryImports = b.entry, b.entryImports
		later := scripts[1+len(b.entryImports):]
		if len(j.page.Content) > 0 {
			d.EagerScripts = later
			d.EagerData = append([]string{"/assets/i18n/" + lang.Code + ".json"}, j.page.Content...)
		} else {
			d.Preload = strings.Join(later, " ")
		}
		lazy = b.lazyFiles(j.page.Islands, scripts)
		// Islands that all wait for the visitor load React and their code
		// on first use: the budget counts the entry alone. (The not-found
		// page's island hydrates at once on a news item's path, which only
		// a static host without rewrites sends there.)
		if !slices.ContainsFunc(j.page.Islands, func(name string) bool { return !slices.Contains(j.page.OnInteraction, name) }) {
			first := 1 + len(b.entryImports)
			scripts, lazy = scripts[:first], append(slices.Clone(scripts[first:]), lazy...)
		}
	}
	html, err := renderDocument(d)
	if err != nil {
		return "", PageWeight{}, fmt.Errorf("writing %s in %s: %w", j.route, j.lang, err)
	}
	file := routeFile(lang.Prefix, j.route)
	if notFound {
		file = notFoundFile(lang.Prefix)
	}
	return html, PageWeight{URL: localePath(lang.Prefix, j.route), File: file, lang: lang.Code, Islands: j.page.Islands, scripts: scripts, lazy: lazy, css: b.css, images: imageSources(j.page.Body)}, nil
}

// bootHash is the CSP source of the inline boot script ('sha256-...').
func (b *bundles) bootHash() string {
	sum := sha256.Sum256([]byte(b.boot))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// imageCache is the folder of Options.ImageCache ("" for none).
func imageCache(opt string) string {
	switch opt {
	case "off":
		return ""
	case "":
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(dir, "freightsite", "drawn")
	}
	return opt
}

// cpuTime is the processor time this process and the children it waited
// for (Node's workers) have used, user and system.
func cpuTime() time.Duration {
	var t time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var u syscall.Rusage
		if syscall.Getrusage(who, &u) == nil {
			t += time.Duration(u.Utime.Nano() + u.Stime.Nano())
		}
	}
	return t
}

// peakMemory is the maximum resident set size of this process plus, for
// the workers children it started, each at the largest one's, in bytes.
func peakMemory(workers int) int64 {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0
	}
	return (self.Maxrss + int64(workers)*children.Maxrss) * 1024 // Linux counts in KiB
}

// readLocales reads each language's texts, locales/CODE.json, compacted.
func readLocales(root string, langs []data.Language) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, l := range langs {
		raw, err := os.ReadFile(filepath.Join(root, "locales", l.Code+".json"))
		if err != nil {
			return nil, err
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			return nil, fmt.Errorf("reading locales/%s.json: %w", l.Code, err)
		}
		out[l.Code] = compact.Bytes()
	}
	return out, nil
}

// jsonObject is the JSON object of these JSON values by name (each valid
// and compact already, as readLocales gives them), keys in order.
func jsonObject(values map[string][]byte) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range slices.Sorted(maps.Keys(values)) {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(name)
		b.Write(key)
		b.WriteByte(':')
		b.Write(values[name])
	}
	b.WriteByte('}')
	return b.String()
}

// imgSrc finds the site's own image files a page shows.
var (
	imgTag    = regexp.MustCompile(`<img\b[^>]*>`)
	imgSrc    = regexp.MustCompile(`\ssrc="(/[^/"][^"]*)"`)
	imgSrcSet = regexp.MustCompile(`\ssrcset="([^"]*)"`)
)

// imageSources lists the distinct image files (URL paths on this site) the
// page body shows.
func imageSources(body string) []string {
	var out []string
	for _, tag := range imgTag.FindAllString(body, -1) {
		src := ""
		if m := imgSrc.FindStringSubmatch(tag); m != nil {
			src = m[1]
		}
		// A width set costs what its widest image does (a large, dense
		// screen's choice), whatever the fallback.
		if m := imgSrcSet.FindStringSubmatch(tag); m != nil {
			if c := largestCandidate(html.UnescapeString(m[1])); strings.HasPrefix(c, "/") && !strings.HasPrefix(c, "//") {
				src = c
			}
		}
		if src != "" && !slices.Contains(out, src) {
			out = append(out, src)
		}
	}
	return out
}

func languageOf(site data.Settings, code string) data.Language {
	for _, l := range site.Languages {
		if l.Code == code {
			return l
		}
	}
	return site.Languages[0]
}

// checkIslands makes sure the client bundle has the code of each island
// named: pages/client.tsx imports an island's code by its name
// (pages/islands/NAME.tsx), so a misspelt name would fail only in the
// browser.
func (b *bundles) checkIslands(names []string) error {
	for _, name := range names {
		if _, ok := b.islands[name]; !ok {
			return fmt.Errorf("island %q has no file pages/islands/%s.tsx for pages/client.tsx to load (the islands are %s)", name, name, strings.Join(slices.Sorted(maps.Keys(b.islands)), ", "))
		}
	}
	return nil
}

// scripts lists the client entry and every chunk a page with these islands
// loads (React, the hydration code, the islands): what its budget counts.
func (b *bundles) scripts(islands []string) []string {
	out := append([]string{b.entry}, b.entryImports...)
	for _, s := range b.hydrate {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, name := range islands {
		for _, s := range b.islands[name] {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// lazyFiles lists what a page with these islands may load on first use
// and does not load at once (initial).
func (b *bundles) lazyFiles(islands, initial []string) []string {
	var out []string
	for _, name := range islands {
		for _, f := range b.lazy[name] {
			if !slices.Contains(initial, f) && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// writer collects the output in memory; releases.commit writes it in one
// go, so a failed build leaves the published release as it was.
type writer struct {
	files map[string][]byte
}

func (w *writer) add(name string, content []byte) { w.files[name] = content }

// compressible are the extensions that get a precompressed .gz sibling.
var compressible = []string{".html", ".css", ".js", ".json", ".xml", ".txt", ".svg", ".webmanifest"}

// gzipWriters are reused, by level: a new one allocates its whole window.
var gzipWriters = map[int]*sync.Pool{}

func init() {
	for _, level := range []int{gzip.BestCompression, pageGzipLevel} {
		gzipWriters[level] = &sync.Pool{New: func() any {
			zw, _ := gzip.NewWriterLevel(io.Discard, level)
			return zw
		}}
	}
}

// gzipLevel is how a file is compressed: pages at level 6, within two
// percent of the best level's size on them in a sixth of its time
// (compressing is most of what writing a large site costs), the rest
// (scripts and styles, which every page loads and the budgets weigh) at
// the best. klauspost/compress rather than Go's compress/flate: on the
// pages, 1.5% larger files in under half the time (23 against 51 ms for
// the 114 pages of the default build).
func gzipLevel(name string) int {
	if path.Ext(name) == ".html" {
		return pageGzipLevel
	}
	return gzip.BestCompression
}

const pageGzipLevel = 6

func gzipBytes(b []byte, level int) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(b)/3 + 64)
	pool := gzipWriters[level]
	zw := pool.Get().(*gzip.Writer)
	defer pool.Put(zw)
	zw.Reset(&buf)
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	err := zw.Close()
	return buf.Bytes(), err
}

// maxSitemapURLs is how many addresses one sitemap file may list (the
// sitemaps protocol's limit); a larger site gets a sitemap index.
var maxSitemapURLs = 50_000

// sitemaps are sitemap.xml, listing every page of every language with its
// alternates (routes, then the news archive's pages), or, past
// maxSitemapURLs, a sitemap index of sitemap-1.xml, sitemap-2.xml, ...
func sitemaps(base string, langs []data.Language, routes []routeInfo, news []string) map[string][]byte {
	var paths []string
	for _, rt := range routes {
		if rt.Canonical != rt.Path || strings.Contains(rt.Path, ":") {
			continue
		}
		paths = append(paths, rt.Path)
	}
	for _, r := range news {
		if !slices.Contains(paths, r) {
			paths = append(paths, r)
		}
	}
	per := max(1, maxSitemapURLs/len(langs))
	if len(paths) <= per {
		return map[string][]byte{"sitemap.xml": sitemap(base, langs, paths)}
	}
	files := map[string][]byte{}
	var index bytes.Buffer
	index.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	index.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for i := 0; i*per < len(paths); i++ {
		name := fmt.Sprintf("sitemap-%d.xml", i+1)
		files[name] = sitemap(base, langs, paths[i*per:min(len(paths), (i+1)*per)])
		fmt.Fprintf(&index, "  <sitemap><loc>%s</loc></sitemap>\n", xmlEscape(base+"/"+name))
	}
	index.WriteString("</sitemapindex>\n")
	files["sitemap.xml"] = index.Bytes()
	return files
}

func sitemap(base string, langs []data.Language, paths []string) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">` + "\n")
	for _, p := range paths {
		for _, l := range langs {
			fmt.Fprintf(&b, "  <url>\n    <loc>%s</loc>\n", xmlEscape(base+localePath(l.Prefix, p)))
			for _, alt := range langs {
				fmt.Fprintf(&b, "    <xhtml:link rel=\"alternate\" hreflang=\"%s\" href=\"%s\"/>\n", alt.HTMLLang, xmlEscape(base+localePath(alt.Prefix, p)))
			}
			fmt.Fprintf(&b, "    <xhtml:link rel=\"alternate\" hreflang=\"x-default\" href=\"%s\"/>\n  </url>\n", xmlEscape(base+p))
		}
	}
	b.WriteString("</urlset>\n")
	return b.Bytes()
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// headers are the security headers of every static page: a CSP that
// allows only this site's scripts plus the inline boot script by its hash
// (this build's and the kept releases', so the policy of one release lets
// the pages of the others run), and forms posting only here or to the
// payment provider. deploy/nginx-headers.conf repeats the headers other
// than the CSP (e2e/nginx_test.go holds them equal). The self-hosted
// captcha needs nothing more: its widget, stylesheet and Worker script are
// files of this site. With reCAPTCHA, Google's script and frame origins
// are allowed, and only then.
func headers(site data.Settings, bootHashes []string, recaptcha bool) []byte {
	formAction := []string{"'self'"}
	for _, u := range []string{site.Payment.DonationURL, site.Payment.SubscriptionURL} {
		if p, err := url.Parse(u); err == nil && p.Host != "" {
			origin := p.Scheme + "://" + p.Host
			if !slices.Contains(formAction, origin) {
				formAction = append(formAction, origin)
			}
		}
	}
	scripts, frames := "", ""
	if recaptcha {
		scripts = " https://www.google.com/recaptcha/ https://www.gstatic.com/recaptcha/"
		frames = "frame-src https://www.google.com/recaptcha/ https://recaptcha.google.com/recaptcha/"
	}
	csp := []string{
		"default-src 'self'",
		"script-src 'self' '" + strings.Join(bootHashes, "' '") + "'" + scripts,
		"style-src 'self'",
		"img-src 'self' data:",
		"connect-src 'self'",
		"form-action " + strings.Join(formAction, " "),
		"frame-ancestors 'none'",
		"base-uri 'self'",
		"object-src 'none'",
	}
	if frames != "" {
		csp = append(csp, frames)
	}
	return []byte("/*\n" +
		"  Content-Security-Policy: " + strings.Join(csp, "; ") + "\n" +
		"  X-Content-Type-Options: nosniff\n" +
		"  Referrer-Policy: strict-origin-when-cross-origin\n" +
		"  X-Frame-Options: DENY\n" +
		"  Permissions-Policy: camera=(), microphone=(), geolocation=(), interest-cohort=()\n" +
		"  Cross-Origin-Opener-Policy: same-origin\n" +
		"/" + hashedDir + "*\n" +
		"  Cache-Control: public, max-age=31536000, immutable\n")
}
