package generator

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"freightsite/data"
)

// TestFaviconIsTheLogoMark: favicon.svg is the logo mark the header shows,
// rendered from the same component, as a standalone SVG with its colours
// written on the shapes (a file has no stylesheet).
func TestFaviconIsTheLogoMark(t *testing.T) {
	icon := readDist(t, "favicon.svg")
	if !strings.HasPrefix(icon, `<svg class="brand-mark" xmlns="http://www.w3.org/2000/svg"`) || !strings.Contains(icon, `class="logo-tile"`) || !strings.Contains(icon, `fill="#0b5394"`) {
		t.Errorf("favicon.svg is not the logo mark with its colours: %s", icon)
	}
	home := readDist(t, "index.html")
	if !strings.Contains(home, `<svg class="brand-mark"`) || !strings.Contains(home, `class="logo-route"`) {
		t.Error("the home page's header has no logo mark")
	}
}

// TestHomeShowsKeyFigures: the home page shows the member profiles and
// news items of data/ and the number of languages, counted at build time.
func TestHomeShowsKeyFigures(t *testing.T) {
	figure := regexp.MustCompile(`<div class="figure"><dt>.*?</svg>([^<]*)</dt><dd>(\d+)</dd></div>`)
	for _, l := range langs {
		got := map[string]string{}
		for _, m := range figure.FindAllStringSubmatch(readDist(t, routeFile(l.prefix, "/")), -1) {
			got[m[1]] = m[2]
		}
		texts := readLocale(t, l.code)["home"].(map[string]any)["figures"].(map[string]any)
		want := map[string]string{
			texts["memberProfiles"].(string): itoa(data.Count("members.json")),
			texts["newsItems"].(string):      itoa(data.Count("news.json")),
			texts["languages"].(string):      "3",
		}
		if len(got) != len(want) {
			t.Errorf("%s home page figures %v, want %v", l.code, got, want)
		}
		for label, n := range want {
			if got[label] != n {
				t.Errorf("%s home page: %q is %q, want %s", l.code, label, got[label], n)
			}
		}
	}
}

// TestIslandBundlesCarryNoIconLibrary: icons are rendered to inline SVG
// at build time, so no client file carries lucide's code; islands that
// show a state mark draw it with CSS.
func TestIslandBundlesCarryNoIconLibrary(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testDist, "assets", "build", "*.js"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no client scripts in the build (%v)", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "lucide") {
			t.Errorf("%s carries lucide's code", filepath.Base(f))
		}
	}
	if !strings.Contains(readDist(t, "services/index.html"), `class="lucide lucide-handshake icon"`) {
		t.Error("the services page has no inline lucide icon")
	}
}

// TestImagesCountInTheBudget: a page's image files are weighed and held
// to the image budget.
func TestImagesCountInTheBudget(t *testing.T) {
	for _, p := range testReport.Pages {
		if p.URL == "/mobile-app" && p.Images == 0 {
			t.Error("/mobile-app shows the QR code but weighs no image")
		}
	}
	over := PageWeight{URL: "/x", Images: BudgetImages + 1}
	if why := over.OverBudget(); !strings.Contains(why, "images") {
		t.Errorf("a page with %d bytes of images: OverBudget %q", over.Images, why)
	}
	if got := imageSources(`<img src="/a.svg" alt=""><img alt="" src="/a.svg"><img src="data:x"><img src="//cdn.example/b.png">`); len(got) != 1 || got[0] != "/a.svg" {
		t.Errorf("imageSources = %v, want [/a.svg]", got)
	}
}

func readLocale(t *testing.T, code string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "locales", code+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestKeyFiguresFromTheDatabase: counts read from the API's database (build
// --db) replace or join those of data/, and a zero count is left out.
func TestKeyFiguresFromTheDatabase(t *testing.T) {
	site := data.Site()
	got, err := keyFigures("..", site, map[string]int{"members": 1234}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got["members"] != 1234 || got["memberProfiles"] != 5 || got["languages"] != 3 {
		t.Errorf("figures %v", got)
	}
	if _, ok := got["newsItems"]; ok {
		t.Errorf("a zero news count is shown: %v", got)
	}
}
