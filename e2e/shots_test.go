package e2e

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestScreenshots saves full-page pictures of every page in the three
// languages, on a 390 px phone and a 1366 px desktop, in the light and the
// dark colour scheme, when SCREENSHOTS is set (for people to look at; the
// assertions live in the other tests). SHOTS picks the paths instead,
// comma-separated. Files are e2e/screenshots/<path>-<phone|desktop>-<light|dark>.png;
// the not-found pages also show their feedback dialog open (<path>-dialog-...).
func TestScreenshots(t *testing.T) {
	if os.Getenv("SCREENSHOTS") == "" {
		t.Skip("set SCREENSHOTS=1 to save screenshots under e2e/screenshots")
	}
	pages, notFound := sitePages(t)
	paths := append(pages, notFound...)
	if s := os.Getenv("SHOTS"); s != "" {
		paths = strings.Split(s, ",")
	}
	for _, device := range []struct {
		name          string
		width, height int64
	}{{"phone", 390, 844}, {"desktop", 1366, 900}} {
		for _, scheme := range []string{"light", "dark"} {
			t.Run(device.name+"-"+scheme, func(t *testing.T) {
				t.Parallel()
				p := newPage(t, viewport(device.width, device.height), colorScheme(scheme))
				for _, path := range paths {
					p.open(path)
					name := strings.NewReplacer("/", "_").Replace(strings.TrimPrefix(path, "/"))
					if name == "" {
						name = "home"
					}
					p.screenshot(name + "-" + device.name + "-" + scheme)
					// The not-found page's feedback dialog, open.
					if slices.Contains(notFound, path) {
						p.click(`[data-opens="feedback-dialog"]`)
						p.waitFor(`document.querySelector('dialog#feedback-dialog')?.open === true && document.getAnimations().length === 0`)
						p.screenshot(name + "-dialog-" + device.name + "-" + scheme)
					}
				}
			})
		}
	}
}
