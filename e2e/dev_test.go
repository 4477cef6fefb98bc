package e2e

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"freightsite/data"
)

// devServer is `freightsite dev` running on a copy of the source tree.
type devServer struct {
	t    *testing.T
	tree string // the copy: pages/, locales/, data/, node_modules (a link)
	url  string
	out  *lockedBuilder // what it prints on the terminal
	// stop sends SIGINT and waits for the exit (once; the test's cleanup
	// calls it too).
	stop func() (time.Duration, error)
}

// startDev copies the source tree and runs `freightsite dev` on it.
func startDev(t *testing.T) *devServer {
	t.Helper()
	tree := t.TempDir()
	for _, dir := range []string{"pages", "locales", "data"} {
		if out, err := exec.Command("cp", "-r", filepath.Join(root, dir), tree).CombinedOutput(); err != nil {
			t.Fatalf("copying %s: %v\n%s", dir, err, out)
		}
	}
	if err := os.Symlink(filepath.Join(root, "node_modules"), filepath.Join(tree, "node_modules")); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	d := &devServer{t: t, tree: tree, url: "http://" + addr, out: &lockedBuilder{}}
	cmd := exec.Command(binary, "dev", "--root", tree, "--addr", addr, "--db", filepath.Join(tree, "dev.db"), "--typecheck=false")
	cmd.Stdout, cmd.Stderr = d.out, d.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	var took time.Duration
	var exit error
	d.stop = func() (time.Duration, error) {
		once.Do(func() {
			began := time.Now()
			_ = cmd.Process.Signal(os.Interrupt)
			exit = cmd.Wait()
			took = time.Since(began)
		})
		return took, exit
	}
	t.Cleanup(func() {
		d.stop()
		if t.Failed() || os.Getenv("DEVLOG") != "" {
			t.Logf("freightsite dev printed:\n%s", d.out)
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(d.url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return d
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("freightsite dev did not answer on %s:\n%s", addr, d.out)
	return nil
}

// edit replaces old (which must be there once) with new in a file of the tree.
func (d *devServer) edit(file, old, new string) {
	d.t.Helper()
	p := filepath.Join(d.tree, file)
	b, err := os.ReadFile(p)
	if err != nil {
		d.t.Fatal(err)
	}
	if n := strings.Count(string(b), old); n != 1 {
		d.t.Fatalf("%s has %q %d times, want once", file, old, n)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		d.t.Fatal(err)
	}
}

// lineOf is the line number of the first line of file holding text.
func (d *devServer) lineOf(file, text string) int {
	d.t.Helper()
	b, err := os.ReadFile(filepath.Join(d.tree, file))
	if err != nil {
		d.t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, text) {
			return i + 1
		}
	}
	d.t.Fatalf("%s has no line with %q", file, text)
	return 0
}

// openLive opens a page of the dev server and waits until it listens to
// the server's events.
func (d *devServer) openLive(p *page, path string) {
	p.t.Helper()
	p.do(chromedp.Navigate(d.url + path))
	p.waitFor(loaded + ` && document.documentElement.dataset.devLive === 'open'`)
}

// buildProblemPlace is the place (file:line:column) the dev overlay shows
// for the first build problem, as the text on screen reads, or null.
const buildProblemPlace = `byText(/^\S+:\d+:\d+$/, document.querySelector('#freightsite-dev-overlay [data-kind="build"]'))`

// TestDevShowsEachSaveInTheOpenPage drives `freightsite dev` in Chromium:
// a translation, a screen and the stylesheet change in the open page
// without a manual reload (the stylesheet without any reload); a syntax
// error and a render exception show the overlay with their file and line
// while the last good page stays; fixing them brings the page back. The
// API answers all along.
func TestDevShowsEachSaveInTheOpenPage(t *testing.T) {
	d := startDev(t)
	p := newPage(t)

	// The API answers during all of it.
	var apiFailures atomic.Int32
	var apiCalls atomic.Int32
	stop := make(chan struct{})
	var polling sync.WaitGroup
	polling.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			apiCalls.Add(1)
			resp, err := http.Get(d.url + "/api/news?lang=en")
			if err != nil || resp.StatusCode != http.StatusOK {
				apiFailures.Add(1)
			}
			if err == nil {
				resp.Body.Close()
			}
		}
	})
	defer func() {
		close(stop)
		polling.Wait()
		if n := apiFailures.Load(); n > 0 || apiCalls.Load() < 5 {
			t.Errorf("the API failed %d of %d calls during the rebuilds", n, apiCalls.Load())
		}
		// Stopping does not wait for the open page's event stream.
		if took, err := d.stop(); err != nil || took > 10*time.Second {
			t.Errorf("SIGINT with a page open: exit %v after %v, want 0 within 10 s (the event stream must end)", err, took)
		}
	}()

	d.openLive(p, "/faq")
	if src := eval[string](p, `document.querySelector('script[src^="/__dev/live.js?v="][defer]')?.src ?? ''`); src == "" {
		t.Fatal("the dev page carries no live-reload script")
	}
	p.expectNoConsoleErrors()

	// Only this machine's names: a page elsewhere whose own name points
	// here (DNS rebinding) reads neither the event stream nor the pages.
	for _, c := range []struct {
		host, path string
		want       int
	}{
		{"rebound.example", "/__dev/events", http.StatusMisdirectedRequest},
		{"rebound.example", "/faq", http.StatusMisdirectedRequest},
		{"localhost", "/faq", http.StatusOK},
		{"site.localhost", "/faq", http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodGet, d.url+c.path, nil)
		req.Host = c.host
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatalf("GET %s on Host %s: %v", c.path, c.host, err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("GET %s on Host %s: %d, want %d", c.path, c.host, resp.StatusCode, c.want)
		}
	}

	// A translation: the page reloads with the new text.
	marker := func() { p.do(chromedp.Evaluate[chromedp.Void](`window.devMarker = 1`)) }
	marker()
	d.edit("locales/en.json", `"title": "Frequently asked questions"`, `"title": "Questions, edited live"`)
	p.waitFor(`window.devMarker === undefined && document.querySelector('h1')?.textContent === 'Questions, edited live' && document.documentElement.dataset.devLive === 'open'`)

	// A screen.
	d.edit("pages/screens/Faq.tsx", `<section className="with-aside"`, `<p id="dev-edit">edited screen</p>
      <section className="with-aside"`)
	p.waitFor(`document.getElementById('dev-edit')?.textContent === 'edited screen' && document.documentElement.dataset.devLive === 'open'`)

	// The stylesheet: swapped in place, the page is not reloaded.
	marker()
	d.edit("pages/styles/site.css", `@import "./news.css";`, `@import "./news.css";
main { outline: 3px solid rgb(1, 2, 3); }`)
	p.waitFor(`getComputedStyle(document.querySelector('main')).outlineColor === 'rgb(1, 2, 3)'`)
	if !eval[bool](p, `window.devMarker === 1`) {
		t.Error("the page reloaded for a stylesheet change")
	}

	// A syntax error: the overlay names the file and line, the last good
	// page stays.
	line := d.lineOf("pages/screens/Faq.tsx", `<p id="dev-edit">`)
	d.edit("pages/screens/Faq.tsx", `<p id="dev-edit">edited screen</p>`, `<p id="dev-edit">edited screen</div>`)
	p.waitFor(buildProblemPlace + ` !== null`)
	where := eval[string](p, buildProblemPlace+`.textContent`)
	if !strings.HasPrefix(where, fmt.Sprintf("pages/screens/Faq.tsx:%d:", line)) {
		t.Errorf("the overlay says %q, want pages/screens/Faq.tsx:%d:COLUMN", where, line)
	}
	if !eval[bool](p, `document.getElementById('dev-edit')?.textContent === 'edited screen' && window.devMarker === 1`) {
		t.Error("the page did not stay as it was while the build failed")
	}
	if out := d.out.String(); !strings.Contains(out, fmt.Sprintf("pages/screens/Faq.tsx:%d:", line)) {
		t.Errorf("the terminal does not name pages/screens/Faq.tsx:%d:\n%s", line, out)
	}
	// A reload meanwhile still shows the last good build, with the overlay.
	d.openLive(p, "/faq")
	p.waitFor(`!!document.querySelector('#freightsite-dev-overlay [data-kind="build"]') && document.getElementById('dev-edit')?.textContent === 'edited screen'`)

	// Fixed: the overlay goes and the page comes back with the change.
	d.edit("pages/screens/Faq.tsx", `<p id="dev-edit">edited screen</div>`, `<p id="dev-edit">fixed screen</p>`)
	p.waitFor(`!document.getElementById('freightsite-dev-overlay') && document.getElementById('dev-edit')?.textContent === 'fixed screen'`)

	// A render exception: placed in the screen by the source map.
	d.edit("pages/screens/Faq.tsx", `  const last = questions[questions.length - 1];`, `  const last = questions[questions.length - 1];
  if (lang === 'en') throw new Error('the screen broke');`)
	line = d.lineOf("pages/screens/Faq.tsx", `throw new Error('the screen broke')`)
	p.waitFor(buildProblemPlace + ` !== null`)
	text := eval[string](p, `document.querySelector('#freightsite-dev-overlay [data-kind="build"]').textContent`)
	if !strings.Contains(text, fmt.Sprintf("pages/screens/Faq.tsx:%d:", line)) || !strings.Contains(text, "the screen broke") {
		t.Errorf("the overlay says %q, want pages/screens/Faq.tsx:%d and the message", text, line)
	}
	d.edit("pages/screens/Faq.tsx", `  if (lang === 'en') throw new Error('the screen broke');`, ``)
	p.waitFor(`!document.getElementById('freightsite-dev-overlay') && document.getElementById('dev-edit')?.textContent === 'fixed screen' && document.documentElement.dataset.devLive === 'open'`)
	p.expectNoConsoleErrors()

	// One terminal line a rebuild: what changed, what was rebuilt, how long.
	// The English pages: 30 routes' and the news seed's items' (the feed
	// lists the seed's few items: no page of the archive).
	seed := data.Count("news.json")
	if out := d.out.String(); !regexp.MustCompile(fmt.Sprintf(`(?m)^\d\d:\d\d:\d\d locales/en\.json: texts of en; %d pages to render again, rendered /faq; \d+ ms`, 30+seed)).MatchString(out) {
		t.Errorf("the terminal has no line for the translation's rebuild:\n%s", out)
	}
}

// TestDevServesNoDevScriptInABuild: the live-reload script is only ever in
// dev's answers, never in a build's pages.
func TestDevServesNoDevScriptInABuild(t *testing.T) {
	resp, err := http.Get(baseURL + "/faq")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	if strings.Contains(b.String(), "__dev") {
		t.Error("a built page carries the dev server's script")
	}
}
