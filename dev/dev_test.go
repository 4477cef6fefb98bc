package dev

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"freightsite/generator"
)

// TestTypeErrorsReachThePageWithoutHoldingItBack runs the loop with tsc
// on a tree holding a type error (which esbuild does not check): the page
// is served all the same, and the open page's event stream gets the
// error with its file and line, as the terminal does.
func TestTypeErrorsReachThePageWithoutHoldingItBack(t *testing.T) {
	root, _ := filepath.Abs("..")
	tree := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "pages"), filepath.Join(root, "locales"), filepath.Join(root, "data"), tree).CombinedOutput(); err != nil {
		t.Fatalf("copying the tree: %v\n%s", err, out)
	}
	if err := os.Symlink(filepath.Join(root, "node_modules"), filepath.Join(tree, "node_modules")); err != nil {
		t.Fatal(err)
	}
	faq := filepath.Join(tree, "pages", "screens", "Faq.tsx")
	src, err := os.ReadFile(faq)
	if err != nil {
		t.Fatal(err)
	}
	const wrong = "  const wrong: number = 'not a number';"
	text := strings.Replace(string(src), "  const last = ", wrong+"\n  const last = ", 1)
	if err := os.WriteFile(faq, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	line := strings.Count(text[:strings.Index(text, wrong)], "\n") + 1

	var terminal bytes.Buffer // read once the loop has stopped
	s, err := Start(context.Background(), Options{Build: generator.Options{Root: tree}, Out: &terminal, TypeCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(nil))
	defer srv.Close()
	stopped := false
	defer func() {
		if !stopped {
			s.Close()
		}
	}()

	resp, err := http.Get(srv.URL + "/faq")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /faq with a type error in its screen: %v %v", resp, err)
	}
	resp.Body.Close()

	events, err := http.Get(srv.URL + eventsPath + "?path=/faq")
	if err != nil {
		t.Fatal(err)
	}
	defer events.Body.Close()
	found := make(chan generator.Problem, 1)
	go func() {
		sc := bufio.NewScanner(events.Body)
		for sc.Scan() {
			var status struct{ Types []generator.Problem }
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && json.Unmarshal([]byte(data), &status) == nil && len(status.Types) > 0 {
				found <- status.Types[0]
				return
			}
		}
	}()
	select {
	case p := <-found:
		if p.File != "pages/screens/Faq.tsx" || p.Line != line || !strings.Contains(p.Message, "TS2322") {
			t.Errorf("the type error reported as %+v, want pages/screens/Faq.tsx line %d, TS2322", p, line)
		}
	case <-time.After(90 * time.Second):
		s.Close()
		stopped = true
		t.Fatalf("no type error reached the page in 90 s; the terminal:\n%s", terminal.String())
	}
	s.Close()
	stopped = true
	if out := terminal.String(); !strings.Contains(out, "pages/screens/Faq.tsx:"+strconv.Itoa(line)+":") {
		t.Errorf("the terminal does not name the type error's place:\n%s", out)
	}
}
