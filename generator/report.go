package generator

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"
)

// Page-weight budgets (gzip bytes): a page with no island ships HTML and
// CSS only; a page with islands may add JavaScript; the images a page shows
// (files it links; inline SVG counts in its HTML) are limited on every page.
const (
	BudgetStaticHTMLCSS = 20 * 1024
	BudgetIslandJS      = 80 * 1024
	BudgetImages        = 40 * 1024
)

// PageWeight is what one page costs a visitor, gzip-compressed (bytes).
type PageWeight struct {
	URL     string   `json:"url"`
	File    string   `json:"file"`
	Islands []string `json:"islands"`
	HTML    int      `json:"htmlBytes"`
	CSS     int      `json:"cssBytes"`
	JS      int      `json:"jsBytes"`
	// Images are the image files the page shows (<img src>), as sent
	// (gzip where the build compresses them).
	Images int `json:"imageBytes"`
	// Lazy is what the page's islands may load later, on first use (the
	// captcha widget, its Worker and stylesheet): not part of the initial
	// load the budget limits, shown so the figure is honest.
	Lazy int `json:"lazyBytes"`

	lang    string // the page's language code
	scripts []string
	lazy    []string
	css     string
	images  []string
}

// weigh reads the page's sizes: gzSize is the size of a written file's
// .gz (0: it has none), files the content of the site's files.
func (p *PageWeight) weigh(gzSize func(name string) int, files map[string][]byte) {
	size := func(urlPath string) int { return gzSize(strings.TrimPrefix(urlPath, "/")) }
	p.HTML = gzSize(p.File)
	p.CSS = size(p.css)
	for _, img := range p.images {
		name := strings.TrimPrefix(img, "/")
		if gz := gzSize(name); gz > 0 {
			p.Images += gz
		} else {
			p.Images += len(files[name])
		}
	}
	for _, s := range p.scripts {
		p.JS += size(s)
	}
	for _, s := range p.lazy {
		p.Lazy += size(s)
	}
}

// OverBudget says why the page breaks its budget, or "" if it does not.
func (p PageWeight) OverBudget() string {
	if p.Images > BudgetImages {
		return fmt.Sprintf("images %.1f KB > %d KB", kb(p.Images), BudgetImages/1024)
	}
	if len(p.Islands) == 0 {
		if p.JS > 0 {
			return "loads JavaScript without an island"
		}
		if p.HTML+p.CSS > BudgetStaticHTMLCSS {
			return fmt.Sprintf("HTML+CSS %.1f KB > %d KB", kb(p.HTML+p.CSS), BudgetStaticHTMLCSS/1024)
		}
		return ""
	}
	if p.JS > BudgetIslandJS {
		return fmt.Sprintf("JS %.1f KB > %d KB", kb(p.JS), BudgetIslandJS/1024)
	}
	return ""
}

func kb(n int) float64 { return float64(n) / 1024 }

// Print writes the page-weight table and the summary line.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "%-48s %8s %8s %8s %8s %8s  %s\n", "page", "html KB", "css KB", "js KB", "lazy KB", "img KB", "islands")
	var html, css, js, lazy, images, over int
	// The news archive's pages, thousands on a network's site, are
	// summed up by kind (an over-budget one is still named).
	type archive struct {
		pages, max, total int
	}
	kinds := map[string]*archive{"item pages": {}, "archive pages": {}}
	for _, p := range r.Pages {
		mark := ""
		if why := p.OverBudget(); why != "" {
			mark = "  OVER BUDGET: " + why
			over++
		}
		if kind := map[bool]string{true: "item pages", false: "archive pages"}[strings.Contains(p.URL, "/news-feed/news/")]; archivePage(p.URL) && mark == "" {
			a := kinds[kind]
			a.pages++
			a.total += p.HTML
			a.max = max(a.max, p.HTML)
		} else {
			fmt.Fprintf(w, "%-48s %8.1f %8.1f %8.1f %8.1f %8.1f  %s%s\n", p.URL, kb(p.HTML), kb(p.CSS), kb(p.JS), kb(p.Lazy), kb(p.Images), strings.Join(p.Islands, ","), mark)
		}
		html += p.HTML
		css += p.CSS
		js += p.JS
		lazy += p.Lazy
		images += p.Images
	}
	for _, kind := range []string{"item pages", "archive pages"} {
		if a := kinds[kind]; a.pages > 0 {
			fmt.Fprintf(w, "%-48s %8.1f  (largest %.1f KB of HTML)\n", fmt.Sprintf("news archive: %d %s", a.pages, kind), kb(a.total), kb(a.max))
		}
	}
	fmt.Fprintf(w, "%-48s %8.1f %8.1f %8.1f %8.1f %8.1f\n", fmt.Sprintf("total (%d pages, gzip)", len(r.Pages)), kb(html), kb(css), kb(js), kb(lazy), kb(images))
	if r.Release.ID != "" {
		what := "published"
		if !r.Release.Published {
			what = "staged (publish it with `" + PublishCommand(r.Releases, r.Release.ID) + "`)"
		}
		fmt.Fprintf(w, "release %s %s in %s, with %d files of earlier releases kept for pages still open\n", r.Release.ID, what, r.Releases, r.Carried)
		if r.CSPChanged {
			fmt.Fprintf(w, "the pages' Content-Security-Policy changed (%s): nginx serves the earlier one until `nginx -s reload`\n", filepath.Join(r.Releases, NginxCSPFile))
		}
	}
	rendered := fmt.Sprintf("rendered %d pages in %d ms (%.2f ms a page)", len(r.Rendered), r.Render.Milliseconds(), r.MsPerPage())
	switch {
	case len(r.Rendered) == 0:
		rendered = "rendered nothing: no page's inputs changed (render cache)"
	case len(r.Rendered) < len(r.Pages):
		rendered += fmt.Sprintf(", %d unchanged from the render cache", len(r.Pages)-len(r.Rendered))
	}
	fmt.Fprintf(w, "%d pages, %d files, %d over budget; bundled in %d ms, runtimes started in %d ms, %s; %d ms of CPU, peak memory %.0f MB. Total in %d ms\n",
		len(r.Pages), r.Files, over, r.Bundle.Milliseconds(), r.Start.Milliseconds(), rendered, r.CPU.Milliseconds(), float64(r.PeakMemory)/(1<<20), r.Duration.Milliseconds())
}

// MsPerPage is the render time of one page rendered (all cores render at
// once, so it is the render's wall time shared out, not one page's CPU
// time).
func (r *Report) MsPerPage() float64 {
	return ms(r.Render / time.Duration(max(1, len(r.Rendered))))
}

// OverBudget lists the pages that break their budget.
func (r *Report) OverBudget() []string {
	var out []string
	for _, p := range r.Pages {
		if why := p.OverBudget(); why != "" {
			out = append(out, p.URL+": "+why)
		}
	}
	return out
}

// reportJSON is a Report as `freightsite build --report json` prints it
// and `make bench` reads it back: sizes in gzip bytes, times in ms.
type reportJSON struct {
	Pages      []pageJSON `json:"pages"`
	Files      int        `json:"files"`
	OverBudget int        `json:"overBudget"`
	Budgets    struct {
		StaticHTMLCSS int `json:"staticHtmlCssBytes"`
		IslandJS      int `json:"islandJsBytes"`
		Images        int `json:"imageBytes"`
	} `json:"budgets"`
	// Release is the release the build wrote (absent for a report of a
	// build before releases).
	Release    *releaseJSON `json:"release,omitempty"`
	BundleMs   float64      `json:"bundleMs"`
	RuntimesMs float64      `json:"runtimesMs"`
	RenderMs   float64      `json:"renderMs"`
	MsPerPage  float64      `json:"msPerPage"`
	TotalMs    float64      `json:"totalMs"`
	// RenderedPages lists the pages rendered; the others came unchanged
	// from the render cache.
	RenderedPages []string `json:"renderedPages"`
	CPUMs         float64  `json:"cpuMs"`
	PeakMemory    int64    `json:"peakMemoryBytes"`
}

type releaseJSON struct {
	ID        string `json:"id"`
	Published bool   `json:"published"` // false: staged (build --stage)
	Folder    string `json:"folder"`    // where the releases are kept
	// CarriedFiles counts the hashed files of earlier releases it holds.
	CarriedFiles int `json:"carriedFiles"`
	// CSPChanged: nginx needs a reload to serve the pages' new policy.
	CSPChanged bool `json:"cspChanged"`
}

type pageJSON struct {
	PageWeight
	OverBudget string `json:"overBudget,omitempty"` // why the page breaks its budget
}

// MarshalJSON writes the report in the form of `build --report json`.
func (r Report) MarshalJSON() ([]byte, error) {
	out := reportJSON{Files: r.Files, BundleMs: ms(r.Bundle), RuntimesMs: ms(r.Start), RenderMs: ms(r.Render), MsPerPage: r.MsPerPage(), TotalMs: ms(r.Duration),
		RenderedPages: append([]string{}, r.Rendered...), CPUMs: ms(r.CPU), PeakMemory: r.PeakMemory}
	out.Budgets.StaticHTMLCSS, out.Budgets.IslandJS, out.Budgets.Images = BudgetStaticHTMLCSS, BudgetIslandJS, BudgetImages
	if r.Release.ID != "" {
		out.Release = &releaseJSON{ID: r.Release.ID, Published: r.Release.Published, Folder: r.Releases, CarriedFiles: r.Carried, CSPChanged: r.CSPChanged}
	}
	out.Pages = make([]pageJSON, len(r.Pages))
	for i, p := range r.Pages {
		out.Pages[i] = pageJSON{p, p.OverBudget()}
		if out.Pages[i].OverBudget != "" {
			out.OverBudget++
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON wrote, so a program running the
// build (make bench) gets the same Report, table and all.
func (r *Report) UnmarshalJSON(b []byte) error {
	var in reportJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*r = Report{Files: in.Files, Duration: duration(in.TotalMs), Bundle: duration(in.BundleMs), Start: duration(in.RuntimesMs), Render: duration(in.RenderMs),
		Rendered: in.RenderedPages, CPU: duration(in.CPUMs), PeakMemory: in.PeakMemory}
	if rel := in.Release; rel != nil {
		r.Release = Release{ID: rel.ID, Published: rel.Published}
		r.Releases, r.Carried, r.CSPChanged = rel.Folder, rel.CarriedFiles, rel.CSPChanged
	}
	for _, p := range in.Pages {
		r.Pages = append(r.Pages, p.PageWeight)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func duration(ms float64) time.Duration { return time.Duration(math.Round(ms*1000)) * time.Microsecond }
