package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// TestHomeShowsKeyFigures: the home page shows, in data/site.json's
// order, the states and cities its members serve (data/members.json),
// their routes and the years since 2011, counted at build time; with no
// database no member count (TestKeyFiguresFromTheDatabase).
func TestHomeShowsKeyFigures(t *testing.T) {
	figure := regexp.MustCompile(`<div class="figure"><dt>.*?</svg>([^<]*)</dt><dd>(\d+)</dd></div>`)
	for _, l := range langs {
		var got [][2]string
		for _, m := range figure.FindAllStringSubmatch(readDist(t, routeFile(l.prefix, "/")), -1) {
			got = append(got, [2]string{m[1], m[2]})
		}
		texts := readLocale(t, l.code)["home"].(map[string]any)["figures"].(map[string]any)
		label := func(key string) string { return strings.ReplaceAll(texts[key].(string), "{{year}}", "2011") }
		want := [][2]string{{label("states"), "15"}, {label("cities"), "33"}, {label("routes"), "15"}, {label("years"), "19"}}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s home page figures\n got %v\nwant %v", l.code, got, want)
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
	// A width set costs its widest image.
	if got := imageSources(`<img src="/p-320.webp" srcset="/p-320.webp 320w, /p-960.webp 960w, /p-640.webp 640w" alt="">`); len(got) != 1 || got[0] != "/p-960.webp" {
		t.Errorf("imageSources = %v, want [/p-960.webp]", got)
	}
}

// TestDataImagesArePublished: the members list shows each member's photo
// as WebP files at a set of widths, with its size and lazy loading, and
// the default (the logo on a panel) for the member without one; every
// logo is published as it is; the page's image weight counts the widest
// of each set, within the budget.
func TestDataImagesArePublished(t *testing.T) {
	html := readDist(t, "members-profile/index.html")
	photos := regexp.MustCompile(`<img class="member-photo[^"]*" src="(/assets/build/img-[^"]+-\d+-[0-9A-F]{8}\.webp)" srcSet="([^"]+)" sizes="[^"]+" width="(\d+)" height="(\d+)" alt="([^"]+)" loading="lazy"`).FindAllStringSubmatch(html, -1)
	if len(photos) != 4 {
		t.Fatalf("the members list shows %d photos as width sets, want 4 (one member has none)", len(photos))
	}
	for _, m := range photos {
		set := strings.Split(m[2], ", ")
		if len(set) < 3 {
			t.Errorf("%s: %d widths, want several", m[1], len(set))
		}
		for _, c := range set {
			file := strings.Fields(c)[0]
			b, err := os.ReadFile(filepath.Join(testDist, filepath.FromSlash(file)))
			if err != nil || len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
				t.Errorf("%s is not a WebP file (%v)", file, err)
			}
		}
		if w, h := atoiT(t, m[3]), atoiT(t, m[4]); w*10 != h*16 {
			t.Errorf("%s: %dx%d, want the photo's 16:10", m[1], w, h)
		}
	}
	if n := strings.Count(html, `class="member-photo member-card-photo photo-default"`); n != 1 {
		t.Errorf("%d default photos, want 1 (Northstar has no photo)", n)
	}
	if n := len(regexp.MustCompile(`<img class="logo" src="/assets/build/img-[a-z-]+-logo-[0-9A-F]{8}\.svg" width="64" height="64" alt=""`).FindAllString(html, -1)); n != 6 {
		t.Errorf("%d member logos, want 6 (five cards and the default photo)", n)
	}
	for _, p := range testReport.Pages {
		if p.URL == "/members-profile" && (p.Images < 4*1024 || p.Images > BudgetImages) {
			t.Errorf("/members-profile weighs %d bytes of images", p.Images)
		}
	}
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
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

// TestKeyFiguresFromTheDatabase: the member count read from the API's
// database (build --db) joins the figures of data/ from its minimum in
// data/site.json; a figure below its minimum is left out, and so is one
// keyFigures.show does not name.
func TestKeyFiguresFromTheDatabase(t *testing.T) {
	site := data.Site()
	for _, c := range []struct {
		name    string
		members int
		year    int
		minimum map[string]int
		show    []string
		want    map[string]int
	}{
		{"a network of members", 1234, 2026, nil, nil, map[string]int{"members": 1234, "states": 15, "cities": 33, "routes": 15, "years": 15}},
		{"too few members to say", 12, 2026, nil, nil, map[string]int{"states": 15, "cities": 33, "routes": 15, "years": 15}},
		{"the first year", 0, 2012, nil, nil, map[string]int{"states": 15, "cities": 33, "routes": 15}},
		{"a higher bar", 1234, 2026, map[string]int{"members": 5000, "cities": 40}, nil, map[string]int{"states": 15, "routes": 15, "years": 15}},
		{"fewer figures named", 1234, 2026, nil, []string{"members", "years"}, map[string]int{"members": 1234, "years": 15}},
	} {
		s := site
		if c.minimum != nil {
			s.KeyFigures.Minimum = c.minimum
		}
		if c.show != nil {
			s.KeyFigures.Show = c.show
		}
		got, err := keyFigures("..", s, map[string]int{"members": c.members}, c.year)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: figures %v, want %v", c.name, got, c.want)
		}
	}
}

// TestPhotoWidthsDoNotDependOnTheCache: a photo's widths come out the same
// bytes whether the cache held none of them or only the widest (each width
// is scaled from the next wider one, so a missing one is scaled down the
// whole cascade, not from the source).
func TestPhotoWidthsDoNotDependOnTheCache(t *testing.T) {
	source := filepath.Join("..", "data", "images", "members", "deccan-cargo-movers-photo.png")
	widths := func() []photoFile {
		var ws []photoFile
		for _, w := range []int{320, 480, 640} {
			ws = append(ws, photoFile{name: fmt.Sprintf("photo-%d.webp", w), sum: "test", width: w})
		}
		return ws
	}
	clean, err := encodePhoto(source, widths(), NewRenderCache())
	if err != nil {
		t.Fatal(err)
	}
	cache := NewRenderCache()
	widest := widths()[2]
	cache.Drawn[drawKey("photo", widest.name, widest.sum)] = drawnFile{widest.name, clean[widest.name]}
	partial, err := encodePhoto(source, widths(), cache)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range clean {
		if !bytes.Equal(b, partial[name]) {
			t.Errorf("%s: %d bytes with an empty cache, %d other bytes with the widest cached", name, len(b), len(partial[name]))
		}
	}
}
