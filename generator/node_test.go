package generator

import (
	"os"
	"testing"
)

// TestNodeRendersAsGoja renders every page of the site in every language,
// and the news archive's shapes, in goja's runtimes and in Node's workers:
// the same pages, byte for byte.
func TestNodeRendersAsGoja(t *testing.T) {
	w, err := startNode(2)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	in, err := prepare(Options{Root: "..", BaseURL: testBase, Year: 2030})
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundle(in.root, in.site.Languages, in.raw, in.pageImages(), "")
	if err != nil {
		t.Fatal(err)
	}
	globals := in.globals()
	node, err := w.init(b.server, globals)
	if err != nil {
		t.Fatal(err)
	}
	defer node.close()
	goja, err := newRenderer(b.server, globals)
	if err != nil {
		t.Fatal(err)
	}
	routes, err := node.routes()
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := goja.routes(); mustJSON(t, routes) != mustJSON(t, want) {
		t.Errorf("routes: node %v, goja %v", routes, want)
	}
	if a, _ := node.favicon(); a != must(goja.favicon()) {
		t.Error("the favicons differ")
	}
	paths := []string{"/404", "news:item?marked=1&source=1", "news:feed?count=20&later=1&newerFirst=0&older=1", "news:li?even=1&source=0&marked=1&long=1&island=1"}
	for _, rt := range routes {
		paths = append(paths, rt.Path)
	}
	for _, l := range in.site.Languages {
		for _, p := range paths {
			a, err := node.render(p, l.Code, 2030)
			if err != nil {
				t.Fatal(err)
			}
			want, err := goja.render(p, l.Code, 2030)
			if err != nil {
				t.Fatal(err)
			}
			if got, w := mustJSON(t, a), mustJSON(t, want); got != w {
				t.Errorf("%s in %s: node's render differs from goja's:\nnode: %.300q\ngoja: %.300q", p, l.Code, firstDifference(got, w), firstDifference(w, got))
			}
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
