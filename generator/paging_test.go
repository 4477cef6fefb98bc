package generator

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"freightsite/data"
	"freightsite/internal/testkit"
)

// archiveBuilt is the site built with trickyArchive (45 items: three
// pages of the feed) as its news.
var archiveBuilt = &sharedBuild{news: trickyArchive}

func archiveBuild(t *testing.T) string {
	dist, _ := archiveBuilt.get(t)
	return dist
}

// TestEveryItemIsReachedByLinks follows the links between the pages of
// the feed without JavaScript, from /news-feed, in every language: the
// archive's pages are numbered from the oldest (page 1 the oldest 20, page
// 3 the newest 5), each listing its items newest first within 20 KB of
// gzip HTML; /news-feed lists the newest 20 and leads to page 2, each page
// links the one before it (older) and after it (newer; /news-feed after
// the newest), and every item of the archive is linked (its page, or its
// source for an item that opens it).
func TestEveryItemIsReachedByLinks(t *testing.T) {
	dist, report := archiveBuilt.get(t)
	items := trickyArchive() // newest first
	weights := map[string]PageWeight{}
	for _, p := range report.Pages {
		weights[p.URL] = p
	}
	reTitle := regexp.MustCompile(`<h2 class="news-title"[^>]*><a href="([^"]*)"`)
	link := func(html, rel string) string {
		if m := regexp.MustCompile(`<a href="([^"]*)" rel="` + rel + `">`).FindStringSubmatch(html); m != nil {
			return m[1]
		}
		return ""
	}
	for _, l := range langs {
		feed := localePath(l.prefix, feedRoute)
		page := func(n int) string {
			if n == 0 {
				return feed
			}
			return localePath(l.prefix, archiveRoute(n))
		}
		// What each page should list, newest first, and link.
		want := map[string][]NewsItem{feed: items[:newsPageSize]}
		newer := map[string]string{feed: "", page(3): feed, page(2): page(3), page(1): page(2)}
		older := map[string]string{feed: page(2), page(3): page(2), page(2): page(1), page(1): ""}
		for n := 1; n <= 3; n++ {
			want[page(n)] = items[max(0, len(items)-n*newsPageSize) : len(items)-(n-1)*newsPageSize]
		}
		seen, visited := map[string]bool{}, map[string]bool{}
		for queue := []string{feed}; len(queue) > 0; queue = queue[1:] {
			url := queue[0]
			if visited[url] {
				continue
			}
			visited[url] = true
			html := readFile(t, filepath.Join(dist, filepath.FromSlash(strings.TrimPrefix(url, "/")), "index.html"))
			if w, ok := weights[url]; !ok || w.HTML > 20*1024 || w.HTML == 0 {
				t.Errorf("%s: %d bytes of gzip HTML, want at most 20 KB", url, w.HTML)
			}
			list := html[strings.Index(html, `<ul class="news-list">`):]
			list = list[:strings.Index(list, "</ul>")]
			var listed, wanted []string
			for _, m := range reTitle.FindAllStringSubmatch(list, -1) {
				listed = append(listed, m[1])
				seen[m[1]] = true
			}
			for _, it := range want[url] {
				if own := localePath(l.prefix, itemRoute(it.ID)); it.RedirectToSource {
					wanted = append(wanted, escapeText(it.URL))
				} else {
					wanted = append(wanted, own)
				}
			}
			if !slices.Equal(listed, wanted) {
				t.Errorf("%s lists %v, want %v", url, listed, wanted)
			}
			if prev, next := link(html, "prev"), link(html, "next"); prev != newer[url] || next != older[url] {
				t.Errorf("%s links newer %q and older %q, want %q and %q", url, prev, next, newer[url], older[url])
			}
			for _, next := range []string{link(html, "prev"), link(html, "next")} {
				if next != "" {
					queue = append(queue, next)
				}
			}
		}
		if len(visited) != 4 {
			t.Errorf("%s: the links reach %d pages of the feed, want 4", l.code, len(visited))
		}
		for _, it := range items {
			own := localePath(l.prefix, itemRoute(it.ID))
			if !seen[own] && !seen[escapeText(it.URL)] {
				t.Errorf("%s: item %d is linked from no page of the feed", l.code, it.ID)
			}
			if _, err := os.Stat(filepath.Join(dist, filepath.FromSlash(strings.TrimPrefix(own, "/")), "index.html")); err != nil {
				t.Errorf("item %d has no page in %s: %v", it.ID, l.code, err)
			}
		}
	}
}

// TestServeFeedPages: serve answers the archive's pages in every
// language and 404 for pages past the last, page 0 and numbers written
// otherwise.
func TestServeFeedPages(t *testing.T) {
	h, err := Site(archiveBuild(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := testkit.Serve(t, h)
	for path, status := range map[string]int{
		"/news-feed": 200, "/news-feed/page/1": 200, "/news-feed/page/2": 200, "/hi/news-feed/page/3": 200, "/ma/news-feed/page/1": 200,
		"/news-feed/page/4": 404, "/news-feed/page/0": 404, "/news-feed/page/02": 404, "/hi/news-feed/page/-2": 404, "/news-feed/page/": 404,
		"/news-feed/news/100": 200, "/hi/news-feed/news/56": 200, "/news-feed/news/55": 404,
	} {
		if resp, _ := testkit.Get(t, srv+path); resp.StatusCode != status {
			t.Errorf("%s: %d, want %d", path, resp.StatusCode, status)
		}
	}
}

// TestNewsRSSFeeds: each language has an RSS 2.0 feed of its newest 50
// items (all 45 here), valid XML whatever the items hold, each item with
// its own page as link, newest first; the news pages link it.
func TestNewsRSSFeeds(t *testing.T) {
	dist := archiveBuild(t)
	items := trickyArchive()
	for _, l := range langs {
		raw, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(strings.TrimPrefix(localePath(l.prefix, "/"+rssFile), "/"))))
		if err != nil {
			t.Fatal(err)
		}
		var rss struct {
			XMLName xml.Name `xml:"rss"`
			Version string   `xml:"version,attr"`
			Channel struct {
				Title    string `xml:"title"`
				Language string `xml:"language"`
				Items    []struct {
					Title string `xml:"title"`
				} `xml:"item"`
			} `xml:"channel"`
		}
		if err := xml.Unmarshal(raw, &rss); err != nil {
			t.Fatalf("%s feed: %v", l.code, err)
		}
		var links []string
		for _, m := range regexp.MustCompile(`<link>([^<]*)</link>`).FindAllStringSubmatch(string(raw), -1)[1:] {
			links = append(links, m[1])
		}
		want := make([]string, len(items))
		for i, it := range items {
			want[i] = testBase + localePath(l.prefix, itemRoute(it.ID))
		}
		if rss.Version != "2.0" || rss.Channel.Language != l.htmlLang || len(rss.Channel.Items) != len(items) || !slices.Equal(links, want) {
			t.Errorf("%s feed: version %q, language %q, links %v", l.code, rss.Version, rss.Channel.Language, links)
		}
		for _, d := range regexp.MustCompile(`<pubDate>([^<]*)</pubDate>`).FindAllStringSubmatch(string(raw), -1) {
			if _, err := time.Parse(time.RFC1123Z, d[1]); err != nil {
				t.Errorf("%s feed: pubDate %q", l.code, d[1])
			}
		}
		for _, page := range []string{"/news-feed", "/news-feed/page/2", itemRoute(100)} {
			html := readFile(t, filepath.Join(dist, filepath.FromSlash(strings.TrimPrefix(localePath(l.prefix, page), "/")), "index.html"))
			if !strings.Contains(html, `type="application/rss+xml"`) || !strings.Contains(html, `href="`+localePath(l.prefix, "/"+rssFile)+`"`) {
				t.Errorf("%s does not link the %s feed", localePath(l.prefix, page), l.code)
			}
		}
	}
}

// TestSitemapIndex: past the sitemap's limit of addresses the sitemap is
// an index of sitemaps that together list every page once.
func TestSitemapIndex(t *testing.T) {
	defer func(n int) { maxSitemapURLs = n }(maxSitemapURLs)
	maxSitemapURLs = 60
	var routes []routeInfo
	for _, r := range []string{"/", "/home", "/faq", "/news-feed/news/:newsId"} {
		routes = append(routes, routeInfo{Path: r, Canonical: strings.Replace(r, "/home", "/", 1)})
	}
	var news []string
	for i := range 30 {
		news = append(news, itemRoute(int64(i+1)))
	}
	l := data.Site().Languages
	files := sitemaps(testBase, l, routes, news)
	var index struct {
		Sitemaps []struct {
			Loc string `xml:"loc"`
		} `xml:"sitemap"`
	}
	if err := xml.Unmarshal(files["sitemap.xml"], &index); err != nil || len(index.Sitemaps) != 2 {
		t.Fatalf("sitemap.xml: %v, %d sitemaps, want an index of 2", err, len(index.Sitemaps))
	}
	locs := map[string]int{}
	for i, s := range index.Sitemaps {
		name := "sitemap-" + strconv.Itoa(i+1) + ".xml"
		if s.Loc != testBase+"/"+name {
			t.Errorf("index lists %s, want %s", s.Loc, name)
		}
		var set struct {
			URLs []struct {
				Loc string `xml:"loc"`
			} `xml:"url"`
		}
		if err := xml.Unmarshal(files[name], &set); err != nil || len(set.URLs) > maxSitemapURLs {
			t.Fatalf("%s: %v, %d addresses", name, err, len(set.URLs))
		}
		for _, u := range set.URLs {
			locs[u.Loc]++
		}
	}
	if len(locs) != 3*(2+30) {
		t.Errorf("the sitemaps list %d addresses, want %d", len(locs), 3*32)
	}
	for loc, n := range locs {
		if n != 1 {
			t.Errorf("%s listed %d times", loc, n)
		}
	}
}

// TestNewsRebuildFillsOnlyWhatChanged: into one output, adding an item
// fills its pages, the pages of the item before it (they link it),
// /news-feed and the archive's newest page, the one it joins; when it
// begins a new page, that page and the one that was the newest (it links
// the new one); translating an item fills its page in that language, the
// pages of the items beside it in that language (they link it by its
// title) and the page of the archive of that language listing it;
// nothing else.
func TestNewsRebuildFillsOnlyWhatChanged(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	items := trickyArchive() // 45: pages 1 and 2 of 20, page 3 of 5
	build := func() *Report {
		t.Helper()
		r, err := Build(Options{Root: "..", Out: out, BaseURL: testBase, Year: 2030, News: fixtureArchive(items)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	build()
	if r := build(); len(r.Rendered) != 0 {
		t.Errorf("a rebuild with nothing changed filled %v", r.Rendered)
	}
	add := func(id int64) {
		items = append([]NewsItem{{ID: id, Title: "Added " + strconv.FormatInt(id, 10), Content: "A new item.", PostedAt: items[0].PostedAt.Add(time.Hour)}}, items...)
	}
	filled := func(routes ...string) []string {
		var want []string
		for _, l := range langs {
			for _, r := range routes {
				want = append(want, localePath(l.prefix, r))
			}
		}
		return want
	}
	add(200)
	if r, want := build(), filled(itemRoute(200), itemRoute(items[1].ID), feedRoute, archiveRoute(3)); !sameSet(r.Rendered, want) {
		t.Errorf("after an item was added, %v were made again, want %v", r.Rendered, want)
	}
	for id := range int64(14) {
		add(201 + id)
	}
	build() // 60 items: page 3 is full
	add(300)
	if r, want := build(), filled(itemRoute(300), itemRoute(items[1].ID), feedRoute, archiveRoute(3), archiveRoute(4)); !sameSet(r.Rendered, want) {
		t.Errorf("after an item began a page, %v were made again, want %v", r.Rendered, want)
	}
	if html := readFile(t, filepath.Join(out, "news-feed", "page", "4", "index.html")); !strings.Contains(html, ">Added 300</a>") || strings.Count(html, `<li class="news-item`) != 1 {
		t.Error("the new page 4 does not list the one item added")
	}
	// Item 79, the 38th newest of 61, is on the archive's page 2 (the
	// 24th oldest); it has a Hindi text and no Marathi one.
	for i := range items {
		if items[i].ID == 79 {
			items[i].Texts["ma"] = NewsText{"नवे शीर्षक", "नवा मजकूर."}
		}
	}
	r := build()
	if want := []string{"/ma/news-feed/news/80", "/ma/news-feed/news/79", "/ma/news-feed/news/78", "/ma/news-feed/page/2"}; !sameSet(r.Rendered, want) {
		t.Errorf("after an item was translated, %v were made again, want %v", r.Rendered, want)
	}
	if html := readFile(t, filepath.Join(out, "ma", "news-feed", "news", "79", "index.html")); !strings.Contains(html, "नवे शीर्षक</h1>") {
		t.Error("the translated item's page does not show its new title")
	}
}

func sameSet(a, b []string) bool {
	return slices.Equal(sortedCopy(a), sortedCopy(b))
}

// TestNewsItemThatCannotBeWrittenFailsTheBuild: an item of the archive
// without what its page needs fails the build, which names it, and
// publishes nothing.
func TestNewsItemThatCannotBeWrittenFailsTheBuild(t *testing.T) {
	at := time.Date(2026, 11, 18, 4, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		bad  NewsItem
		want string
	}{
		{"no content", NewsItem{ID: 41, Title: "Empty", PostedAt: at}, "news item 41: no title or no content"},
		{"twice", NewsItem{ID: 7, Title: "Again", Content: "Same id.", PostedAt: at}, "news item 7: the archive gives it twice"},
		{"no id", NewsItem{Title: "Nameless", Content: "No id.", PostedAt: at}, `news item "Nameless": id 0`},
		{"half a translation", NewsItem{ID: 42, Title: "Half", Content: "Half.", PostedAt: at, Texts: map[string]NewsText{"hi": {Title: "आधा"}}}, "news item 42: its hi text"},
	} {
		out := filepath.Join(t.TempDir(), "dist")
		items := append(newsFixture(), c.bad)
		_, err := Build(Options{Root: "..", Out: out, BaseURL: testBase, Year: 2030, News: fixtureArchive(items), Renderer: RendererGoja})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming the item (%q)", c.name, err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a failed build published %s", c.name, out)
		}
	}
}

// TestAnArchiveOf10000Items walks an archive of 10,000 items, many posted
// at the same time, twice: each gives every item its page in every
// language, /news-feed and 500 pages of the archive, in the same order
// both times, each page's items the next 20 of the archive; a sample of
// the pages is filled.
func TestAnArchiveOf10000Items(t *testing.T) {
	at := time.Date(2026, 11, 18, 4, 0, 0, 0, time.UTC)
	items := make([]NewsItem, 10_000)
	for i := range items {
		items[i] = NewsItem{ID: int64(len(items) - i), Title: "Item " + strconv.Itoa(i), Content: "Text of item " + strconv.Itoa(i) + ".", PostedAt: at.Add(-time.Duration(i/10) * time.Hour)}
	}
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
	walk := func() []string {
		var jobs []string
		n := 0
		routes, err := p.walkNews(shapes, func(j newsJob) error {
			jobs = append(jobs, j.lang+" "+j.route)
			if n++; n%997 == 0 || strings.HasSuffix(j.route, "/page/500") {
				pg, _, err := j.make()
				if err != nil {
					return err
				}
				if strings.HasPrefix(j.route, "/news-feed/page/") && strings.Count(pg.Body, `<li class="news-item`) != newsPageSize {
					t.Errorf("%s in %s lists %d items", j.route, j.lang, strings.Count(pg.Body, `<li class="news-item`))
				}
			}
			return nil
		}, func(string, []newsEntry) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if len(routes) != len(items)+501 {
			t.Errorf("%d routes, want %d", len(routes), len(items)+501)
		}
		return jobs
	}
	first, second := walk(), walk()
	if len(first) != 3*(len(items)+501) || !slices.Equal(first, second) {
		t.Errorf("the walks gave %d and %d pages, want %d, the same both times", len(first), len(second), 3*(len(items)+501))
	}
}
