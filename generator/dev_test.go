package generator

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"freightsite/data"
)

// devTree copies the source tree (node_modules linked) for a Dev to
// watch and the test to edit.
func devTree(t *testing.T) string {
	t.Helper()
	tree := t.TempDir()
	root, _ := filepath.Abs("..")
	for _, dir := range []string{"pages", "locales", "data"} {
		if out, err := exec.Command("cp", "-r", filepath.Join(root, dir), tree).CombinedOutput(); err != nil {
			t.Fatalf("copying %s: %v\n%s", dir, err, out)
		}
	}
	if err := os.Symlink(filepath.Join(root, "node_modules"), filepath.Join(tree, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return tree
}

func editFile(t *testing.T, file, old, new string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), old) != 1 {
		t.Fatalf("%s does not hold %q once", file, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func devGet(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b)
}

// TestDevRebuildsWhatAChangeTouches: the in-memory build serves pages
// with the injected script and writes nothing; a translation drops only
// its language's pages, a stylesheet change is one a page can swap, a
// screen drops every page, and a syntax error is refused with its place
// while the last good build keeps being served; an exception a page
// throws is placed in its screen. Rendered in Node's workers and in goja.
func TestDevRebuildsWhatAChangeTouches(t *testing.T) {
	for _, renderer := range []string{RendererNode, RendererGoja} {
		t.Run(renderer, func(t *testing.T) { testDevRebuilds(t, renderer) })
	}
}

func testDevRebuilds(t *testing.T, renderer string) {
	tree := devTree(t)
	const inject = `<script src="/__dev/live.js"></script>`
	d, err := NewDev(Options{Root: tree, Year: 2030, Renderer: renderer}, inject, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	h := d.Handler(nil)
	code, body := devGet(t, h, "/hi/faq")
	if code != http.StatusOK || !strings.Contains(body, inject+"</head>") {
		t.Fatalf("GET /hi/faq: %d, injected script %v", code, strings.Contains(body, inject))
	}
	if strings.Contains(body, "data-sw") {
		t.Error("a dev page registers the service worker")
	}
	if _, sw := devGet(t, h, "/sw.js"); sw != unregisteringWorker {
		t.Errorf("dev's /sw.js is not the worker that unregisters itself:\n%.200s", sw)
	}
	if code, _ := devGet(t, h, "/no-such-page"); code != http.StatusNotFound {
		t.Errorf("GET /no-such-page: %d, want 404", code)
	}
	entries, _ := os.ReadDir(tree)
	if len(entries) != 4 {
		t.Errorf("the dev build wrote into the source tree: %v", entries)
	}

	editFile(t, filepath.Join(tree, "locales", "hi.json"), `"title": "अक्सर पूछे जाने वाले प्रश्न"`, `"title": "नया शीर्षक"`)
	rep, err := d.Rebuild([]string{"locales/hi.json"}, []string{"/hi/faq"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Changed["hi/faq/index.html"] || rep.Changed["faq/index.html"] || rep.Changed["ma/faq/index.html"] || rep.All {
		t.Errorf("a Hindi text changed %d pages (all: %v), want the Hindi ones only", len(rep.Changed), rep.All)
	}
	if len(rep.Rendered) != 1 || rep.Rendered[0] != "/hi/faq" {
		t.Errorf("rendered at once %v, want the viewed /hi/faq", rep.Rendered)
	}
	if _, body := devGet(t, h, "/hi/faq"); !strings.Contains(body, "नया शीर्षक") {
		t.Error("/hi/faq does not show the new text")
	}

	editFile(t, filepath.Join(tree, "pages", "styles", "site.css"), `@import "./news.css";`, "@import \"./news.css\";\nmain { outline: 1px solid red; }")
	if rep, err = d.Rebuild([]string{"pages/styles/site.css"}, nil); err != nil {
		t.Fatal(err)
	}
	if !rep.StyleOnly || len(rep.Changed) != 0 {
		t.Errorf("a stylesheet change: style only %v, %d pages changed; want a swap and no page", rep.StyleOnly, len(rep.Changed))
	}
	if _, body := devGet(t, h, "/faq"); !strings.Contains(body, rep.Stylesheet) {
		t.Errorf("/faq does not link the new stylesheet %s", rep.Stylesheet)
	}

	faq := filepath.Join(tree, "pages", "screens", "Faq.tsx")
	editFile(t, faq, `<section className="with-aside"`, `<section data-edited className="with-aside"`)
	if rep, err = d.Rebuild([]string{"pages/screens/Faq.tsx"}, nil); err != nil {
		t.Fatal(err)
	}
	if n := data.Count("news.json"); len(rep.Changed) != 90+3*(n+feedPages(n)) { // every route, news item and page of the archive, in 3 languages
		t.Errorf("a screen changed %d pages", len(rep.Changed))
	}
	if _, body := devGet(t, h, "/ma/faq"); !strings.Contains(body, "data-edited") {
		t.Error("/ma/faq does not show the edited screen")
	}
	_, node := d.cur.Load().p.started().(*nodeEngine)
	if node != (renderer == RendererNode) {
		t.Errorf("renderer %s: the pages rendered in Node: %v", renderer, node)
	}

	editFile(t, faq, `  const last = questions[questions.length - 1];`, "  const last = questions[questions.length - 1];\n  if (lang === 'hi') throw new Error('the screen broke');")
	_, err = d.Rebuild([]string{"pages/screens/Faq.tsx"}, []string{"/hi/faq"})
	var re *RenderError
	if !errors.As(err, &re) || re.Problem.File != "pages/screens/Faq.tsx" || re.Problem.Line != lineOf(t, faq, "throw new Error('the screen broke')") || !strings.Contains(re.Problem.Message, "the screen broke") {
		t.Errorf("a page that throws: %v (%+v), want a RenderError placed at the throw in pages/screens/Faq.tsx", err, re)
	}
	editFile(t, faq, "\n  if (lang === 'hi') throw new Error('the screen broke');", "")
	if _, err = d.Rebuild([]string{"pages/screens/Faq.tsx"}, []string{"/hi/faq"}); err != nil {
		t.Fatal(err)
	}

	editFile(t, filepath.Join(tree, "data", "site.json"), `"baseURL": "http://localhost:8080"`, `"baseURL": "http://localhost:9090"`)
	if rep, err = d.Rebuild([]string{"data/site.json"}, nil); err != nil {
		t.Fatal(err)
	}
	if !rep.All {
		t.Error("a change of site.json does not reload every page")
	}
	if _, body := devGet(t, h, "/faq"); !strings.Contains(body, `href="http://localhost:9090/faq"`) {
		t.Error("/faq does not carry the new base URL")
	}

	editFile(t, faq, `<section data-edited className="with-aside"`, `<section data-edited className="with-aside" <`)
	_, err = d.Rebuild([]string{"pages/screens/Faq.tsx"}, nil)
	var be *BundleError
	if !errors.As(err, &be) || len(be.Problems) == 0 || be.Problems[0].File != "pages/screens/Faq.tsx" || be.Problems[0].Line == 0 {
		t.Fatalf("a syntax error: %v, want a BundleError placed in pages/screens/Faq.tsx", err)
	}
	if _, body := devGet(t, h, "/ma/faq"); !strings.Contains(body, "data-edited") {
		t.Error("the last good build is no longer served")
	}
}

// lineOf is the line (from 1) of file that holds text.
func lineOf(t *testing.T, file, text string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%s holds no %q", file, text)
	return 0
}
