package generator

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	reModuleScript = regexp.MustCompile(`<script type="module" src="([^"]+)"(?: data-preload="([^"]*)")?></script>`)
	reModulePre    = regexp.MustCompile(`<link rel="modulepreload" href="([^"]+)"( fetchpriority="low")?>`)
	reFetchPre     = regexp.MustCompile(`<link rel="preload" href="([^"]+)" as="fetch" crossorigin="anonymous" fetchpriority="low">`)
)

// TestIslandPagesLoadReactAfterTheFirstPaint: a form page has one script
// tag (the client entry) and preloads only the entry's helpers; the rest
// of what its budget counts is listed for after the first paint.
func TestIslandPagesLoadReactAfterTheFirstPaint(t *testing.T) {
	html := readDist(t, "registration/index.html")
	m := reModuleScript.FindAllStringSubmatch(html, -1)
	if len(m) != 1 {
		t.Fatalf("%d module scripts, want the client entry only", len(m))
	}
	loaded := append([]string{m[0][1]}, strings.Fields(m[0][2])...)
	for _, p := range reModulePre.FindAllStringSubmatch(html, -1) {
		if p[2] != "" {
			t.Errorf("%s is preloaded at low priority on a page whose content is in its HTML", p[1])
		}
		loaded = append(loaded, p[1])
	}
	if reFetchPre.MatchString(html) {
		t.Error("a form page preloads data")
	}
	w := pageWeight(t, "/registration")
	if !slices.Equal(sortedCopy(loaded), sortedCopy(w.scripts)) {
		t.Errorf("the page loads %v, its budget counts %v", loaded, w.scripts)
	}
	if !strings.Contains(m[0][2], "/hydrate-") || !strings.Contains(m[0][2], "/Registration-") {
		t.Errorf("React and the island are not among the scripts fetched after the paint: %q", m[0][2])
	}
}

// TestNotFoundPageLoadsReactOnInteraction: the not-found page's island
// waits for the visitor's first interaction, so the page's budget counts
// the client entry alone, and React and the island are loaded on first
// use (lazy), listed for the entry to fetch then.
func TestNotFoundPageLoadsReactOnInteraction(t *testing.T) {
	html := readDist(t, "hi/404.html")
	if !strings.Contains(html, `data-island="NotFoundPage" data-on-interaction="" data-at-once="^(|/hi|/ma)/news-feed/news/[^/]+$"`) {
		t.Error("the not-found island is not marked to hydrate on interaction (at once on a news item's path)")
	}
	m := reModuleScript.FindStringSubmatch(html)
	if m == nil || !strings.Contains(m[2], "/hydrate-") || !strings.Contains(m[2], "/NotFoundPage-") {
		t.Fatalf("entry script %q: want React and the island among the scripts it fetches", m)
	}
	w := pageWeight(t, "/hi/404")
	if len(w.scripts) == 0 || slices.ContainsFunc(w.scripts, func(s string) bool { return !strings.Contains(html, s) || strings.Contains(m[2], s) }) {
		t.Errorf("the budget counts %v at load, want the client entry and its imports only", w.scripts)
	}
	if !slices.ContainsFunc(w.lazy, func(s string) bool { return strings.Contains(s, "/hydrate-") }) || !slices.ContainsFunc(w.lazy, func(s string) bool { return strings.Contains(s, "/NotFoundPage-") }) {
		t.Errorf("lazy %v: want React and the island", w.lazy)
	}
}

// TestNewsFeedShowsItsItemsFirst: the feed's first page carries its items
// in the HTML (the build's archive), so like any page with an island it
// loads React and the island after the first paint and preloads no data:
// nothing waits for the API.
func TestNewsFeedShowsItsItemsFirst(t *testing.T) {
	html := readDist(t, "hi/news-feed/index.html")
	m := reModuleScript.FindStringSubmatch(html)
	if m == nil || !strings.Contains(m[2], "/NewsList-") {
		t.Fatalf("entry script %q: want the island among the scripts fetched after the paint", m)
	}
	if data := reFetchPre.FindAllStringSubmatch(html, -1); len(data) != 0 {
		t.Errorf("preloaded data %v, want none", data)
	}
	if !strings.Contains(html, `<ul class="news-list"><li class="news-item even">`) {
		t.Error("hi/news-feed does not list its items")
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
