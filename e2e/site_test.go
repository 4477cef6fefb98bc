package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// siteManifest is the route manifest of the build under test: the
// language prefixes and the routes.
type siteManifest struct {
	Prefixes  []string `json:"prefixes"`
	Routes    []string `json:"routes"`
	NewsItems int      `json:"newsItems"` // the news archive's items, a page each
}

func readManifest(t *testing.T) siteManifest {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(work, "dist", "routes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m siteManifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// sitePages lists every route in every language as URL paths, from the
// route manifest of the build under test.
func sitePages(t *testing.T) (pages []string, notFound []string) {
	t.Helper()
	m := readManifest(t)
	for _, prefix := range m.Prefixes {
		for _, r := range m.Routes {
			r = strings.ReplaceAll(r, ":newsId", "1")
			if r == "/" {
				if prefix == "" {
					pages = append(pages, "/")
				} else {
					pages = append(pages, prefix)
				}
				continue
			}
			pages = append(pages, prefix+r)
		}
		notFound = append(notFound, prefix+"/no-such-page")
	}
	return pages, notFound
}

// overflowing lists elements that stick out of the viewport sideways (the
// page would scroll horizontally, or text would be cut off).
const overflowing = `(() => {
  const w = document.documentElement.clientWidth, out = [];
  if (document.documentElement.scrollWidth > w) out.push('document ' + document.documentElement.scrollWidth + 'px');
  for (const el of document.querySelectorAll('main *, header *, footer *')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > w + 1 && getComputedStyle(el).position !== 'absolute') out.push(el.tagName.toLowerCase() + '.' + el.className + ' ' + Math.round(r.right) + 'px');
  }
  return out.slice(0, 5);
})()`

var htmlLang = map[string]string{"": "en", "hi": "hi", "ma": "mr"}

func langOf(path string) string {
	seg := strings.Split(strings.TrimPrefix(path, "/"), "/")[0]
	if seg == "hi" || seg == "ma" {
		return seg
	}
	return ""
}

// TestEveryPageOnAPhoneAndADesktop opens every route in every language,
// and the not-found page in each, and checks it on a 360 px phone and a
// 1366 px desktop: it renders in its language with a heading, nothing
// overflows the screen sideways, images below the first screen load
// lazily, it logs nothing to the console, pushes its page view, loads
// JavaScript only if it has an island, and axe-core finds no violation in
// the light colour scheme; switched to the dark one, its colours keep
// their contrast. Every route is also reachable by links from its
// language's home page.
func TestEveryPageOnAPhoneAndADesktop(t *testing.T) {
	links := everyPage(t)
	everyRouteIsReachableByLinks(t, links)
}

// screen is the size of a screen's viewport in CSS pixels.
type screen struct{ width, height int64 }

var phone, desktop = screen{360, 740}, screen{1366, 900}

// everyPage checks every page on both screens, ten pages a tab, the tabs
// side by side, and returns the links each page has.
func everyPage(t *testing.T) *siteLinks {
	pages, notFound := sitePages(t)
	groups := map[string][]string{}
	for _, p := range append(pages, notFound...) {
		groups[langOf(p)] = append(groups[langOf(p)], p)
	}
	links := &siteLinks{of: map[string][]string{}}
	const perTab = 10
	t.Run("pages", func(t *testing.T) { // ends when its parallel tabs have
		for lang, paths := range groups {
			for from := 0; from < len(paths); from += perTab {
				tab := paths[from:min(from+perTab, len(paths))]
				t.Run(fmt.Sprintf("lang=%s/pages %d-%d", htmlLang[lang], from+1, from+len(tab)), func(t *testing.T) {
					t.Parallel()
					checkPages(t, tab, htmlLang[lang], links)
				})
			}
		}
	})
	return links
}

// siteLinks are the paths each opened page links to on its own site.
type siteLinks struct {
	mu sync.Mutex
	of map[string][]string
}

// sameSiteLinks lists the paths of the page's links to its own site.
const sameSiteLinks = `[...document.querySelectorAll('a[href]')].filter(a => a.origin === location.origin).map(a => a.pathname)`

func (l *siteLinks) record(p *page, path string) {
	links := eval[[]string](p, sameSiteLinks)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.of[path] = links
}

// checkPages opens the pages of a language one after the other in a tab,
// every other one on the phone and the rest on the desktop, and checks
// each on the screen it opened on, then on the other one: the tab is
// resized where it stands, as a phone turned sideways or a window made
// wider would be, rather than the page opened again. On each screen the
// page is checked in the light colour scheme, then its colours in the
// dark one; the dark scheme changes colours and nothing else
// (tokens.css), so the page is switched to it where it stands too.
func checkPages(t *testing.T, paths []string, lang string, links *siteLinks) {
	p := newPage(t, acceptLanguage("en-US,en"))
	for i, path := range paths {
		screens := []screen{phone, desktop}
		if i%2 == 1 {
			screens = []screen{desktop, phone}
		}
		p.resize(screens[0])
		p.switchColorScheme("light")
		p.open(path)
		if got := p.location(); got != path {
			t.Errorf("%s: ended at %s", path, got)
		}
		if got := eval[string](p, `document.documentElement.lang`); got != lang {
			t.Errorf("%s: <html lang=%q>, want %q", path, got, lang)
		}
		if h1 := eval[string](p, `document.querySelector('main h1')?.textContent ?? ''`); strings.TrimSpace(h1) == "" {
			t.Errorf("%s: no heading", path)
		}
		if ok := eval[bool](p, `(window.dataLayer || []).some(e => e.event === 'page_view' && e.page_location === location.href)`); !ok {
			t.Errorf("%s: no page_view event with the final URL in dataLayer", path)
		}
		islands := eval[int](p, `document.querySelectorAll('[data-island]').length`)
		scripts := eval[int](p, `performance.getEntriesByType('resource').filter(e => e.name.endsWith('.js')).length`)
		if islands == 0 && scripts > 0 {
			t.Errorf("%s: has no island but loaded %d scripts", path, scripts)
		}
		if islands > 0 && scripts == 0 {
			t.Errorf("%s: has %d islands but loaded no script", path, islands)
		}
		links.record(p, path)
		for j, s := range screens {
			if j > 0 {
				p.resize(s)
				p.switchColorScheme("light")
			}
			if got := eval[int64](p, `innerWidth`); got != s.width {
				t.Fatalf("%s: the page is %d px wide on the %d px screen", path, got, s.width)
			}
			if wide := eval[[]string](p, overflowing); len(wide) > 0 {
				t.Errorf("%s: wider than a %d px screen: %v", path, s.width, wide)
			}
			if eager := eval[[]string](p, eagerBelowFold); len(eager) > 0 {
				t.Errorf("%s: images below the first %d px screen load at once: %v", path, s.width, eager)
			}
			p.expectAccessible()
			p.switchColorScheme("dark")
			p.expectReadableColours()
		}
		// The narrowest phone: nothing scrolls sideways.
		p.resize(narrow)
		if wide := eval[[]string](p, overflowing); len(wide) > 0 {
			t.Errorf("%s: wider than a %d px screen: %v", path, narrow.width, wide)
		}
		p.expectNoConsoleErrors()
	}
}

// eagerBelowFold lists images that start below the first screen but are
// not marked loading=lazy (they would compete with what is seen first).
const eagerBelowFold = `[...document.images].filter(img => img.getBoundingClientRect().top + scrollY > innerHeight && img.loading !== 'lazy').map(img => img.src)`

// TestLanguageSelector: the selector keeps the route, remembers the choice,
// and the remembered choice wins over the browser language afterwards.
func TestLanguageSelector(t *testing.T) {
	p := newPage(t, acceptLanguage("en-US,en"))
	p.open("/faq")
	p.follow(`a[data-lang-link="hi"]`)
	if got := p.location(); got != "/hi/faq" {
		t.Fatalf("after choosing हिन्दी on /faq: at %s, want /hi/faq", got)
	}
	if got := eval[string](p, `document.documentElement.lang`); got != "hi" {
		t.Errorf("lang = %q, want hi", got)
	}
	if got := eval[string](p, `localStorage.getItem('lang')`); got != "hi" {
		t.Errorf("remembered %q, want hi", got)
	}
	// An English address now leads to the remembered Hindi version.
	p.open("/values")
	if got := p.location(); got != "/hi/values" {
		t.Errorf("remembered hi, opened /values: at %s, want /hi/values", got)
	}
	// Choosing English is remembered too and stops the redirect.
	p.follow(`a[data-lang-link="en"]`)
	p.open("/services")
	if got := p.location(); got != "/services" {
		t.Errorf("remembered en, opened /services: at %s", got)
	}
	// Marathi from the home page goes to the Marathi home page.
	p.open("/")
	p.follow(`a[data-lang-link="ma"]`)
	if got := p.location(); got != "/ma" {
		t.Errorf("Marathi from /: at %s, want /ma", got)
	}
	p.expectNoConsoleErrors()
}

// TestLanguageSelectorKeepsDynamicPaths: on pages shared by many paths (the
// not-found page, the news detail shell) the links keep the real path.
func TestLanguageSelectorKeepsDynamicPaths(t *testing.T) {
	p := newPage(t, acceptLanguage("en"))
	for path, want := range map[string]string{
		"/no/such/page":      "/ma/no/such/page",
		"/news-feed/news/42": "/ma/news-feed/news/42",
		"/hi/missing":        "/ma/missing",
	} {
		p.open(path)
		if got := eval[string](p, `document.querySelector('a[data-lang-link="ma"]').getAttribute('href')`); got != want {
			t.Errorf("on %s the Marathi link is %s, want %s", path, got, want)
		}
	}
}

// TestNoSelectorOnNewsFeed: SPEC §1, the news feed has no language selector.
func TestNoSelectorOnNewsFeed(t *testing.T) {
	p := newPage(t)
	for _, path := range []string{"/news-feed", "/hi/news-feed", "/ma/news-feed"} {
		p.open(path)
		if n := eval[int](p, `document.querySelectorAll('[data-lang-link]').length`); n != 0 {
			t.Errorf("%s shows %d language links", path, n)
		}
	}
	p.open("/faq")
	if n := eval[int](p, `document.querySelectorAll('[data-lang-link]').length`); n != 3 {
		t.Errorf("/faq shows %d language links, want 3", n)
	}
}

// TestFirstVisitLanguage: with nothing remembered the browser language picks
// the version (SPEC §4), Marathi's tag mr counting as ma; others get English.
func TestFirstVisitLanguage(t *testing.T) {
	cases := []struct{ accept, open, want string }{
		{"hi-IN,hi,en", "/faq", "/hi/faq"},
		{"mr-IN,mr", "/faq", "/ma/faq"},
		{"mr", "/", "/ma"},
		{"hi", "/", "/hi"},
		{"en-GB,en", "/faq", "/faq"},
		{"fr-FR,de", "/about-us", "/about-us"},
		{"ta-IN,hi", "/values", "/hi/values"},
		// A language address chosen on purpose is never redirected.
		{"hi", "/ma/faq", "/ma/faq"},
		{"mr", "/hi/faq", "/hi/faq"},
	}
	for _, c := range cases {
		p := newPage(t, acceptLanguage(c.accept))
		p.open(c.open)
		if got := p.location(); got != c.want {
			t.Errorf("browser %q opening %s: at %s, want %s", c.accept, c.open, got, c.want)
		}
		p.expectNoConsoleErrors()
	}
}

// TestCollapsibleNavigation: on a phone the menu starts closed behind its
// summary, which opens it; on a desktop the links show at once.
func TestCollapsibleNavigation(t *testing.T) {
	p := newPage(t, viewport(360, 740))
	p.open("/faq")
	menu := byRole("button", "Menu")
	if n := eval[int](p, visibleMenuLinks); n != 0 {
		t.Fatalf("%d menu links show on a phone before the menu is opened", n)
	}
	if _, _, props := axNode(p, menu); props["expanded"] != "false" {
		t.Errorf("the closed menu's summary is not exposed as collapsed: %v", props)
	}
	p.click(menu)
	p.waitFor(fmt.Sprintf("%s === %d", visibleMenuLinks, menuLinksShown))
	if _, _, props := axNode(p, menu); props["expanded"] != "true" {
		t.Errorf("the open menu's summary is not exposed as expanded: %v", props)
	}
	// The icon changes while the menu is open (three bars, then a cross).
	// The icon: the menu button's decoration, hidden from assistive
	// technology (which reads its expanded state).
	icon := `(() => { const i = (` + menu + `).querySelector('[aria-hidden="true"]'); return [getComputedStyle(i).backgroundColor, getComputedStyle(i, '::before').transform, getComputedStyle(i, '::after').transform].join(' | '); })()`
	openIcon := eval[string](p, icon)
	p.screenshot("nav-open-360")
	p.click(menu)
	p.waitFor(visibleMenuLinks + ` === 0`)
	if closedIcon := eval[string](p, icon); closedIcon == openIcon {
		t.Errorf("the menu's icon is the same open and closed: %s", closedIcon)
	}

	// Escape closes the open menu and puts the focus back on its summary,
	// also when the focus was on a link inside the menu.
	p.click(menu)
	p.waitFor(fmt.Sprintf("%s === %d", visibleMenuLinks, menuLinksShown))
	p.do(chromedp.Focus(locate(byRole("link", "FAQ"))))
	p.do(chromedp.KeyEvent("\x1b"))
	p.waitFor(visibleMenuLinks + ` === 0`)
	if !eval[bool](p, `document.activeElement === (`+menu+`)`) {
		t.Error("after Escape the focus is not on the menu's summary")
	}

	d := newPage(t, viewport(1280, 800))
	d.open("/faq")
	if n := eval[int](d, visibleMenuLinks); n != menuLinksShown || eval[bool](d, menu+` !== null`) {
		t.Errorf("on a desktop the links should show (%d do) and the summary hide", n)
	}
}

// TestNavigationLinks: the bar links every SPEC §2 destination in the
// page's language, and the footer has the copyright range and legal links.
func TestNavigationLinks(t *testing.T) {
	p := newPage(t)
	p.open("/ma/faq")
	p.click(byRole("button", text(t, "ma", "nav.aboutGroup")))
	got := eval[[]string](p, `allByRole('link', undefined, `+byRole("navigation", text(t, "ma", "nav.label"))+`).map(a => a.getAttribute('href'))`)
	want := []string{"/ma", "/ma/about-us", "/ma/values", "/ma/services", "/ma/testimonials", "/ma/members-profile", "/ma/news-feed", "/ma/faq", "/ma/contact-us", "/ma/login", "/ma/registration"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("navigation links\n got %v\nwant %v", got, want)
	}
	footer := eval[[]string](p, `[...document.querySelectorAll('footer a')].map(a => a.getAttribute('href'))`)
	if strings.Join(footer, " ") != "/ma/donate /ma/mobile-app /ma/feedback-form /ma/standard-15-day-format /ma/unsubscribe /ma/privacy-policy /ma/legal /ma/copyright /ma/terms-n-conditions" {
		t.Errorf("footer links %v", footer)
	}
	// Where a text names a page, its words link to it.
	for _, c := range [][2]string{{"/ma/faq", "/ma/mobile-app"}, {"/ma/faq", "/ma/login"}, {"/ma/services", "/ma/standard-15-day-format"}} {
		path, want := c[0], c[1]
		p.open(path)
		if got := eval[[]string](p, `[...document.querySelectorAll('main p a')].map(a => a.getAttribute('href') + ' ' + a.textContent)`); !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, want+" ") }) {
			t.Errorf("%s: no link to %s in its text (links %v)", path, want, got)
		}
	}
	year := eval[string](p, `String(new Date().getFullYear())`)
	if line := eval[string](p, `allByRole('paragraph', undefined, byRole('contentinfo')).find(p => p.textContent.startsWith('©'))?.textContent ?? ''`); !strings.Contains(line, "2011–"+year) {
		t.Errorf("copyright line %q lacks 2011–%s", line, year)
	}
}

// reachedOtherwise are the routes no page links to, and why that is right.
var reachedOtherwise = map[string]string{
	"/home":           "another address of the home page (its canonical is /), which every page links",
	"/reset-password": "opened from the link in the password-reset e-mail; without that link's token it can only say to ask for a new one",
}

// everyRouteIsReachableByLinks crawls the site from /, /hi and /ma,
// following every link to a page of the same language, and fails on any
// route of the route table it did not reach (the parameter of
// /news-feed/news/:newsId matches any item's page). The links are those
// the pages had in Chromium when TestEveryPageOnAPhoneAndADesktop opened
// them; a page it did not open (another news item's) is opened here.
func everyRouteIsReachableByLinks(t *testing.T, known *siteLinks) {
	m := readManifest(t)
	var p *page
	linksOf := func(path string) []string {
		if links, ok := known.of[path]; ok {
			return links
		}
		if p == nil {
			p = newPage(t, acceptLanguage("en-US,en"))
		}
		p.open(path)
		return eval[[]string](p, sameSiteLinks)
	}
	for _, prefix := range m.Prefixes {
		start := prefix
		if start == "" {
			start = "/"
		}
		visited := map[string]bool{start: true}
		queue := []string{start}
		for len(queue) > 0 {
			path := queue[0]
			queue = queue[1:]
			for _, link := range linksOf(path) {
				if link != "/" {
					link = strings.TrimSuffix(link, "/")
				}
				if visited[link] || langOf(link) != strings.TrimPrefix(prefix, "/") || strings.HasPrefix(strings.TrimPrefix(link, prefix), "/assets/") || strings.HasPrefix(strings.TrimPrefix(link, prefix), "/secure/") {
					continue
				}
				visited[link] = true
				queue = append(queue, link)
			}
		}
		for _, route := range m.Routes {
			// The pages the build wrote for news items are instances of
			// the table's /news-feed/news/:newsId (an item that opens
			// its source has one, though the feed links the source).
			if _, ok := reachedOtherwise[route]; ok || route != "/news-feed/news/:newsId" && matchesRoute("/news-feed/news/:newsId", route) {
				continue
			}
			reached := false
			for path := range visited {
				rest := strings.TrimPrefix(path, prefix)
				if rest == "" {
					rest = "/"
				}
				if matchesRoute(route, rest) {
					reached = true
					break
				}
			}
			if !reached {
				t.Errorf("no link leads to %s%s from %s", prefix, route, start)
			}
		}
	}
}

// matchesRoute reports whether a URL path (without language prefix) is
// the route, a ":name" segment matching any one segment.
func matchesRoute(route, path string) bool {
	rs, ps := strings.Split(route, "/"), strings.Split(path, "/")
	if len(rs) != len(ps) {
		return false
	}
	for i := range rs {
		if rs[i] != ps[i] && !(strings.HasPrefix(rs[i], ":") && ps[i] != "") {
			return false
		}
	}
	return true
}

// TestNotFoundIsland: the not-found page runs no React before the
// visitor's first interaction (it registers its service worker meanwhile,
// and its Send feedback link leads to the feedback page); then it hydrates
// its one island without warnings, the button taking the focus the link
// had, and the button opens the feedback dialog.
func TestNotFoundIsland(t *testing.T) {
	for _, path := range []string{"/nothing-here", "/hi/nothing-here", "/ma/nothing-here"} {
		p := newPage(t)
		p.do(chromedp.Navigate(baseURL + path))
		p.waitFor(loaded + ` && navigator.serviceWorker.getRegistration().then(r => r !== undefined)`)
		if eval[bool](p, `performance.getEntriesByType('resource').some(e => e.name.includes('/hydrate-')) || document.querySelector('[data-hydrated]') !== null`) {
			t.Errorf("%s: React loaded before any interaction", path)
		}
		const link = `main a[href$="/feedback-form?errorType=404"]`
		if !eval[bool](p, `document.querySelector('`+link+`') !== null`) {
			t.Fatalf("%s: no Send feedback link before the island is live", path)
		}
		// A keyboard visitor on the link when the island comes to life
		// keeps the focus: the button in its place takes it.
		p.do(chromedp.Focus(locate(link)))
		p.wake()
		if !eval[bool](p, `document.activeElement.matches('[data-opens="feedback-dialog"]')`) {
			t.Errorf("%s: the focus on the Send feedback link was lost when the island hydrated (now on %s)", path, eval[string](p, `document.activeElement.outerHTML.slice(0, 60)`))
		}
		if got := eval[string](p, `document.querySelector('h1').textContent`); path == "/nothing-here" && got != "Page Not Found" {
			t.Errorf("heading %q", got)
		}
		p.click(`[data-opens="feedback-dialog"]`)
		if !eval[bool](p, `document.querySelector('dialog').open`) {
			t.Errorf("%s: the Send feedback button did not open the dialog", path)
		}
		p.expectNoConsoleErrors()
	}
}
