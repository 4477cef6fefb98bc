package generator

import (
	"maps"
	"strings"
	"sync"
	"time"
)

// pipeline is one build of the site from its bundles: the steps that
// Build and Dev share, from the route list to the documents. Build runs
// them for every page and writes a release; Dev runs them into memory and
// renders a page when it is first asked for (or open in a browser). Both
// start it the same way (newPipeline), render through it (render), and
// make their site files, share assets and documents with it, so the build
// and the dev loop cannot drift apart.
type pipeline struct {
	in      *input
	b       *bundles
	cache   *RenderCache
	globals map[string]string
	inputs  renderInputs
	// start starts the runtimes of this build's server bundle (Build:
	// one per core; Dev: one, reusing the last build's where it can).
	start func(p *pipeline) (engine, error)

	rmu       sync.Mutex
	r         engine
	startTime time.Duration // how long starting r took

	routes    []routeInfo
	canonical map[string]string
	favicon   string
	jobs      []*job // every page of the site, each with its render cache key
}

// newPipeline reads the route list and icon (from the render cache or
// the runtimes) and lists the pages. It starts the cache's build: the
// entries it does not use are forgotten at forgetUnused.
func newPipeline(in *input, b *bundles, cache *RenderCache, start func(p *pipeline) (engine, error)) (*pipeline, error) {
	p := &pipeline{in: in, b: b, cache: cache, start: start}
	p.globals = in.globals()
	p.inputs = in.renderInputs(b, p.globals)
	cache.startBuild()
	sr, err := siteRenderOf(cache, p.inputs, p.renderer)
	if err != nil {
		return nil, err
	}
	p.routes, p.favicon, p.canonical = sr.Routes, sr.Favicon, canonicals(sr.Routes)
	p.jobs = in.jobs(p.routes, p.inputs)
	return p, nil
}

// renderer starts the runtimes on first use: a build whose pages all come
// from the render cache starts none.
func (p *pipeline) renderer() (engine, error) {
	p.rmu.Lock()
	defer p.rmu.Unlock()
	if p.r != nil {
		return p.r, nil
	}
	began := time.Now()
	r, err := p.start(p)
	if err != nil {
		return nil, err
	}
	p.r, p.startTime = r, time.Since(began)
	return r, nil
}

// started is the renderer if one was started.
func (p *pipeline) started() engine {
	p.rmu.Lock()
	defer p.rmu.Unlock()
	return p.r
}

// render gives each job its page, from the render cache or rendered on all
// runtimes at once, telling done (if not nil) of each as its page is in,
// and returns the jobs it rendered (their inputs changed since the cache
// took them).
func (p *pipeline) render(jobs []*job, done func(*job)) ([]*job, error) {
	var missing []*job
	for _, j := range jobs {
		var cached bool
		if j.page, cached = p.cache.page(j.key, p.inputs.data); !cached {
			missing = append(missing, j)
		} else if done != nil {
			done(j)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	r, err := p.renderer()
	if err != nil {
		return nil, err
	}
	if err := r.renderAll(missing, done); err != nil {
		return nil, err
	}
	// A later build of freightsite dev may have given the runtime its
	// texts meanwhile: those renders are not this build's to keep.
	if g, ok := r.(textEngine); ok && !g.runs(p.globals) {
		return missing, nil
	}
	for _, j := range missing {
		p.cache.putPage(j.key, p.inputs.data, j.page)
	}
	return missing, nil
}

// keep marks the jobs' cache entries as used without rendering them, so
// forgetUnused keeps what a later request may still take.
func (p *pipeline) keep(jobs []*job) {
	for _, j := range jobs {
		p.cache.page(j.key, p.inputs.data)
	}
}

// file is the file a job's page is written to ("hi/faq/index.html").
func (p *pipeline) file(j *job) string { return pageFile(p.in, j) }

// siteFiles are the files of the site other than its pages, the share
// assets and the service worker (input.siteFiles); news are the routes of
// the news archive's pages (walkNews), for the sitemap.
func (p *pipeline) siteFiles(bootHashes, news []string) map[string][]byte {
	return p.in.siteFiles(p.b, siteRender{Routes: p.routes, Favicon: p.favicon}, bootHashes, news)
}

// shareMemo keeps what the share assets were last made of and what was
// made, so a build in a loop (Dev) makes them again only when those
// inputs change: drawing them, and rendering the home pages they read,
// costs more than a rebuild of a screen. A zero memo makes them.
type shareMemo struct {
	key   string
	share shared
	files map[string][]byte
}

// shareAssets makes the share assets (share.go) into files, or takes them
// from memo when what they are made of is unchanged: the mark, the
// settings and each language's tagline and home description (its texts).
// home is each language's home page, rendered only when they are made.
func (p *pipeline) shareAssets(memo *shareMemo, files map[string][]byte, home func(lang string) (page, error)) (shared, error) {
	key := []string{p.favicon, string(p.in.raw)}
	for _, l := range p.in.site.Languages {
		key = append(key, p.in.texts[l.Code].tagline, p.in.texts[l.Code].homeDescription)
	}
	if k := strings.Join(key, "\x00"); memo.files == nil || k != memo.key {
		pages := map[string]page{}
		for _, l := range p.in.site.Languages {
			pg, err := home(l.Code)
			if err != nil {
				return shared{}, err
			}
			pages[l.Code] = pg
		}
		w := &writer{files: map[string][]byte{}}
		share, err := shareAssets(p.in.root, p.in.site, p.in.texts, p.favicon, pages, w, p.cache)
		if err != nil {
			return shared{}, err
		}
		memo.key, memo.share, memo.files = k, share, w.files
	}
	maps.Copy(files, memo.files)
	return memo.share, nil
}

// homeJob is the job of language lang's home page.
func (p *pipeline) homeJob(lang string) *job {
	for _, j := range p.jobs {
		if j.route == "/" && j.lang == lang {
			return j
		}
	}
	return nil
}

// document is the HTML file of a rendered page and what it weighs.
func (p *pipeline) document(share shared, j *job) (string, PageWeight, error) {
	return p.in.document(p.b, p.canonical, share, j)
}
