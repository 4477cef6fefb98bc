package generator

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
)

// TestNodeRendersAsGoja renders every page of the site in every language,
// and the news archive's shapes, in goja's runtimes and in Node's workers:
// the same pages, byte for byte.
func TestNodeRendersAsGoja(t *testing.T) {
	w, err := startNode(2, "..")
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
	goja, err := newRenderer(in.root, b.server, globals)
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

// TestMemoIconsRenderAsLucide holds the server bundle's remembered icons
// (memoIcons) to lucide's own: every page, in every language, rendered
// twice (the second time from what the first remembered), is the same as
// with lucide's icons built on each render.
func TestMemoIconsRenderAsLucide(t *testing.T) {
	in, err := prepare(Options{Root: "..", BaseURL: testBase, Year: 2030})
	if err != nil {
		t.Fatal(err)
	}
	o, err := newBundler(in.root, in.site.Languages, in.raw, in.pageImages(), "")
	if err != nil {
		t.Fatal(err)
	}
	memo := api.Build(o.server)
	o.server.Plugins = slices.DeleteFunc(slices.Clone(o.server.Plugins), func(p api.Plugin) bool { return p.Name == "memo-icons" })
	plain := api.Build(o.server)
	for _, r := range []api.BuildResult{memo, plain} {
		if err := buildErr("server bundle", r); err != nil {
			t.Fatal(err)
		}
	}
	if bytes.Equal(memo.OutputFiles[0].Contents, plain.OutputFiles[0].Contents) || !bytes.Contains(memo.OutputFiles[0].Contents, []byte("memoIconRenders")) {
		t.Fatal("the memo-icons plugin left the server bundle as it was")
	}
	engine := func(server []byte) engine {
		w, err := startNode(1, "..")
		if err != nil {
			t.Fatal(err)
		}
		e, err := w.init(server, in.globals())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(e.close)
		return e
	}
	withMemo, without := engine(memo.OutputFiles[0].Contents), engine(plain.OutputFiles[0].Contents)
	routes, err := without.routes()
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		for _, l := range in.site.Languages {
			for _, rt := range routes {
				got, err := withMemo.render(rt.Path, l.Code, 2030)
				if err != nil {
					t.Fatal(err)
				}
				want, err := without.render(rt.Path, l.Code, 2030)
				if err != nil {
					t.Fatal(err)
				}
				if got.Body != want.Body {
					t.Fatalf("round %d, %s in %s: the remembered icons render otherwise:\nmemo:   %.300q\nlucide: %.300q", round+1, rt.Path, l.Code, firstDifference(got.Body, want.Body), firstDifference(want.Body, got.Body))
				}
			}
		}
	}
}
