package generator

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRebuildRendersOnlyWhatChanged builds the site again and again into
// one output: with nothing changed it renders no page (and starts no
// runtime, and draws no image), after a Hindi text changed it renders the Hindi pages only,
// after the English news changed the English news pages only; and every
// build's files are byte for byte those of a build without a cache.
func TestRebuildRendersOnlyWhatChanged(t *testing.T) {
	root := sourceTreeWithOwnLocales(t)
	out := filepath.Join(t.TempDir(), "dist")
	news := newsFixture()
	build := func(out string, cache ...*RenderCache) *Report {
		t.Helper()
		opts := Options{Root: root, Out: out, BaseURL: testBase, Year: 2030, News: fixtureArchive(news)}
		if len(cache) > 0 {
			opts.Cache = cache[0]
		}
		r, err := Build(opts)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	first := build(out)
	if len(first.Rendered) != len(first.Pages) {
		t.Fatalf("the first build rendered %d of %d pages", len(first.Rendered), len(first.Pages))
	}
	firstFiles := publishedFiles(t, out)

	again := build(out)
	if len(again.Rendered) != 0 || again.Start != 0 {
		t.Errorf("a rebuild with nothing changed rendered %v (runtimes started in %v)", again.Rendered, again.Start)
	}
	sameFiles(t, "the rebuild from the cache", publishedFiles(t, out), firstFiles)
	var summary bytes.Buffer
	again.Print(&summary)
	if !strings.Contains(summary.String(), "rendered nothing") {
		t.Errorf("the summary does not say nothing was rendered:\n%s", lastLine(summary.String()))
	}

	hi := filepath.Join(root, "locales", "hi.json")
	raw, err := os.ReadFile(hi)
	if err != nil {
		t.Fatal(err)
	}
	const home = `"home": "होम",`
	if !strings.Contains(string(raw), home) {
		t.Fatalf("locales/hi.json has no %s: update this test", home)
	}
	if err := os.WriteFile(hi, []byte(strings.Replace(string(raw), home, `"home": "मुखपृष्ठ",`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	hindi := build(out)
	for _, p := range hindi.Pages {
		if rendered := slices.Contains(hindi.Rendered, p.URL); rendered != (p.URL == "/hi" || strings.HasPrefix(p.URL, "/hi/")) {
			t.Errorf("after a Hindi text changed, %s rendered: %v", p.URL, rendered)
		}
	}
	if page := readFile(t, filepath.Join(out, "hi", "faq", "index.html")); !strings.Contains(page, "मुखपृष्ठ") {
		t.Error("the Hindi FAQ page does not show the changed text")
	}

	news[0].Title = "Toll rates revised again"
	changed := build(out)
	// Item 7, beside item 3 in the archive, links it by its title; the
	// feed lists it (the 8 items need no page of the archive).
	for _, want := range []string{"/news-feed", "/news-feed/news/3", "/news-feed/news/7"} {
		if !slices.Contains(changed.Rendered, want) {
			t.Errorf("after the English news changed, %s was not rendered (rendered: %v)", want, changed.Rendered)
		}
	}
	if len(changed.Rendered) != 3 {
		t.Errorf("after the English text of a translated item changed, %v were rendered, want its English page, the one linking it and the English feed", changed.Rendered)
	}
	if page := readFile(t, filepath.Join(out, "news-feed", "news", "3", "index.html")); !strings.Contains(page, "Toll rates revised again") {
		t.Error("the news item's page shows the old title")
	}

	// A cache kept in memory (freightsite dev) starts empty: a clean build.
	clean, memory := filepath.Join(t.TempDir(), "dist"), NewRenderCache()
	if r := build(clean, memory); len(r.Rendered) != len(r.Pages) {
		t.Errorf("a build with an empty cache rendered %d of %d pages", len(r.Rendered), len(r.Pages))
	}
	sameFiles(t, "the rebuilds from the cache", publishedFiles(t, out), publishedFiles(t, clean))
	if r := build(clean, memory); len(r.Rendered) != 0 {
		t.Errorf("a rebuild with the cache in memory rendered %v", r.Rendered)
	}
	if len(memory.Drawn) == 0 {
		t.Error("the cache keeps no link preview or app icon: each build draws them again")
	}
	if _, err := os.Stat(filepath.Join(clean+releasesSuffix, renderCacheFile)); err == nil {
		t.Errorf("a build with a cache in memory wrote %s", renderCacheFile)
	}
}

// sourceTreeWithOwnLocales is the source tree with a copy of locales/
// that a test may change (and of pages/: esbuild names entry points by
// where a link leads).
func sourceTreeWithOwnLocales(t *testing.T) string {
	t.Helper()
	src, _ := filepath.Abs("..")
	root := t.TempDir()
	for _, name := range []string{"node_modules", "data", "package.json"} {
		if err := os.Symlink(filepath.Join(src, name), filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"locales", "pages"} {
		if err := os.CopyFS(filepath.Join(root, name), os.DirFS(filepath.Join(src, name))); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// publishedFiles reads every file of the release published at out, but
// the release's record (it names the time of the build).
func publishedFiles(t *testing.T, out string) map[string][]byte {
	t.Helper()
	dir, err := filepath.EvalSymlinks(out)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == buildMarker {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[rel], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameFiles(t *testing.T, what string, got, want map[string][]byte) {
	t.Helper()
	for name, content := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s miss %s", what, name)
		} else if !bytes.Equal(g, content) {
			t.Errorf("%s wrote another %s", what, name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s wrote %s, which a clean build does not", what, name)
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestRenderKeysNameTheVendorPackages: the server bundle, which leaves
// React and i18next to the engine (serverVendor), is the same bytes
// whatever their versions, and the render cache's keys change with those
// versions all the same.
func TestRenderKeysNameTheVendorPackages(t *testing.T) {
	server := []byte("var Site = {};")
	locales := map[string][]byte{"en": []byte(`{}`)}
	key := func(vendor string) string {
		return newRenderInputs(&bundles{server: server, vendor: vendor}, locales, nil, 2030, testBase).key("/faq", "en")
	}
	if a, b := key("react 19.2.0 i18next 26.0.0"), key("react 19.2.1 i18next 26.0.0"); a == b {
		t.Error("a page's render cache key stays the same when React changes")
	}
}
