package e2e

import (
	"os"
	"strings"
	"testing"
)

// TestScreenshots saves phone and desktop pictures of chosen pages in the
// three languages when SCREENSHOTS is set (for people to look at; the
// assertions live in the other tests). SHOTS picks the paths, comma-separated.
func TestScreenshots(t *testing.T) {
	if os.Getenv("SCREENSHOTS") == "" {
		t.Skip("set SCREENSHOTS=1 to save screenshots under e2e/screenshots")
	}
	paths := []string{"/", "/faq", "/no-such-page"}
	if s := os.Getenv("SHOTS"); s != "" {
		paths = strings.Split(s, ",")
	}
	for _, w := range []int64{360, 1280} {
		p := newPage(t, viewport(w, 800))
		for _, path := range paths {
			for _, prefix := range []string{"", "/hi", "/ma"} {
				full := prefix + path
				if path == "/" && prefix != "" {
					full = prefix
				}
				p.open(full)
				name := strings.NewReplacer("/", "_").Replace(strings.TrimPrefix(full, "/"))
				if name == "" {
					name = "home"
				}
				p.screenshot(name + "-" + map[int64]string{360: "phone", 1280: "desktop"}[w])
			}
		}
	}
}
