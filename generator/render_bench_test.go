package generator

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/dop251/goja"

	"freightsite/data"
)

// testRenderer bundles the source tree and starts the runtimes, with these
// globals besides the texts (LOCALES).
func testRenderer(tb testing.TB, globals map[string]string) (*renderer, data.Settings) {
	tb.Helper()
	root, _ := filepath.Abs("..")
	raw, err := os.ReadFile(filepath.Join(root, "data", "site.json"))
	if err != nil {
		tb.Fatal(err)
	}
	site, err := data.ParseSettings(raw)
	if err != nil {
		tb.Fatal(err)
	}
	images, err := readDataImages(root)
	if err != nil {
		tb.Fatal(err)
	}
	bs, err := bundle(root, site.Languages, raw, pageImages{QR: "/qr.svg", Data: images.manifestJSON()}, "")
	if err != nil {
		tb.Fatal(err)
	}
	locales, err := readLocales(root, site.Languages)
	if err != nil {
		tb.Fatal(err)
	}
	all := map[string]string{"LOCALES": jsonObject(locales), "KEY_FIGURES": `{"memberProfiles":5}`}
	for k, v := range globals {
		all[k] = v
	}
	r, err := newRenderer(root, bs.server, all)
	if err != nil {
		tb.Fatal(err)
	}
	return r, site
}

// BenchmarkRender measures the server render of every page in every
// language in goja, on all runtimes, as a build renders them (the budget:
// 1 ms of CPU a page). It reports the processor time a page
// takes (cpu-ms/page), which a busy machine changes less than the wall
// time of an op. The layout's reused parts are rendered in the first op.
func BenchmarkRender(b *testing.B) {
	r, site := testRenderer(b, nil)
	routes, err := r.routes()
	if err != nil {
		b.Fatal(err)
	}
	var jobs []*job
	for _, l := range site.Languages {
		for _, rt := range append(routes, routeInfo{Path: "/404"}) {
			jobs = append(jobs, &job{route: rt.Path, lang: l.Code, year: 2030})
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(buildGCPercent))
	cpu := cpuTime()
	for b.Loop() {
		if err := r.renderAll(jobs, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(ms(cpuTime()-cpu)/float64(b.N*len(jobs)), "cpu-ms/page")
	b.ReportMetric(float64(len(jobs)), "pages")
}

// TestPrerenderedPartsMatchAFullRender renders every page in every
// language with the layout's parts reused across pages (pages/lib/
// prerendered.tsx) and with each rendered in place: the pages are the
// same, islands and all.
func TestPrerenderedPartsMatchAFullRender(t *testing.T) {
	reused, site := testRenderer(t, nil)
	full, _ := testRenderer(t, map[string]string{"PRERENDER_OFF": "1"})
	routes, err := reused.routes()
	if err != nil {
		t.Fatal(err)
	}
	var pages int
	for _, l := range site.Languages {
		for _, rt := range append(routes, routeInfo{Path: "/404"}) {
			want, err := full.render(rt.Path, l.Code, 2030)
			if err != nil {
				t.Fatal(err)
			}
			got, err := reused.render(rt.Path, l.Code, 2030)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s in %s differs with the layout's parts reused:\n got %.300q\nwant %.300q", rt.Path, l.Code, firstDifference(got.Body, want.Body), firstDifference(want.Body, got.Body))
			}
			pages++
		}
	}
	if pages < 80 {
		t.Errorf("compared %d pages", pages)
	}
}

// firstDifference is a from where it first differs from b.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-40):]
}

// TestEscapeHTMLMatchesReact runs React's own escapeTextForBrowser, which
// the server bundle's React calls escapeHTML in place of for strings, and
// escapeHTML on the same texts: they give the same strings.
func TestEscapeHTMLMatchesReact(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "node_modules", "react-dom", "cjs", "react-dom-server-legacy.browser.production.js"))
	if err != nil {
		t.Fatal(err)
	}
	src := regexp.MustCompile(`(?s)matchHtmlRegExp = [^\n]*\n|function escapeTextForBrowser\(text\) \{.*?\n\}\n`).FindAllString(string(raw), -1)
	if len(src) != 2 {
		t.Fatalf("found %d of React's regular expression and escapeTextForBrowser: update this test", len(src))
	}
	rt := goja.New()
	if _, err := rt.RunString("var " + strings.Join(src, "")); err != nil {
		t.Fatal(err)
	}
	react, _ := goja.AssertFunction(rt.Get("escapeTextForBrowser"))
	texts, err := rt.RunString(`["", "plain", "मुंबई–पुणे", "a<b>&\"c'", "<<>>", "&amp;", "टोल <दरें> & 'पास'", "lone \ud800 surrogate & <", "'"]`)
	if err != nil {
		t.Fatal(err)
	}
	arr := texts.ToObject(rt)
	for i := range int(arr.Get("length").ToInteger()) {
		text := arr.Get(strconv.Itoa(i))
		want, err := react(goja.Undefined(), text)
		if err != nil {
			t.Fatal(err)
		}
		if got := escapeHTML(rt, text); !got.StrictEquals(want) {
			t.Errorf("escapeHTML(%q) = %q, React gives %q", text, got, want)
		}
	}
}
