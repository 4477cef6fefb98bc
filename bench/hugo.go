package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The yardstick for the build: Hugo (Debian's `hugo`) building a site of
// the same shape as ours: the routes and languages our build wrote (its
// routes.json), one shared layout with the site's navigation, and about
// textPerPage bytes of text a page taken from our translations, so the
// Hugo site grows and shrinks with the real one; and the same news
// archive, a page for each item (textPerItem bytes) and the list of them
// in pages of 20 (Hugo's paginator), in every language.
const (
	textPerPage = 3 << 10
	textPerItem = 400
)

// hugoSite writes that site into dir from the build published at dist
// and the translations in locales/.
func hugoSite(dir, dist string) (pages int, err error) {
	raw, err := os.ReadFile(filepath.Join(dist, "routes.json"))
	if err != nil {
		return 0, err
	}
	var m struct {
		Prefixes  []string `json:"prefixes"`
		Routes    []string `json:"routes"`
		NewsItems int      `json:"newsItems"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return 0, fmt.Errorf("reading routes.json: %w", err)
	}
	var routes []string
	for _, r := range m.Routes {
		if !strings.Contains(r, ":") { // a route with a parameter is one shell page, not content
			routes = append(routes, r)
		}
	}
	if len(routes) == 0 || len(m.Prefixes) == 0 {
		return 0, errors.New("routes.json lists no routes or no languages")
	}

	config := "baseURL = 'http://localhost:8080/'\ndefaultContentLanguage = 'en'\ndisableKinds = ['taxonomy', 'term', 'RSS']\npaginate = 20\n"
	for i, prefix := range m.Prefixes {
		lang := strings.TrimPrefix(prefix, "/")
		if lang == "" {
			lang = "en"
		}
		texts, err := localeTexts(filepath.Join("locales", lang+".json"))
		if err != nil {
			return 0, err
		}
		config += fmt.Sprintf("[languages.%s]\n  contentDir = 'content/%s'\n  weight = %d\n", lang, lang, i+1)
		for j, route := range routes {
			name := strings.Trim(route, "/") + ".md"
			if route == "/" {
				name = "_index.md"
			}
			var body strings.Builder
			fmt.Fprintf(&body, "---\ntitle: %q\n---\n", strings.Trim(route, "/"))
			for k := j * 37; body.Len() < textPerPage; k++ { // each page its own stretch of the translations
				fmt.Fprintf(&body, "\n%s\n", texts[k%len(texts)])
			}
			p := filepath.Join(dir, "content", lang, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return 0, err
			}
			if err := os.WriteFile(p, []byte(body.String()), 0o644); err != nil {
				return 0, err
			}
			pages++
		}
		news := filepath.Join(dir, "content", lang, "news")
		if err := os.MkdirAll(news, 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(news, "_index.md"), []byte("---\ntitle: news\n---\n"), 0o644); err != nil {
			return 0, err
		}
		for id := 1; id <= m.NewsItems; id++ {
			var body strings.Builder
			fmt.Fprintf(&body, "---\ntitle: \"news %d\"\ndate: %s\n---\n", id, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(id)*time.Hour).Format(time.RFC3339))
			for k := id * 7; body.Len() < textPerItem; k++ {
				fmt.Fprintf(&body, "\n%s\n", texts[k%len(texts)])
			}
			if err := os.WriteFile(filepath.Join(news, fmt.Sprintf("%d.md", id)), []byte(body.String()), 0o644); err != nil {
				return 0, err
			}
			pages++
		}
		pages += max(1, (m.NewsItems+19)/20)
	}
	var nav strings.Builder
	for _, r := range routes {
		fmt.Fprintf(&nav, "<li><a href=\"{{ relLangURL %q }}\">%s</a></li>", strings.TrimPrefix(r, "/"), strings.Trim(r, "/"))
	}
	layouts := map[string]string{
		"hugo.toml":                    config,
		"layouts/_default/baseof.html": `<!doctype html><html lang="{{ .Site.Language.Lang }}"><head><meta charset="utf-8"><title>{{ .Title }}</title><link rel="stylesheet" href="/assets/site.css"></head><body><header><nav><ul>` + nav.String() + `</ul></nav></header><main>{{ block "main" . }}{{ end }}</main><footer>{{ range .Translations }}<a href="{{ .RelPermalink }}">{{ .Language.Lang }}</a> {{ end }}</footer></body></html>`,
		"layouts/_default/single.html": `{{ define "main" }}<h1>{{ .Title }}</h1>{{ .Content }}{{ end }}`,
		"layouts/_default/list.html":   `{{ define "main" }}<h1>{{ .Title }}</h1>{{ .Content }}{{ end }}`,
		"layouts/index.html":           `{{ define "main" }}<h1>{{ .Site.Title }}</h1>{{ .Content }}{{ end }}`,
		"layouts/news/list.html":       `{{ define "main" }}<h1>{{ .Title }}</h1><ul>{{ range .Paginator.Pages }}<li><h2><a href="{{ .RelPermalink }}">{{ .Title }}</a></h2><p>{{ .Summary | truncate 50 }}</p><p>{{ .Date.Format "2 January 2006" }}</p></li>{{ end }}</ul>{{ with .Paginator.Prev }}<a href="{{ .URL }}">newer</a>{{ end }}{{ with .Paginator.Next }}<a href="{{ .URL }}">older</a>{{ end }}{{ end }}`,
	}
	for name, text := range layouts {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return 0, err
		}
	}
	return pages, nil
}

// localeTexts is every string of a translation file, in key order.
func localeTexts(file string) ([]string, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	var texts []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			texts = append(texts, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(v[k])
			}
		}
	}
	walk(tree)
	if len(texts) == 0 {
		return nil, fmt.Errorf("%s holds no text", file)
	}
	return texts, nil
}

// needTool is the path of a program the benchmark compares with, or an
// error saying how to install it.
func needTool(name, pkg string, paths ...string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is missing: the benchmark compares with it; run `sudo make yardsticks`, which installs every yardstick (make bench does it itself when run as root), or `sudo apt-get install -y %s`", name, pkg)
}

// buildSite is a site the build is measured on: the default build (the
// route table and the news seed), or one on a database holding a news
// archive of items items.
type buildSite struct {
	name  string
	items int // 0: the default build, no database
}

// buildSites are the sites measured: the 90 pages
// of the route table and the archive of a network that posts an item or
// two a day for a few years, 1,000 items in 3 languages.
func buildSites(sz size) []buildSite {
	items := 1000
	if sz.quick {
		items = 60
	}
	return []buildSite{{"the site (90 pages, the news seed)", 0}, {fmt.Sprintf("%d news items x 3 languages", items), items}}
}

// measureHugo builds each site, ours and Hugo's of the same shape, in
// turns: clean builds (a fresh output folder each time, as a deploy runs
// them: no earlier release, no render cache) and cached rebuilds (into the
// same folder again: our render cache answers; Hugo has none and builds
// again), and prints the figures side by side.
func measureHugo(out io.Writer, bin, tmp string, sz size) (hugoFigures, error) {
	hugo, err := needTool("hugo", "hugo")
	if err != nil {
		return hugoFigures{}, err
	}
	var f hugoFigures
	for i, site := range buildSites(sz) {
		s, err := measureSite(out, bin, hugo, filepath.Join(tmp, fmt.Sprintf("site-%d", i)), site, sz)
		if err != nil {
			return f, fmt.Errorf("%s: %w", site.name, err)
		}
		f.Sites = append(f.Sites, s)
	}
	return f, nil
}

func measureSite(out io.Writer, bin, hugo, dir string, site buildSite, sz size) (siteFigures, error) {
	f := siteFigures{Name: site.name, Items: site.items}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return f, err
	}
	args := []string{"build", "--report", "json"}
	if site.items > 0 {
		db := filepath.Join(dir, "news.db")
		items := filepath.Join(dir, "news.json")
		// The database's first open loads the 8 items of data/news.json.
		if err := os.WriteFile(items, newsItems(site.items-8), 0o644); err != nil {
			return f, err
		}
		if b, err := exec.Command(bin, "news", "import", items, "--db", db).CombinedOutput(); err != nil {
			return f, fmt.Errorf("importing news: %v\n%s", err, b)
		}
		args = append(args, "--db", db)
	}
	ours := func(dist string, fresh bool) func() (procRun, error) {
		return func() (procRun, error) {
			if fresh {
				os.RemoveAll(dist)
				os.RemoveAll(dist + ".releases")
			}
			r, printed, err := runProc(bin, append(args, "--out", dist)...)
			if err != nil {
				return r, fmt.Errorf("freightsite build: %w\n%.400s", err, printed)
			}
			r.reportedPeak = reportedPeak(printed)
			return r, nil
		}
	}
	// A first build, for the shape of the Hugo site.
	first := filepath.Join(dir, "dist")
	if _, err := ours(first, true)(); err != nil {
		return f, err
	}
	src := filepath.Join(dir, "hugo-site")
	pages, err := hugoSite(src, first)
	if err != nil {
		return f, fmt.Errorf("writing the Hugo site: %w", err)
	}
	f.Pages = pages
	theirs := func(public string, fresh bool) func() (procRun, error) {
		return func() (procRun, error) {
			if fresh {
				os.RemoveAll(public)
			}
			r, printed, err := runProc(hugo, "--source", src, "--destination", public, "--quiet")
			if err != nil {
				return r, fmt.Errorf("hugo: %w\n%.400s", err, printed)
			}
			return r, nil
		}
	}
	fmt.Fprintf(out, "== build against Hugo %s: %s; the same routes, languages and news archive (%d pages), one shared layout; %d paired runs each (ours, Hugo, ours, ...)\n", hugoVersion(hugo), site.name, pages, sz.pairs)
	fmt.Fprintf(out, "%-34s %10s %10s %12s %14s\n", "", "wall ms", "CPU ms", "peak memory", "ours / Hugo")
	for _, kind := range []struct {
		name  string
		fresh bool
		into  *pairFigures
	}{{"clean build (fresh --out)", true, &f.Clean}, {"cached rebuild (same --out)", false, &f.Cached}} {
		p, err := pairRuns(sz.pairs, ours(filepath.Join(dir, "dist-paired"), kind.fresh), theirs(filepath.Join(dir, "hugo-public"), kind.fresh))
		if err != nil {
			return f, err
		}
		*kind.into = pairFigures{Ours: p.a.summary(), Hugo: p.b.summary(), WallRatio: p.wallRatio, CPURatio: p.cpuRatio, WallMs: p.a.wallSpread(), ReportedPeakMB: p.a.reportedPeakMedian() / (1 << 20)}
		fmt.Fprintf(out, "%-34s %10.0f %10.0f %9.0f MB %14s\n", "freightsite: "+kind.name, kind.into.Ours.WallMs, kind.into.Ours.CPUMs, kind.into.Ours.PeakMB, "wall "+kind.into.WallRatio.String())
		fmt.Fprintf(out, "%-34s %10.0f %10.0f %9.0f MB %14s\n", "hugo", kind.into.Hugo.WallMs, kind.into.Hugo.CPUMs, kind.into.Hugo.PeakMB, "CPU "+kind.into.CPURatio.String())
	}
	fmt.Fprintf(out, "freightsite's clean build: wall %s ms; peak memory as it reports it (--report json: the process and its Node workers) %.0f MB\n", f.Clean.WallMs, f.Clean.ReportedPeakMB)
	return f, nil
}

type hugoFigures struct {
	Sites []siteFigures `json:"sites"`
}

// siteFigures are one site's builds, ours beside Hugo's.
type siteFigures struct {
	Name   string      `json:"name"`
	Items  int         `json:"newsItems"`
	Pages  int         `json:"pages"`
	Clean  pairFigures `json:"clean"`
	Cached pairFigures `json:"cached"`
}

type pairFigures struct {
	Ours           procSummary `json:"ours"`
	Hugo           procSummary `json:"hugo"`
	WallRatio      spread      `json:"wallRatio"` // ours / Hugo
	CPURatio       spread      `json:"cpuRatio"`
	WallMs         spread      `json:"wallMs"` // ours
	ReportedPeakMB float64     `json:"reportedPeakMB"`
}

// targets: clean builds within 3 times Hugo's at every
// size, and at most 300 MB of memory.
func (f hugoFigures) targets() []target {
	var out []target
	for _, s := range f.Sites {
		out = append(out,
			target{fmt.Sprintf("clean build of %s <= 3x Hugo's (wall, paired)", s.Name), s.Clean.WallRatio.Median <= 3, fmt.Sprintf("%s times Hugo's", s.Clean.WallRatio)},
			target{fmt.Sprintf("clean build of %s peak memory <= 300 MB (the process and its Node workers)", s.Name), s.Clean.ReportedPeakMB <= 300, fmt.Sprintf("%.0f MB (the largest process %.0f MB)", s.Clean.ReportedPeakMB, s.Clean.Ours.PeakMB)})
	}
	return out
}

func hugoVersion(hugo string) string {
	b, err := exec.Command(hugo, "version").Output()
	if err != nil {
		return "(version unknown)"
	}
	if f := strings.Fields(string(b)); len(f) > 1 {
		return f[1]
	}
	return strings.TrimSpace(string(b))
}

// reportedPeak is the peak memory `build --report json` reports, in
// bytes (0 when the report has no such figure): any top-level number
// whose name mentions a peak.
func reportedPeak(report []byte) float64 {
	var fields map[string]any
	// The report comes first; warnings may follow it.
	if json.NewDecoder(bytes.NewReader(report)).Decode(&fields) != nil {
		return 0
	}
	for k, v := range fields {
		if n, ok := v.(float64); ok && strings.Contains(strings.ToLower(k), "peak") {
			return n
		}
	}
	return 0
}
