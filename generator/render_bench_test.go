package generator

import (
	"os"
	"path/filepath"
	"testing"

	"freightsite/data"
)

// BenchmarkRender measures the server render of one page in goja (the
// foundation issue's target: under 1 ms a page).
func BenchmarkRender(b *testing.B) {
	root, _ := filepath.Abs("..")
	raw, err := os.ReadFile(filepath.Join(root, "data", "site.json"))
	if err != nil {
		b.Fatal(err)
	}
	bs, err := bundle(root, nil, raw, "/qr.svg", map[string]int{"memberProfiles": 5}, "")
	if err != nil {
		b.Fatal(err)
	}
	site, err := data.ParseSettings(raw)
	if err != nil {
		b.Fatal(err)
	}
	locales, err := readLocales(root, site.Languages)
	if err != nil {
		b.Fatal(err)
	}
	r, err := newRenderer(bs.server, map[string]string{"LOCALES": jsonObject(locales)})
	if err != nil {
		b.Fatal(err)
	}
	for _, route := range []string{"/", "/faq", "/404"} {
		b.Run(route, func(b *testing.B) {
			for b.Loop() {
				if _, err := r.render(route, "hi", 2026); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
