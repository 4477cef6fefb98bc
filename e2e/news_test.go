package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Browser tests of the news feed and the news detail page, on the seed
// news the server loads into its fresh database (data/news.json).

const newsLoaded = `document.querySelector('.news-list') !== null`

func TestNewsFeed(t *testing.T) {
	p := newPage(t)
	p.open("/news-feed")
	p.waitFor(newsLoaded)
	if got := eval[string](p, `document.querySelector('h1').textContent`); got != "News Feed" {
		t.Errorf("heading %q", got)
	}
	if eval[bool](p, `document.querySelector('.lang-select') !== null`) {
		t.Error("the news feed shows the language selector")
	}
	if got := eval[string](p, `document.querySelector('input[type=search]').placeholder`); got != "Search.." {
		t.Errorf("placeholder %q", got)
	}
	if got := eval[[]bool](p, `[...document.querySelectorAll('.news-item')].slice(0, 4).map(li => li.classList.contains('even'))`); len(got) != 4 || !got[0] || got[1] || !got[2] || got[3] {
		t.Errorf("even-indexed rows styled: %v", got)
	}
	preview := eval[string](p, `document.querySelector('.news-content').textContent`)
	if n := len([]rune(strings.TrimSuffix(preview, "…"))); n != 50 || !strings.HasSuffix(preview, "…") {
		t.Errorf("preview %q: %d characters, want the first 50 and an ellipsis", preview, n)
	}
	// isReadMore starts true: the collapsed text's height is capped.
	limited := `getComputedStyle(document.querySelector('.news-content')).maxHeight !== 'none'`
	if !eval[bool](p, limited) {
		t.Error("a collapsed item's text height is not limited")
	}
	p.click(`.news-item .link-button`)
	if got := eval[string](p, `document.querySelector('.news-content').textContent`); len(got) <= len(preview) {
		t.Errorf("Read More did not expand: %q", got)
	}
	if eval[bool](p, limited) {
		t.Error("the expanded text's height is still limited")
	}
	if got := eval[string](p, `document.querySelector('.news-item .link-button').getAttribute('aria-expanded')`); got != "true" {
		t.Errorf("aria-expanded %q after Read More", got)
	}
	links := eval[[]map[string]string](p, `[...document.querySelectorAll('.news-title a')].map(a => ({href: a.getAttribute('href'), target: a.target, rel: a.rel}))`)
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
	if got := eval[string](p, `document.querySelector('.news-meta').textContent`); !regexp.MustCompile(`^Posted By (\d+ \w+ ago|yesterday|last \w+)$`).MatchString(got) {
		t.Errorf("meta %q", got)
	}
	p.expectAccessible()

	// Each keystroke queries; the query before it is cancelled.
	p.do(chromedp.Evaluate[chromedp.Void](`window.__aborted = 0; const f = window.fetch; window.fetch = (u, o) => { o?.signal?.addEventListener('abort', () => window.__aborted++); return f(u, o); }`))
	p.click(`input[type=search]`)
	p.do(chromedp.KeyEvent("FASTag"))
	p.waitFor(`document.querySelectorAll('.news-item').length === 1`)
	if got := eval[string](p, `document.querySelector('.news-title').textContent`); !strings.Contains(got, "FASTag") {
		t.Errorf("search FASTag found %q", got)
	}
	if n := eval[int](p, `window.__aborted`); n < 5 {
		t.Errorf("%d requests cancelled while typing 6 characters, want 5", n)
	}
	p.do(chromedp.KeyEvent("zzz"))
	p.waitFor(`document.querySelector('.news-status').textContent === 'No news matches your search.'`)
	p.expectAccessible()
	p.expectNoConsoleErrors()
}

func TestNewsFeedInHindi(t *testing.T) {
	p := newPage(t)
	p.open("/hi/news-feed")
	p.waitFor(newsLoaded)
	if href := eval[string](p, `[...document.querySelectorAll('.news-title a')].find(a => !a.target).getAttribute('href')`); !strings.HasPrefix(href, "/hi/news-feed/news/") {
		t.Errorf("item link %q is not in Hindi", href)
	}
	if got := eval[string](p, `document.querySelector('.news-meta').textContent`); !strings.HasPrefix(got, "प्रकाशित") || !strings.Contains(got, "पहले") && !strings.Contains(got, "पिछले") && !strings.Contains(got, "कल") {
		t.Errorf("meta %q is not Hindi relative time", got)
	}
	p.expectNoConsoleErrors()
}

func TestNewsDetail(t *testing.T) {
	p := newPage(t)
	p.open("/news-feed")
	p.waitFor(newsLoaded)
	title := eval[string](p, `[...document.querySelectorAll('.news-title a')].find(a => !a.target).textContent`)
	p.follow(`.news-title a:not([target])`)
	p.waitFor(`document.querySelector('.news-article[aria-busy=false]') !== null`)
	if got := eval[string](p, `document.querySelector('h1').textContent`); got != title {
		t.Errorf("detail heading %q, want %q", got, title)
	}
	if n := eval[int](p, `document.querySelector('.news-article').textContent.length`); n < 200 {
		t.Errorf("detail shows only %d characters", n)
	}
	if got := eval[string](p, `document.title`); !strings.HasPrefix(got, title) {
		t.Errorf("document title %q", got)
	}
	p.expectAccessible()
	p.expectNoConsoleErrors()

	p.open("/ma/news-feed/news/999999")
	p.waitFor(`document.querySelector('.news-article[aria-busy=false]') !== null`)
	if got := eval[string](p, `document.querySelector('.news-article .notice').textContent`); got != "ही बातमी अस्तित्वात नाही किंवा काढून टाकली आहे." {
		t.Errorf("unknown id: %q", got)
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
	p.waitFor(`document.querySelector('.news-article[aria-busy=false]') !== null`)
	want := queryString(t, `SELECT title FROM news WHERE id = 1`)
	if got := eval[string](p, `document.querySelector('h1').textContent`); got != want {
		t.Errorf("heading %q, want the item's title %q", got, want)
	}
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
	p.waitFor(`document.querySelectorAll('.news-item').length === 1`)
	if got := eval[string](p, `document.querySelector('.news-title').textContent`); got != title {
		t.Errorf("title shown as %q", got)
	}
	p.open("/news-feed/news/" + id)
	p.waitFor(`document.querySelector('.news-article[aria-busy=false]') !== null`)
	if got := eval[string](p, `document.querySelector('h1').textContent`); got != title {
		t.Errorf("detail heading %q", got)
	}
	if eval[bool](p, `window.__pwned === 1 || document.querySelector('main img, main script') !== null`) {
		t.Error("markup from a news item ran or became elements")
	}
}
