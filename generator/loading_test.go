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

// TestNewsFeedPreloadsItsContent: built without a snapshot of the news, the
// news list is the page's main content, fetched from the API, so its
// scripts, translations and /api/news in the page's language are
// preloaded at low priority from the start.
func TestNewsFeedPreloadsItsContent(t *testing.T) {
	html := readDist(t, "hi/news-feed/index.html")
	m := reModuleScript.FindStringSubmatch(html)
	if m == nil || m[2] != "" {
		t.Fatalf("entry script %q: want one with nothing left for after the paint", m)
	}
	var entryHelpers, low int
	for _, p := range reModulePre.FindAllStringSubmatch(html, -1) {
		if p[2] != "" {
			low++
		} else {
			entryHelpers++
		}
	}
	if w := pageWeight(t, "/hi/news-feed"); low == 0 || 1+entryHelpers+low != len(w.scripts) {
		t.Errorf("%d scripts preloaded at low priority, %d with the entry, of the %d the page loads", low, entryHelpers, len(w.scripts))
	}
	var data []string
	for _, p := range reFetchPre.FindAllStringSubmatch(html, -1) {
		data = append(data, p[1])
	}
	if !slices.Equal(data, []string{"/assets/i18n/hi.json", "/api/news?lang=hi"}) {
		t.Errorf("preloaded data %v, want the Hindi translations and the news in Hindi", data)
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
