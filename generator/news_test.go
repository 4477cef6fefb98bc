package generator

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"

	"freightsite/internal/testkit"
)

// newsFixture is a news archive: item 3 has Hindi and Marathi texts,
// item 7 only English.
func newsFixture() []NewsItem {
	return []NewsItem{
		{ID: 3, Title: "Toll rates revised on the Mumbai–Pune expressway", Content: "New toll rates apply from April. Trucks with more than three axles pay more per trip, and the night discount for empty trucks ends.\n\nMonthly passes bought before April stay valid until they run out.",
			PostedAt: time.Date(2026, 11, 18, 4, 0, 0, 0, time.UTC), Texts: map[string]NewsText{
				"hi": {"मुंबई–पुणे एक्सप्रेसवे पर टोल दरें बदलीं", "अप्रैल से नई टोल दरें लागू होंगी।\n\nअप्रैल से पहले खरीदे गए मासिक पास चलते रहेंगे।"},
				"ma": {"मुंबई–पुणे द्रुतगती मार्गावरील टोल दर बदलले", "एप्रिलपासून नवे टोल दर लागू होतील."},
			}},
		{ID: 7, Title: "Diesel prices steady", Content: "Prices unchanged since May.", PostedAt: time.Date(2026, 11, 12, 20, 0, 0, 0, time.UTC)},
	}
}

// fixtureArchive gives items (newest first) as the build reads an archive.
func fixtureArchive(items []NewsItem) *NewsArchive {
	return &NewsArchive{
		Count: func() (int, error) { return len(items), nil },
		Each: func(each func(NewsItem) error) error {
			for _, it := range items {
				if err := each(it); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// sharedBuild is a build of the site with an archive of news that the
// tests of a file share: the first test that asks for it builds it.
type sharedBuild struct {
	news   func() []NewsItem
	once   sync.Once
	dist   string
	report *Report
	err    error
}

// get is the published build's folder and its report.
func (b *sharedBuild) get(t *testing.T) (string, *Report) {
	t.Helper()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "freightsite-news-")
		if err != nil {
			b.err = err
			return
		}
		b.dist = filepath.Join(dir, "dist")
		b.report, b.err = Build(Options{Root: "..", Out: b.dist, BaseURL: testBase, Year: 2030, News: fixtureArchive(b.news())})
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.dist, b.report
}

// newsBuilt is the site built with newsFixture as its snapshot.
var newsBuilt = &sharedBuild{news: newsFixture}

func newsBuild(t *testing.T) string {
	dist, _ := newsBuilt.get(t)
	return dist
}

func readNewsDist(t *testing.T, name string) string { return testkit.ReadFile(t, newsBuild(t), name) }

var (
	reTitle       = regexp.MustCompile(`<title>([^<]*)</title>`)
	reDescription = regexp.MustCompile(`<meta name="description" content="([^"]*)">`)
)

// TestNewsItemPages: each item of the snapshot has a page in every
// language with its own title and description, its title and content in
// the HTML (no JavaScript needed), in the page's language or in English
// marked lang="en"; the sitemap lists them.
func TestNewsItemPages(t *testing.T) {
	var m manifest
	if err := json.Unmarshal([]byte(readNewsDist(t, manifestFile)), &m); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(m.Routes, "/news-feed/news/:newsId") || m.NewsItems != 2 || m.FeedPages != 0 {
		t.Errorf("routes.json lacks the news item route or counts %d items on %d pages of the archive, want 2 on none (the feed lists them)", m.NewsItems, m.FeedPages)
	}
	for _, c := range []struct {
		file, title, description, h1, body string
	}{
		{"news-feed/news/3/index.html", "Toll rates revised on the Mumbai–Pune expressway | BharatFreight Network",
			"New toll rates apply from April. Trucks with more than three axles pay more per trip, and the night discount for empty trucks ends. Monthly passes bought…",
			`<h1 tabindex="-1">Toll rates revised on the Mumbai–Pune expressway</h1>`, "<p>Monthly passes bought before April stay valid until they run out.</p>"},
		{"hi/news-feed/news/3/index.html", "मुंबई–पुणे एक्सप्रेसवे पर टोल दरें बदलीं | BharatFreight Network",
			"अप्रैल से नई टोल दरें लागू होंगी। अप्रैल से पहले खरीदे गए मासिक पास चलते रहेंगे।",
			`<h1 tabindex="-1">मुंबई–पुणे एक्सप्रेसवे पर टोल दरें बदलीं</h1>`, "<p>अप्रैल से पहले खरीदे गए मासिक पास चलते रहेंगे।</p>"},
		{"ma/news-feed/news/7/index.html", "Diesel prices steady | BharatFreight Network", "Prices unchanged since May.",
			`<h1 tabindex="-1" lang="en">Diesel prices steady</h1>`, `<div class="news-body" lang="en"><p>Prices unchanged since May.</p></div>`},
	} {
		html := readNewsDist(t, c.file)
		if got := reTitle.FindStringSubmatch(html); got == nil || got[1] != c.title {
			t.Errorf("%s: title %q, want %q", c.file, got, c.title)
		}
		if got := reDescription.FindStringSubmatch(html); got == nil || got[1] != c.description {
			t.Errorf("%s: description %q, want %q", c.file, got, c.description)
		}
		if !strings.Contains(html, c.h1) || !strings.Contains(html, c.body) {
			t.Errorf("%s lacks %s and %s", c.file, c.h1, c.body)
		}
		if strings.Contains(html, `aria-busy="true"`) {
			t.Errorf("%s is written in its loading state", c.file)
		}
	}
	if html := readNewsDist(t, "hi/news-feed/news/3/index.html"); !strings.Contains(html, `<link rel="canonical" href="`+testBase+`/hi/news-feed/news/3">`) ||
		!strings.Contains(html, `hreflang="mr" href="`+testBase+`/ma/news-feed/news/3"`) || !strings.Contains(html, `<a href="/ma/news-feed/news/3" hrefLang="mr"`) {
		t.Errorf("hi/news-feed/news/3: canonical, alternates or language links do not name the item's page")
	}
	sitemap := readNewsDist(t, "sitemap.xml")
	for _, want := range []string{"<loc>" + testBase + "/news-feed/news/3</loc>", "<loc>" + testBase + "/ma/news-feed/news/7</loc>"} {
		if !strings.Contains(sitemap, want) {
			t.Errorf("sitemap lacks %s", want)
		}
	}
}

// TestNewsFeedFromTheArchive: the feed lists the archive's items in its
// HTML, English ones marked lang="en", each posted on its date in the
// page's language (a "days ago" written at build time would go stale).
func TestNewsFeedFromTheArchive(t *testing.T) {
	html := readNewsDist(t, "hi/news-feed/index.html")
	for _, want := range []string{
		`<a href="/hi/news-feed/news/3">मुंबई–पुणे एक्सप्रेसवे पर टोल दरें बदलीं</a>`,
		`<h2 class="news-title" lang="en"><a href="/hi/news-feed/news/7">Diesel prices steady</a></h2>`,
		`<time dateTime="2026-11-18T04:00:00Z">18 नवंबर 2026</time>`,
		`<time dateTime="2026-11-12T20:00:00Z">13 नवंबर 2026</time>`, // 01:30 on the 13th in India
		"2 समाचार",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("hi/news-feed lacks %s", want)
		}
	}
	if strings.Contains(html, `rel="preload" href="/api/news`) {
		t.Error("a feed with its news in the page still preloads /api/news as its content")
	}
	if !strings.Contains(html, `<link rel="alternate" type="application/rss+xml" title="BharatFreight Network समाचार (RSS)" href="/hi/news-feed/feed.xml">`) {
		t.Error("hi/news-feed does not link its RSS feed")
	}
}

// TestServeNewsItems: serve answers an item's page as the build wrote it,
// the shell for an item added after the build, and 404 for an unknown or
// malformed id, also where the build wrote a page for an item since
// deleted; without the database only the build's pages answer.
func TestServeNewsItems(t *testing.T) {
	exists := map[int64]bool{3: true, 17: true}
	for _, c := range []struct {
		lookup      bool
		path        string
		status      int
		has, hasNot string
	}{
		{true, "/news-feed/news/3", 200, "Toll rates revised on the Mumbai–Pune expressway</h1>", ""},
		{true, "/hi/news-feed/news/3", 200, "मुंबई–पुणे एक्सप्रेसवे पर टोल दरें बदलीं</h1>", ""},
		{true, "/ma/news-feed/news/17", 200, `aria-busy="true"`, ""}, // added after the build: the shell
		{true, "/news-feed/news/7", 404, "Page Not Found", "Diesel"}, // deleted after the build
		{true, "/hi/news-feed/news/999", 404, "पृष्ठ नहीं मिला", ""},
		{true, "/news-feed/news/abc", 404, "Page Not Found", ""},
		{true, "/news-feed/news/_", 404, "Page Not Found", ""},
		{true, "/news-feed/news/03", 404, "Page Not Found", ""},
		{true, "/news-feed/news/-3", 404, "Page Not Found", ""},
		{false, "/news-feed/news/7", 200, "Diesel prices steady</h1>", ""},
		{false, "/ma/news-feed/news/17", 404, "पान सापडले नाही", ""},
	} {
		var lookup NewsLookup
		if c.lookup {
			lookup = func(_ context.Context, id int64) (bool, error) { return exists[id], nil }
		}
		h, err := Site(newsBuild(t), lookup)
		if err != nil {
			t.Fatal(err)
		}
		srv := testkit.Serve(t, h)
		resp, body := testkit.Get(t, srv+c.path)
		if resp.StatusCode != c.status || !strings.Contains(body, c.has) || (c.hasNot != "" && strings.Contains(body, c.hasNot)) {
			t.Errorf("%s (database %v): %d, want %d with %q", c.path, c.lookup, resp.StatusCode, c.status, c.has)
		}
	}
}

// trickyArchive is an archive that tests the filling of the news pages:
// 45 items (three pages of the feed, the last of 5), items posted at the
// same time, markup, control characters, white space of every kind,
// characters outside the BMP, long titles and contents, items that open
// their source, items translated into one language only.
func trickyArchive() []NewsItem {
	at := time.Date(2026, 11, 18, 20, 0, 0, 0, time.UTC)
	texts := []NewsText{
		{`<b>Tolls & "fees"</b> rise 'again'`, "First line\n\nSecond <i>paragraph</i> & more\n \n\u00a0\nThird\u2028line\n\n\n"},
		{"Control\x01characters\x7f\u0085 in a title", "Tab\tand\x00nul\x1b[31m and a form feed\f.\n\n\ufeff\n\nLast"},
		{strings.Repeat("A very long headline about freight corridors ", 4), strings.Repeat("word ", 60) + strings.Repeat("x", 200) + " tail"},
		{"Emoji 🚚 and Devanagari मालवाहतूक", "🚚🚛 " + strings.Repeat("मालवाहतूक ", 40)},
		{"Short", "a\u2003b\u3000c"},
		{"Spaces", "  leading and trailing  \n\n  second   "},
	}
	var items []NewsItem
	for i := range 45 {
		t := texts[i%len(texts)]
		it := NewsItem{ID: int64(100 - i), Title: t.Title, Content: t.Content, PostedAt: at.Add(-time.Duration(i/3) * time.Hour)}
		if i%4 == 1 {
			it.URL, it.RedirectToSource = `https://news.example.in/a?b=1&c="2"`, i%8 == 1
		}
		switch i % 3 {
		case 0:
			it.Texts = map[string]NewsText{"hi": texts[(i+1)%len(texts)]}
		case 1:
			it.Texts = map[string]NewsText{"hi": {"हिंदी शीर्षक", "पहला\n\nदूसरा"}, "ma": {"मराठी शीर्षक", strings.Repeat("लांब ", 80)}}
		}
		items = append(items, it)
	}
	return items
}

// TestNewsPagesMatchAWholeRender fills every page of an archive from its
// shapes and renders each whole in the server bundle (renderNews): they
// are the same page, body, title, description, structured data and all.
func TestNewsPagesMatchAWholeRender(t *testing.T) {
	items := trickyArchive()
	in, err := prepare(Options{Root: "..", BaseURL: testBase, Year: 2030, News: fixtureArchive(items)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundle(in.root, in.site.Languages, in.raw, in.pageImages(), "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPipeline(in, b, NewRenderCache(), func(p *pipeline) (engine, error) { return newRenderer(p.in.root, p.b.server, p.globals) })
	if err != nil {
		t.Fatal(err)
	}
	shapes := newNewsShapes(p)
	e, err := p.renderer()
	if err != nil {
		t.Fatal(err)
	}
	r := e.(*renderer)
	pages := feedPages(len(items))
	var compared int
	routes, err := p.walkNews(shapes, func(j newsJob) error {
		filled, _, err := j.make()
		if err != nil {
			return err
		}
		// What the page shows, in the archive's order: an item's page its
		// item and the items posted just after and before it (null at
		// either end), a page of the feed its items.
		var list []string
		if strings.HasPrefix(j.route, "/news-feed/news/") {
			id, _ := strconv.ParseInt(strings.TrimPrefix(j.route, "/news-feed/news/"), 10, 64)
			for i, it := range items {
				if it.ID == id {
					list = []string{it.entry(j.lang, "en").json(), "null", "null"}
					if i > 0 {
						list[1] = items[i-1].entry(j.lang, "en").json()
					}
					if i < len(items)-1 {
						list[2] = items[i+1].entry(j.lang, "en").json()
					}
				}
			}
		} else {
			// /news-feed its newest newsPageSize, page n of the archive
			// the n-th newsPageSize from the oldest.
			from, to := 0, min(len(items), newsPageSize)
			if j.route != feedRoute {
				number, _ := strconv.Atoi(strings.TrimPrefix(j.route, "/news-feed/page/"))
				from, to = max(0, len(items)-number*newsPageSize), len(items)-(number-1)*newsPageSize
			}
			for _, it := range items[from:to] {
				e := it.entry(j.lang, "en")
				if j.route == feedRoute {
					e = e.capped()
				}
				list = append(list, e.json())
			}
		}
		whole := wholeNewsPage(t, r, j.route, j.lang, list, pages)
		for _, c := range [][3]string{
			{"body", filled.Body, whole.Body}, {"title", filled.Title, whole.Title}, {"description", filled.Description, whole.Description},
			{"structured data", mustJSON(t, filled.StructuredData), mustJSON(t, whole.StructuredData)},
			{"islands", strings.Join(filled.Islands, ","), strings.Join(whole.Islands, ",")}, {"og:type", filled.OGType, whole.OGType},
		} {
			if c[1] != c[2] {
				t.Errorf("%s in %s: the filled %s differs from the whole render:\nfilled: %.300q\nwhole:  %.300q", j.route, j.lang, c[0], firstDifference(c[1], c[2]), firstDifference(c[2], c[1]))
			}
		}
		compared++
		return nil
	}, func(string, []newsEntry) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if want := (len(items) + 1 + pages) * 3; compared != want || len(routes) != len(items)+1+pages {
		t.Errorf("compared %d pages (%d routes), want %d", compared, len(routes), want)
	}
}

// wholeNewsPage renders a page of the news archive whole (renderNews).
func wholeNewsPage(t *testing.T, r *renderer, route, lang string, list []string, pages int) page {
	t.Helper()
	v := <-r.pool
	defer func() { r.pool <- v }()
	fn, _ := goja.AssertFunction(v.rt.Get("Site").ToObject(v.rt).Get("renderNews"))
	res, err := fn(goja.Undefined(), v.rt.ToValue(route), v.rt.ToValue(lang), v.rt.ToValue(2030), v.rt.ToValue("["+strings.Join(list, ",")+"]"), v.rt.ToValue(pages))
	if err != nil {
		t.Fatalf("rendering %s in %s whole: %v", route, lang, err)
	}
	var p page
	if err := v.rt.ExportTo(res, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLangTextsNameWhatIsMissing: a language's texts without a text the
// Go side takes fail the build naming it.
func TestLangTextsNameWhatIsMissing(t *testing.T) {
	raw, err := os.ReadFile("../locales/hi.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readLangTexts(raw, "Site"); err != nil {
		t.Fatalf("locales/hi.json: %v", err)
	}
	var texts map[string]any
	if err := json.Unmarshal(raw, &texts); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ section, key, want string }{
		{"home", "heroTitle", "home.heroTitle"},
		{"newsFeed", "month", "newsFeed.month.1"},
		{"", "offline", "offline texts"},
	} {
		without := maps.Clone(texts)
		if c.section == "" {
			delete(without, c.key)
		} else {
			section := maps.Clone(without[c.section].(map[string]any))
			delete(section, c.key)
			without[c.section] = section
		}
		b, _ := json.Marshal(without)
		if _, err := readLangTexts(b, "Site"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("texts without %s.%s: %v, want an error naming %s", c.section, c.key, err, c.want)
		}
	}
}
