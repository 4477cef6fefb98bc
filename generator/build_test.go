package generator

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"

	"freightsite/data"
	"freightsite/internal/testkit"
)

// One build of the real source tree is shared by the tests of this package.
var (
	testDist   string
	testReport *Report
	testBase   = "https://freight.example"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "freightsite-build-")
	if err != nil {
		panic(err)
	}
	testDist = filepath.Join(dir, "dist")
	testReport, err = Build(Options{Root: "..", Out: testDist, BaseURL: testBase, Year: 2030})
	if err != nil {
		fmt.Fprintln(os.Stderr, "building the site for the tests:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	for _, b := range []*sharedBuild{newsBuilt, archiveBuilt} {
		if b.dist != "" {
			os.RemoveAll(filepath.Dir(b.dist))
		}
	}
	os.Exit(code)
}

func readDist(t *testing.T, name string) string { return testkit.ReadFile(t, testDist, name) }

func testManifest(t *testing.T) manifest {
	t.Helper()
	var m manifest
	if err := json.Unmarshal([]byte(readDist(t, manifestFile)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

var langs = []struct{ code, htmlLang, prefix string }{{"en", "en", ""}, {"hi", "hi", "/hi"}, {"ma", "mr", "/ma"}}

// specRoutes are the routes of SPEC §2 other than the five member pages.
var specRoutes = []string{"/", "/home", "/testimonials", "/registration", "/contact-us", "/about-us", "/login",
	"/forget-password", "/privacy-policy", "/legal", "/copyright", "/terms-n-conditions", "/donate",
	"/standard-15-day-format", "/reset-password", "/unsubscribe", "/faq", "/services", "/members-profile",
	"/values", "/mobile-app", "/news-feed", "/news-feed/news/:newsId", "/feedback-form"}

func TestEveryRouteOfTheSpecIsRegistered(t *testing.T) {
	m := testManifest(t)
	for _, r := range specRoutes {
		if !slices.Contains(m.Routes, r) {
			t.Errorf("route %s is missing", r)
		}
	}
	var members int
	for _, r := range m.Routes {
		if strings.HasPrefix(r, "/member-details-") {
			members++
		}
	}
	if members != 5 {
		t.Errorf("%d member pages, want 5", members)
	}
	if len(m.Routes) != len(specRoutes)+5 {
		t.Errorf("%d routes, want %d: %v", len(m.Routes), len(specRoutes)+5, m.Routes)
	}
}

var (
	reHTMLLang  = regexp.MustCompile(`<html lang="([^"]+)" data-lang="([^"]+)"`)
	reAlternate = regexp.MustCompile(`<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">`)
	reCanonical = regexp.MustCompile(`<link rel="canonical" href="([^"]+)">`)
)

func TestEveryRouteIsWrittenInEveryLanguage(t *testing.T) {
	m := testManifest(t)
	for _, l := range langs {
		for _, r := range m.Routes {
			file := routeFile(l.prefix, r)
			html := readDist(t, file)
			lm := reHTMLLang.FindStringSubmatch(html)
			if lm == nil || lm[1] != l.htmlLang || lm[2] != l.code {
				t.Errorf("%s: html lang %v, want %s/%s", file, lm, l.htmlLang, l.code)
			}
			canonicalRoute := r
			if r == "/home" {
				canonicalRoute = "/"
			}
			want := [][2]string{}
			for _, alt := range langs {
				want = append(want, [2]string{alt.htmlLang, testBase + localePath(alt.prefix, canonicalRoute)})
			}
			want = append(want, [2]string{"x-default", testBase + canonicalRoute})
			var got [][2]string
			for _, a := range reAlternate.FindAllStringSubmatch(html, -1) {
				got = append(got, [2]string{a[1], a[2]})
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: hreflang links\n got %v\nwant %v", file, got, want)
			}
			if c := reCanonical.FindStringSubmatch(html); c == nil || c[1] != testBase+localePath(l.prefix, canonicalRoute) {
				t.Errorf("%s: canonical %v", file, c)
			}
			if !strings.Contains(html, "<h1") {
				t.Errorf("%s: no heading", file)
			}
		}
	}
}

func TestNotFoundPagePerLanguage(t *testing.T) {
	texts := map[string][2]string{
		"en": {"Page Not Found", "The page you requested was not found on this server."},
		"hi": {"पृष्ठ नहीं मिला", ""},
		"ma": {"पान सापडले नाही", ""},
	}
	for _, l := range langs {
		html := readDist(t, notFoundFile(l.prefix))
		if lm := reHTMLLang.FindStringSubmatch(html); lm == nil || lm[1] != l.htmlLang {
			t.Errorf("%s 404: lang %v", l.code, lm)
		}
		for _, want := range texts[l.code] {
			if !strings.Contains(html, want) {
				t.Errorf("%s 404 lacks %q", l.code, want)
			}
		}
		if !strings.Contains(html, `data-island="NotFoundPage"`) || !strings.Contains(html, `<script type="module"`) {
			t.Errorf("%s 404: the Send feedback island or its script is missing", l.code)
		}
		if strings.Contains(html, `rel="canonical"`) {
			t.Errorf("%s 404 names a canonical URL", l.code)
		}
	}
}

func TestPagesWithoutIslandsLoadNoScript(t *testing.T) {
	html := readDist(t, "faq/index.html")
	if strings.Contains(html, "<script type=\"module\"") || strings.Contains(html, "<script src") || strings.Contains(html, "modulepreload") {
		t.Error("/faq has no island but loads a script")
	}
	if n := strings.Count(html, "<script>"); n != 1 {
		t.Errorf("/faq has %d inline scripts, want only the boot script", n)
	}
}

// TestAMisspeltIslandFailsTheBuild: an island's name is the file of its
// code, which the browser loads by that name; a name with no file fails
// the build, naming the island and the file it lacks, for an island that
// loads the client and for a lazy one alike.
func TestAMisspeltIslandFailsTheBuild(t *testing.T) {
	for _, c := range []struct{ file, name, typo string }{
		{"pages/screens/ContactUs.tsx", "ContactForm", "ContactFrom"},
		{"pages/layout/Nav.tsx", "TenantLogo", "TenantLgo"},
	} {
		root := sourceTreeWithOwnLocales(t)
		editFile(t, filepath.Join(root, filepath.FromSlash(c.file)), `<Island name="`+c.name+`"`, `<Island name="`+c.typo+`"`)
		_, err := Build(Options{Root: root, Out: filepath.Join(t.TempDir(), "dist")})
		if err == nil || !strings.Contains(err.Error(), `island "`+c.typo+`"`) || !strings.Contains(err.Error(), "pages/islands/"+c.typo+".tsx") {
			t.Errorf("%s naming the island %s: the build says %v, want an error naming the island and pages/islands/%s.tsx", c.file, c.typo, err, c.typo)
		}
	}
}

func TestInlineScriptIsSmallAndAllowedByHash(t *testing.T) {
	html := readDist(t, "index.html")
	start := strings.Index(html, "<script>") + len("<script>")
	end := strings.Index(html[start:], "</script>")
	boot := html[start : start+end]
	if len(boot) > 1536 {
		t.Errorf("boot script is %d bytes, want at most 1.5 KB", len(boot))
	}
	sum := sha256.Sum256([]byte(boot))
	hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	if headers := readDist(t, headersFile); !strings.Contains(headers, "script-src 'self' "+hash) {
		t.Errorf("the CSP in _headers does not allow the boot script %s:\n%s", hash, headers)
	}
}

func TestSitemap(t *testing.T) {
	var set struct {
		URLs []struct {
			Loc   string `xml:"loc"`
			Links []struct {
				Rel      string `xml:"rel,attr"`
				HrefLang string `xml:"hreflang,attr"`
				Href     string `xml:"href,attr"`
			} `xml:"link"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal([]byte(readDist(t, "sitemap.xml")), &set); err != nil {
		t.Fatal(err)
	}
	locs := map[string]bool{}
	for _, u := range set.URLs {
		locs[u.Loc] = true
		if len(u.Links) != 4 || u.Links[3].HrefLang != "x-default" {
			t.Errorf("%s: alternates %v, want en, hi, mr and x-default", u.Loc, u.Links)
		}
	}
	m := testManifest(t)
	want := 0
	for _, r := range m.Routes {
		if r == "/home" || strings.Contains(r, ":") {
			if locs[testBase+r] {
				t.Errorf("sitemap lists %s, which is not a canonical page", r)
			}
			continue
		}
		for _, l := range langs {
			want++
			if !locs[testBase+localePath(l.prefix, r)] {
				t.Errorf("sitemap lacks %s", testBase+localePath(l.prefix, r))
			}
		}
	}
	var news []string
	for id := 1; id <= m.NewsItems; id++ {
		news = append(news, itemRoute(int64(id)))
	}
	for n := 1; n <= m.FeedPages; n++ {
		news = append(news, archiveRoute(n))
	}
	for _, r := range news {
		for _, l := range langs {
			want++
			if u := testBase + localePath(l.prefix, r); !locs[u] {
				t.Errorf("sitemap lacks %s", u)
			}
		}
	}
	if len(set.URLs) != want || m.NewsItems != data.Count("news.json") || m.FeedPages != 0 {
		t.Errorf("sitemap has %d URLs, want %d (%d news items on %d pages of the archive: the feed lists them all)", len(set.URLs), want, m.NewsItems, m.FeedPages)
	}
	if robots := readDist(t, "robots.txt"); !strings.Contains(robots, "Sitemap: "+testBase+"/sitemap.xml") {
		t.Errorf("robots.txt does not point at the sitemap:\n%s", robots)
	}
}

func TestTranslationsArePublished(t *testing.T) {
	keys := map[string][]string{}
	for _, l := range langs {
		var m map[string]any
		if err := json.Unmarshal([]byte(readDist(t, "assets/i18n/"+l.code+".json")), &m); err != nil {
			t.Fatalf("assets/i18n/%s.json: %v", l.code, err)
		}
		keys[l.code] = flatKeys("", m)
	}
	for _, code := range []string{"hi", "ma"} {
		if missing := difference(keys["en"], keys[code]); len(missing) > 0 {
			t.Errorf("%s lacks %d keys of en: %v", code, len(missing), missing)
		}
		if extra := difference(keys[code], keys["en"]); len(extra) > 0 {
			t.Errorf("%s has %d keys en lacks: %v", code, len(extra), extra)
		}
	}
}

func flatKeys(prefix string, m map[string]any) []string {
	var out []string
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			out = append(out, flatKeys(prefix+k+".", sub)...)
		} else {
			out = append(out, prefix+k)
		}
	}
	return out
}

func difference(a, b []string) []string {
	var out []string
	for _, k := range a {
		if !slices.Contains(b, k) {
			out = append(out, k)
		}
	}
	return out
}

func TestEveryTextFileHasAGzipSibling(t *testing.T) {
	err := filepath.WalkDir(testDist, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !slices.Contains(compressible, filepath.Ext(p)) || filepath.Base(p) == manifestFile {
			return err
		}
		plain, _ := os.ReadFile(p)
		gz, err := os.ReadFile(p + ".gz")
		if err != nil {
			t.Errorf("%s has no .gz sibling", p)
			return nil
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Errorf("%s.gz: %v", p, err)
			return nil
		}
		unzipped, _ := io.ReadAll(zr)
		if !bytes.Equal(plain, unzipped) {
			t.Errorf("%s.gz does not match %s", p, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPagesMeetTheirBudgets(t *testing.T) {
	if over := testReport.OverBudget(); len(over) > 0 {
		t.Errorf("over budget:\n%s", strings.Join(over, "\n"))
	}
	if len(testReport.Pages) != 3*(len(specRoutes)+5+1+feedPages(data.Count("news.json"))+data.Count("news.json")) {
		t.Errorf("report lists %d pages", len(testReport.Pages))
	}
	var buf bytes.Buffer
	testReport.Print(&buf)
	if !strings.Contains(buf.String(), "Total in") || !strings.Contains(buf.String(), "/hi/faq") {
		t.Errorf("report table:\n%s", buf.String())
	}
}

// TestReportSurvivesJSON: what `build --report json` prints reads back
// into the same report, so make bench prints the build's own table.
func TestReportSurvivesJSON(t *testing.T) {
	b, err := json.Marshal(testReport)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	var want, got bytes.Buffer
	testReport.Print(&want)
	back.Print(&got)
	if got.String() != want.String() {
		t.Errorf("the table read back from JSON differs:\n%s\nwant\n%s", got.String(), want.String())
	}
	if back.MsPerPage() != testReport.MsPerPage() || back.Render != testReport.Render.Truncate(time.Microsecond) {
		t.Errorf("render %v, %.3f ms a page; want %v, %.3f", back.Render, back.MsPerPage(), testReport.Render, testReport.MsPerPage())
	}
	// A page over its budget is counted and says why: HTML and CSS on a
	// page without islands, image files on any page.
	over := Report{Pages: []PageWeight{
		{URL: "/heavy", File: "heavy/index.html", HTML: BudgetStaticHTMLCSS + 1024},
		{URL: "/pictures", File: "pictures/index.html", Islands: []string{"Registration"}, Images: BudgetImages + 1024},
		{URL: "/light", File: "light/index.html", HTML: 1024, Images: 1024},
	}}
	b, _ = json.Marshal(&over)
	var figures struct {
		OverBudget int `json:"overBudget"`
		Pages      []struct {
			Images     int    `json:"imageBytes"`
			OverBudget string `json:"overBudget"`
		} `json:"pages"`
	}
	if err := json.Unmarshal(b, &figures); err != nil || figures.OverBudget != 2 || len(figures.Pages) != 3 ||
		figures.Pages[0].OverBudget != fmt.Sprintf("HTML+CSS %d.0 KB > %d KB", BudgetStaticHTMLCSS/1024+1, BudgetStaticHTMLCSS/1024) ||
		figures.Pages[1].OverBudget != fmt.Sprintf("images %d.0 KB > %d KB", BudgetImages/1024+1, BudgetImages/1024) ||
		figures.Pages[1].Images != BudgetImages+1024 || figures.Pages[2].OverBudget != "" {
		t.Errorf("over-budget report %s (%v)", b, err)
	}
}

func TestBuildNeedsNodeModules(t *testing.T) {
	_, err := Build(Options{Root: t.TempDir(), Out: filepath.Join(t.TempDir(), "dist")})
	if !errors.Is(err, ErrNoNodeModules) || !strings.Contains(err.Error(), "npm ci") {
		t.Errorf("err = %v, want ErrNoNodeModules telling to run npm ci", err)
	}
}

func TestBuildNeverReplacesAForeignFolder(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "precious.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Build(Options{Root: "..", Out: out})
	if err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("err = %v, want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(out, "precious.txt")); err != nil {
		t.Error("the foreign folder was touched")
	}
}

func TestBuildRejectsARelativeBaseURL(t *testing.T) {
	_, err := Build(Options{Root: "..", Out: filepath.Join(t.TempDir(), "d"), BaseURL: "example.com"})
	if err == nil || !strings.Contains(err.Error(), "absolute URL") {
		t.Errorf("err = %v", err)
	}
}

// TestBrowserTranslatorMatchesI18next: islands translate in the browser with
// createTranslator, the server with i18next; for every key of every language
// both must give the same text, or hydration would mismatch.
func TestBrowserTranslatorMatchesI18next(t *testing.T) {
	root, _ := filepath.Abs("..")
	entry := `
import i18next from 'i18next';
import { createTranslator } from './pages/lib/i18n';
import en from './locales/en.json';
import hi from './locales/hi.json';
import ma from './locales/ma.json';
export function compare() {
  const all = { en, hi, ma };
  const out = [];
  for (const lang of Object.keys(all)) {
    const i18n = i18next.createInstance();
    i18n.init({ lng: lang, fallbackLng: false, initAsync: false, resources: { [lang]: { translation: all[lang] } }, interpolation: { escapeValue: false } });
    const ours = createTranslator(lang, all[lang], lang);
    const walk = (node, prefix) => {
      for (const k of Object.keys(node)) {
        const v = node[k];
        if (v && typeof v === 'object' && !Array.isArray(v)) { walk(v, prefix + k + '.'); continue; }
        if (typeof v !== 'string') continue;
        const vars = { name: 'Asha & Co <b>', start: 2011, count: 2 };
        const a = i18n.t(prefix + k, vars), b = ours.t(prefix + k, vars);
        if (a !== b) out.push(lang + ' ' + prefix + k + ': i18next ' + JSON.stringify(a) + ' vs ' + JSON.stringify(b));
      }
    };
    walk(all[lang], '');
  }
  return out;
}`
	res := api.Build(api.BuildOptions{
		Stdin:         &api.StdinOptions{Contents: entry, ResolveDir: root, Loader: api.LoaderTS, Sourcefile: "compare.ts"},
		Bundle:        true,
		Format:        api.FormatIIFE,
		GlobalName:    "Check",
		Target:        api.ES2017,
		Define:        define,
		Write:         false,
		AbsWorkingDir: root,
		Outfile:       "check.js",
	})
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	vm := goja.New()
	vm.Set("__log", func(goja.FunctionCall) goja.Value { return goja.Undefined() })
	// goja has no Intl: plural keys would need it, and the site has none yet.
	if _, err := vm.RunString(polyfills + string(res.OutputFiles[0].Contents)); err != nil {
		t.Fatal(err)
	}
	v, err := vm.RunString(`Check.compare()`)
	if err != nil {
		t.Fatal(err)
	}
	var diffs []string
	if err := vm.ExportTo(v, &diffs); err != nil {
		t.Fatal(err)
	}
	if len(diffs) > 0 {
		t.Errorf("%d keys differ:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}
