package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"freightsite/data"
)

// Browser tests of the news feed and the news detail page, on the seed
// news loaded into the fresh test database (data/news.json), which the
// harness's build wrote as its news archive.

// The news feed as a visitor reads it: its items (the list items of the
// page's main part) and, in an item, its title (a heading), its text (the
// paragraph under the title) and when it was posted (the paragraph with
// the time); the title links of every item; an item's page (the article),
// whose text is its paragraphs that are not links.
const (
	newsItems    = `allByRole('listitem', undefined, byRole('main'))`
	newsTitle    = `(item => byRole('heading', undefined, item))`
	newsText     = `(item => byRole('paragraph', undefined, item))`
	newsPosted   = `(item => allByRole('paragraph', undefined, item).find(p => byRole('time', undefined, p)))`
	newsLinks    = newsItems + `.map(item => byRole('link', undefined, ` + newsTitle + `(item)))`
	newsArticle  = `byRole('article')`
	newsBody     = `allByRole('paragraph', undefined, byRole('article')).filter(p => !byRole('link', undefined, p) && !p.querySelector('time'))`
	articleShown = newsArticle + `?.getAttribute('aria-busy') === 'false'`
)

// newsLoaded is true once the feed shows the API's answer, which replaces
// the build's items: its times read "... ago" instead of a date.
const newsLoaded = newsItems + `.length > 0 && document.querySelector('[data-island=NewsList]').dataset.hydrated === 'true' && !/\d{4}/.test(` + newsPosted + `(` + newsItems + `[0]).textContent)`

func TestNewsFeed(t *testing.T) {
	p := newPage(t)
	p.open("/news-feed")
	p.waitFor(newsLoaded)
	if got := eval[string](p, `document.querySelector('h1').textContent`); got != "News Feed" {
		t.Errorf("heading %q", got)
	}
	if eval[bool](p, byRole("navigation", text(t, "en", "nav.language"))+` !== null`) {
		t.Error("the news feed shows the language selector")
	}
	if got := eval[string](p, `document.querySelector('input[type=search]').placeholder`); got != "Search.." {
		t.Errorf("placeholder %q", got)
	}
	if got := eval[[]string](p, newsItems+`.slice(0, 4).map(li => getComputedStyle(li).backgroundColor)`); len(got) != 4 || got[0] != got[2] || got[1] != got[3] || got[0] == got[1] {
		t.Errorf("rows not styled alternately (backgrounds %v)", got)
	}
	first := newsItems + `[0]`
	preview := eval[string](p, newsText+`(`+first+`).textContent`)
	if n := len([]rune(strings.TrimSuffix(preview, "…"))); n != 50 || !strings.HasSuffix(preview, "…") {
		t.Errorf("preview %q: %d characters, want the first 50 and an ellipsis", preview, n)
	}
	// isReadMore starts true: the collapsed text's height is capped.
	limited := `getComputedStyle(` + newsText + `(` + first + `)).maxHeight !== 'none'`
	if !eval[bool](p, limited) {
		t.Error("a collapsed item's text height is not limited")
	}
	readMore := `byRole('button', undefined, ` + first + `)`
	if got := eval[string](p, readMore+`.textContent`); got != text(t, "en", "newsFeed.readMore") {
		t.Errorf("the first item's button reads %q", got)
	}
	p.click(readMore)
	if got := eval[string](p, newsText+`(`+first+`).textContent`); len(got) <= len(preview) {
		t.Errorf("Read More did not expand: %q", got)
	}
	if eval[bool](p, limited) {
		t.Error("the expanded text's height is still limited")
	}
	if got := eval[string](p, readMore+`.getAttribute('aria-expanded')`); got != "true" {
		t.Errorf("aria-expanded %q after Read More", got)
	}
	links := eval[[]map[string]string](p, newsLinks+`.map(a => ({href: a.getAttribute('href'), target: a.target, rel: a.rel}))`)
	var external, internal int
	for _, l := range links {
		switch {
		case l["target"] == "_blank" && strings.HasPrefix(l["href"], "https://") && strings.Contains(l["rel"], "noopener"):
			external++
		case regexp.MustCompile(`^/news-feed/news/\d+$`).MatchString(l["href"]) && l["target"] == "":
			internal++
		default:
			t.Errorf("news link %v", l)
		}
	}
	if external < 1 || internal < 1 {
		t.Errorf("%d source links (new tab), %d item links", external, internal)
	}
	// When each was posted, with the API's rounding.
	if got, api := eval[[]string](p, newsItems+`.map(item => `+newsPosted+`(item).textContent)`), apiTimeAgo(p, "en"); !slices.Equal(got, prefixAll("Posted By ", api)) {
		t.Errorf("meta %q, want the API's timeAgo %q", got, api)
	}
	p.expectAccessible()

	// Each keystroke queries; the query before it is cancelled.
	p.do(chromedp.Evaluate[chromedp.Void](`window.__aborted = 0; const f = window.fetch; window.fetch = (u, o) => { o?.signal?.addEventListener('abort', () => window.__aborted++); return f(u, o); }`))
	p.click(`input[type=search]`)
	p.do(chromedp.KeyEvent("FASTag"))
	p.waitFor(newsItems + `.length === 1`)
	if got := eval[string](p, newsTitle+`(`+newsItems+`[0]).textContent`); !strings.Contains(got, "FASTag") {
		t.Errorf("search FASTag found %q", got)
	}
	if n := eval[int](p, `window.__aborted`); n < 5 {
		t.Errorf("%d requests cancelled while typing 6 characters, want 5", n)
	}
	p.do(chromedp.KeyEvent("zzz"))
	p.waitFor(announced("status") + ` === 'No news matches your search.'`)
	p.expectAccessible()
	p.expectNoConsoleErrors()
}

func TestNewsFeedInHindi(t *testing.T) {
	p := newPage(t)
	p.open("/hi/news-feed")
	p.waitFor(newsLoaded)
	if href := eval[string](p, newsLinks+`.find(a => !a.target).getAttribute('href')`); !strings.HasPrefix(href, "/hi/news-feed/news/") {
		t.Errorf("item link %q is not in Hindi", href)
	}
	postedBy := text(t, "hi", "newsFeed.postedBy") + " "
	got, api := eval[[]string](p, newsItems+`.map(item => `+newsPosted+`(item).textContent)`), apiTimeAgo(p, "hi")
	if !slices.Equal(got, prefixAll(postedBy, api)) || !regexp.MustCompile(` (अभी-अभी|\d+ (मिनट|घंटा|घंटे|दिन|महीना|महीने|साल) पहले)$`).MatchString(got[0]) {
		t.Errorf("meta %q, want Hindi with the API's rounding %q", got, api)
	}
	p.expectNoConsoleErrors()
}

func TestNewsDetail(t *testing.T) {
	p := newPage(t)
	p.open("/news-feed")
	p.waitFor(newsLoaded)
	title := eval[string](p, newsLinks+`.find(a => !a.target).textContent`)
	p.follow(newsLinks + `.find(a => !a.target)`)
	p.waitFor(articleShown)
	if got := eval[string](p, `document.querySelector('h1').textContent`); got != title {
		t.Errorf("detail heading %q, want %q", got, title)
	}
	if n := eval[int](p, newsArticle+`.textContent.length`); n < 200 {
		t.Errorf("detail shows only %d characters", n)
	}
	if got := eval[string](p, `document.title`); !strings.HasPrefix(got, title) {
		t.Errorf("document title %q", got)
	}
	p.expectAccessible()
	p.expectNoConsoleErrors()

	p.open("/ma/news-feed/news/999999")
	p.waitFor(articleShown)
	if !eval[bool](p, `byText("ही बातमी अस्तित्वात नाही किंवा काढून टाकली आहे.", `+newsArticle+`) !== null`) {
		t.Errorf("unknown id: the page reads %q, not that the item does not exist", eval[string](p, newsArticle+`.textContent`))
	}
	p.expectAccessible()
	p.expectNoConsoleErrorsExcept("status of 404")
}

// TestNewsDetailOnAHostWithoutRewrites serves dist/ the way a plain static
// host does (files as they are, 404.html for anything else) with /api/
// passed to the server: /news-feed/news/{id} lands on the not-found page,
// which recognises the path and shows the item.
func TestNewsDetailOnAHostWithoutRewrites(t *testing.T) {
	dist := filepath.Join(work, "dist")
	api, _ := url.Parse(baseURL)
	proxy := httputil.NewSingleHostReverseProxy(api)
	static := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			proxy.ServeHTTP(w, r)
			return
		}
		name := filepath.Join(dist, filepath.FromSlash(r.URL.Path))
		if info, err := os.Stat(name); err == nil && info.IsDir() {
			name = filepath.Join(name, "index.html")
		}
		f, err := os.Open(name)
		if err != nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			nf, _ := os.Open(filepath.Join(dist, "404.html"))
			defer nf.Close()
			io.Copy(w, nf)
			return
		}
		defer f.Close()
		http.ServeContent(w, r, name, modTime(f), f)
	}))
	defer static.Close()

	p := newPage(t)
	p.do(chromedp.Navigate(static.URL + "/news-feed/news/1"))
	p.waitFor(articleShown)
	want := queryString(t, `SELECT title FROM news WHERE id = 1`)
	if got := eval[string](p, `document.querySelector('h1').textContent`); got != want {
		t.Errorf("heading %q, want the item's title %q", got, want)
	}
}

// apiTimeAgo is the timeAgo of each item of GET /api/news?lang=, asked
// from the page.
func apiTimeAgo(p *page, lang string) []string {
	return eval[[]string](p, fmt.Sprintf(`fetch('/api/news?lang=%s').then(r => r.json()).then(list => list.map(i => i.timeAgo))`, lang))
}

func prefixAll(prefix string, list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = prefix + s
	}
	return out
}

func modTime(f *os.File) (t time.Time) {
	if info, err := f.Stat(); err == nil {
		t = info.ModTime()
	}
	return t
}

// TestNewsShowsMarkupAsText: markup in a news item (added with the real
// command) is shown as text in the list and on the item's page, never run.
func TestNewsShowsMarkupAsText(t *testing.T) {
	title := `<img src=x onerror="window.__pwned=1">Markup check`
	out, err := exec.Command(binary, "news", "add", "--db", filepath.Join(work, "site.db"), "--title", title, "--content", `<script>window.__pwned=1</script> body`, "--posted", "2020-01-01T00:00:00Z").CombinedOutput()
	if err != nil {
		t.Fatalf("news add: %v\n%s", err, out)
	}
	id := strings.TrimSpace(strings.TrimPrefix(string(out), "added news item "))
	p := newPage(t)
	p.open("/news-feed")
	p.waitFor(newsLoaded)
	p.click(`input[type=search]`)
	p.do(chromedp.KeyEvent("Markup check"))
	p.waitFor(newsItems + `.length === 1`)
	if got := eval[string](p, newsTitle+`(`+newsItems+`[0]).textContent`); got != title {
		t.Errorf("title shown as %q", got)
	}
	p.open("/news-feed/news/" + id)
	p.waitFor(articleShown)
	if got := eval[string](p, `document.querySelector('h1').textContent`); got != title {
		t.Errorf("detail heading %q", got)
	}
	if eval[bool](p, `window.__pwned === 1 || document.querySelector('main img, main script') !== null`) {
		t.Error("markup from a news item ran or became elements")
	}
}

// addNews runs `freightsite news add` with args on the test database and
// returns what it printed.
func addNews(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(binary, append([]string{"news", "add", "--db", filepath.Join(work, "site.db")}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("news add %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestNewsWithoutJavaScript: with JavaScript off, the feed lists the
// items of the build's snapshot and an item's page shows its title and
// content, with a title and description of its own for search engines,
// in the page's language: every seed item has its Hindi and Marathi
// texts, so no item of the seed shows in English there. (An item without
// the page's language shows in English marked lang="en":
// TestNewsInTheVisitorsLanguage, and the generator's tests.)
func TestNewsWithoutJavaScript(t *testing.T) {
	p := newPage(t)
	if _, err := chromedp.Call(p.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	for _, l := range languagesUnderTest {
		first := queryString(t, `SELECT title FROM news WHERE id = 1`)
		if l.code != "en" {
			first = queryString(t, `SELECT title FROM news_translations WHERE news_id = 1 AND lang = ?`, l.code)
		}
		p.do(chromedp.Navigate(baseURL + l.prefix + "/news-feed"))
		p.waitFor(`document.readyState === 'complete'`)
		if eval[bool](p, `window.dataLayer !== undefined`) {
			t.Fatal("scripts ran: the test would not show what a page without JavaScript shows")
		}
		items := eval[[][2]string](p, newsItems+`.map(item => `+newsTitle+`(item)).map(h => [h.textContent, h.getAttribute('lang') ?? ''])`)
		if len(items) != data.Count("news.json") {
			t.Fatalf("%s/news-feed without JavaScript lists %d items, want the %d of the seed the build saw", l.prefix, len(items), data.Count("news.json"))
		}
		if !slices.Contains(items, [2]string{first, ""}) {
			t.Errorf("%s/news-feed: the first item is not listed as %q in the page's language: %q", l.prefix, first, items)
		}
		if slices.ContainsFunc(items, func(i [2]string) bool { return i[1] != "" }) {
			t.Errorf("%s/news-feed: items not in the page's language: %q", l.prefix, items)
		}
		if eval[bool](p, `document.querySelector('main').textContent.includes('`+text(t, l.code, "newsFeed.loading")+`')`) {
			t.Errorf("%s/news-feed says it is loading", l.prefix)
		}
		// Searching and Read More need the script: not offered without it.
		if n := eval[int](p, `allByRole('searchbox').length + allByRole('button', undefined, byRole('main')).length`); n != 0 {
			t.Errorf("%s/news-feed without JavaScript offers %d controls that need it", l.prefix, n)
		}

		p.do(chromedp.Navigate(baseURL + l.prefix + "/news-feed/news/1"))
		p.waitFor(`document.readyState === 'complete'`)
		page := eval[map[string]string](p, `({h1: document.querySelector('main h1').textContent, body: `+newsBody+`.map(p => p.textContent).join(''), title: document.title, description: document.querySelector('meta[name=description]').content})`)
		content := queryString(t, `SELECT content FROM news WHERE id = 1`)
		if l.code != "en" {
			content = queryString(t, `SELECT content FROM news_translations WHERE news_id = 1 AND lang = ?`, l.code)
		}
		if page["h1"] != first || page["body"] != content || page["title"] != first+" | BharatFreight Network" || !strings.HasPrefix(content, strings.TrimSuffix(page["description"], "…")) {
			t.Errorf("%s/news-feed/news/1 without JavaScript: %q", l.prefix, page)
		}
	}
	p.do(chromedp.Navigate(baseURL + "/hi/news-feed/news/3"))
	p.waitFor(`document.readyState === 'complete'`)
	want := queryString(t, `SELECT title FROM news_translations WHERE news_id = 3 AND lang = 'hi'`)
	if got := eval[string](p, `document.querySelector('main h1').textContent + ' ' + document.querySelector('main h1').getAttribute('lang') + ' ' + `+newsBody+`[0].closest('[lang]').getAttribute('lang')`); got != want+" null hi" {
		t.Errorf("/hi/news-feed/news/3: heading, the lang of heading and of the text %q, want %q (the page's language)", got, want+" null hi")
	}
}

// TestNewsItemStatus: under serve an unknown or malformed news id answers
// 404 with the not-found page of its language; an item added after the
// build answers 200, and its page shows it.
func TestNewsItemStatus(t *testing.T) {
	for path, heading := range map[string]string{
		"/news-feed/news/999999":  "Page Not Found",
		"/hi/news-feed/news/abc":  "पृष्ठ नहीं मिला",
		"/ma/news-feed/news/_":    "पान सापडले नाही",
		"/news-feed/news/01":      "Page Not Found",
		"/news-feed/news/-1":      "Page Not Found",
		"/hi/news-feed/news/1e3":  "पृष्ठ नहीं मिला",
		"/news-feed/news/1/extra": "Page Not Found",
	} {
		resp, err := http.Get(baseURL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), heading) {
			t.Errorf("%s: %d, want 404 with %q", path, resp.StatusCode, heading)
		}
	}
	out := addNews(t, "--title", "Added after the build", "--content", "Pune ring road opens to trucks.")
	id := strings.TrimSpace(strings.TrimPrefix(out, "added news item "))
	resp, err := http.Get(baseURL + "/hi/news-feed/news/" + id)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("an item added after the build: %d, want 200", resp.StatusCode)
	}
	p := newPage(t)
	p.open("/hi/news-feed/news/" + id)
	p.waitFor(articleShown)
	if got := eval[string](p, `document.querySelector('h1').textContent + ' ' + document.querySelector('h1').lang`); got != "Added after the build en" {
		t.Errorf("the item added after the build shows %q", got)
	}
	p.expectNoConsoleErrors()
}

// TestNewsInTheVisitorsLanguage: an item given its Marathi title and
// content with `news add --id --lang ma` shows them on Marathi pages (the
// feed and the item's page refresh the build's snapshot), items without
// Marathi (one added in English only) show in English marked lang="en",
// and the search matches the text the page shows.
func TestNewsInTheVisitorsLanguage(t *testing.T) {
	const title, content = "कोकण महामार्गाचा टप्पा अवजड वाहनांसाठी पुन्हा खुला", "चिपळूण ते संगमेश्वर दरम्यानचा टप्पा दुरुस्तीनंतर पुन्हा सुरू झाला आहे."
	id := queryString(t, `SELECT id FROM news WHERE title LIKE 'Monsoon damage%'`)
	if out := addNews(t, "--id", id, "--lang", "ma", "--title", title, "--content", content); !strings.Contains(out, "ma title and content saved") {
		t.Fatalf("news add --lang ma: %s", out)
	}
	const english = "Nagpur logistics park opens its truck terminal"
	addNews(t, "--title", english, "--content", "The terminal has parking for 600 trucks.")
	p := newPage(t)
	p.open("/ma/news-feed")
	p.waitFor(newsLoaded)
	items := eval[map[string]string](p, `Object.fromEntries(`+newsItems+`.map(item => `+newsTitle+`(item)).map(h => [h.textContent, h.getAttribute('lang') ?? '']))`)
	if lang, ok := items[title]; !ok || lang != "" {
		t.Errorf("the Marathi title is not listed unmarked: %v", items)
	}
	if items[english] != "en" {
		t.Errorf("the English-only item %q is not marked lang=en: %v", english, items)
	}
	p.click(`input[type=search]`)
	p.do(chromedp.KeyEvent("संगमेश्वर"))
	p.waitFor(newsItems + `.length === 1`)
	if got := eval[string](p, newsTitle+`(`+newsItems+`[0]).textContent`); got != title {
		t.Errorf("search संगमेश्वर found %q", got)
	}
	// The English text of a translated item is not what the page shows.
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('input[type=search]').select()`))
	p.do(chromedp.KeyEvent("Sangameshwar"))
	p.waitFor(announced("status") + ` === '` + text(t, "ma", "newsFeed.empty") + `'`)
	p.expectAccessible()

	p.open("/ma/news-feed/news/" + id)
	p.waitFor(`document.querySelector('main h1').textContent === '` + title + `'`)
	if got := eval[string](p, `document.querySelector('main h1').getAttribute('lang') ?? 'none'`); got != "none" {
		t.Errorf("the Marathi title is marked lang=%s", got)
	}
	p.expectAccessible()
	p.expectNoConsoleErrors()
}
