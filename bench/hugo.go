package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The yardstick for the build: Hugo (Debian's `hugo`) building a site of
// the same shape as ours: the routes and languages our build wrote (its
// routes.json), one shared layout with the site's navigation, and about
// textPerPage bytes of text a page taken from our translations, so the
// Hugo site grows and shrinks with the real one.
const textPerPage = 3 << 10

// hugoSite writes that site into dir from the build published at dist
// and the translations in locales/.
func hugoSite(dir, dist string) (pages int, err error) {
	raw, err := os.ReadFile(filepath.Join(dist, "routes.json"))
	if err != nil {
		return 0, err
	}
	var m struct {
		Prefixes []string `json:"prefixes"`
		Routes   []string `json:"routes"`
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

	config := "baseURL = 'http://localhost:8080/'\ndefaultContentLanguage = 'en'\ndisableKinds = ['taxonomy', 'term', 'RSS']\n"
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
	return "", fmt.Errorf("%s is missing: the benchmark compares with it; install it with `sudo apt-get install -y %s` (or run `make chromium` as root, which installs what the tests and the benchmark need)", name, pkg)
}

// measureHugo builds our site and the Hugo site in turns (paired runs, a
// fresh output folder each time) and prints the times side by side.
func measureHugo(out io.Writer, bin, tmp string, sz size) (hugoFigures, error) {
	hugo, err := needTool("hugo", "hugo")
	if err != nil {
		return hugoFigures{}, err
	}
	src := filepath.Join(tmp, "hugo-site")
	pages, err := hugoSite(src, filepath.Join(tmp, "dist"))
	if err != nil {
		return hugoFigures{}, fmt.Errorf("writing the Hugo site: %w", err)
	}
	ours := func() (procRun, error) {
		dir := filepath.Join(tmp, "dist-paired")
		os.RemoveAll(dir)
		r, printed, err := runProc(bin, "build", "--out", dir, "--report", "json")
		if err != nil {
			return r, fmt.Errorf("freightsite build: %w\n%.400s", err, printed)
		}
		r.reportedPeak = reportedPeak(printed)
		return r, nil
	}
	theirs := func() (procRun, error) {
		dir := filepath.Join(tmp, "hugo-public")
		os.RemoveAll(dir)
		r, printed, err := runProc(hugo, "--source", src, "--destination", dir, "--quiet")
		if err != nil {
			return r, fmt.Errorf("hugo: %w\n%.400s", err, printed)
		}
		return r, nil
	}
	fmt.Fprintf(out, "== build against Hugo %s: the same routes and languages (%d pages), one shared layout, ~%d KB of our translations' text a page; %d paired runs (ours, Hugo, ours, ...), each from a fresh output folder\n", hugoVersion(hugo), pages, textPerPage>>10, sz.pairs)
	p, err := pairRuns(sz.pairs, ours, theirs)
	if err != nil {
		return hugoFigures{}, err
	}
	f := hugoFigures{Pages: pages, Ours: p.a.summary(), Hugo: p.b.summary(), WallRatio: p.wallRatio, CPURatio: p.cpuRatio}
	fmt.Fprintf(out, "%-22s %10s %10s %12s\n", "", "wall ms", "CPU ms", "peak memory")
	for _, row := range []struct {
		name string
		s    procSummary
	}{{"freightsite build", f.Ours}, {"hugo", f.Hugo}} {
		fmt.Fprintf(out, "%-22s %10.0f %10.0f %9.0f MB\n", row.name, row.s.WallMs, row.s.CPUMs, row.s.PeakMB)
	}
	if peak := p.a.reportedPeakMedian(); peak > 0 {
		fmt.Fprintf(out, "peak memory as freightsite build reports it (--report json): %.0f MB\n", peak/(1<<20))
	}
	fmt.Fprintf(out, "ours / Hugo, pair by pair: wall %s; CPU %s\n", f.WallRatio, f.CPURatio)
	return f, nil
}

type hugoFigures struct {
	Pages     int         `json:"pages"`
	Ours      procSummary `json:"ours"`
	Hugo      procSummary `json:"hugo"`
	WallRatio spread      `json:"wallRatio"` // ours / Hugo
	CPURatio  spread      `json:"cpuRatio"`
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
	if json.Unmarshal(report, &fields) != nil {
		return 0
	}
	for k, v := range fields {
		if n, ok := v.(float64); ok && strings.Contains(strings.ToLower(k), "peak") {
			return n
		}
	}
	return 0
}
