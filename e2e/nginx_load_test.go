package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// socketAPI runs `freightsite api` on a listening socket this test holds,
// as systemd holds freightsite-api@1.socket: each process takes it over
// through LISTEN_FDS, and while none runs, connections wait in its queue.
type socketAPI struct {
	dir  string
	db   string
	addr string
	file *os.File // the socket
	cmd  *exec.Cmd
	logs []string
	n    int
}

func startSocketAPI(t *testing.T, dir string) *socketAPI {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	ln.Close() // f holds the socket
	a := &socketAPI{dir: dir, db: filepath.Join(dir, "api.db"), addr: ln.Addr().String(), file: f}
	t.Cleanup(func() {
		a.stop(t)
		f.Close()
	})
	a.start(t)
	return a
}

// start runs a new API process on the socket and waits for /healthz.
func (a *socketAPI) start(t *testing.T) {
	t.Helper()
	a.n++
	log := filepath.Join(a.dir, fmt.Sprintf("api-%d.log", a.n))
	a.logs = append(a.logs, log)
	out, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	// LISTEN_PID must be the API's own pid: the shell sets it and execs.
	a.cmd = exec.Command("/bin/sh", "-c", `LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@"`, binary, "api",
		"--db", a.db, "--trusted-proxy", "127.0.0.1", "--rate-limit", "contact=off", "--captcha-max-number", "2000",
		"--base-url", "https://"+siteHost)
	a.cmd.ExtraFiles = []*os.File{a.file}
	a.cmd.Stdout, a.cmd.Stderr = out, out
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, "http://"+a.addr+"/healthz")
}

// stop sends SIGTERM and waits for a clean exit.
func (a *socketAPI) stop(t *testing.T) {
	t.Helper()
	if a.cmd == nil {
		return
	}
	a.cmd.Process.Signal(syscall.SIGTERM)
	err := a.cmd.Wait()
	a.cmd = nil
	if err != nil {
		t.Errorf("the API exited with %v after SIGTERM:\n%s", err, a.log(t))
	}
}

// logged waits up to 2 s (the API holds log lines up to 200 ms) for a
// line containing text.
func (a *socketAPI) logged(text string) bool {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if strings.Contains(a.log(nil), text) {
			return true
		}
	}
	return false
}

// log is what every API process of the test wrote.
func (a *socketAPI) log(t *testing.T) string {
	var b strings.Builder
	for _, f := range a.logs {
		raw, _ := os.ReadFile(f)
		b.Write(raw)
	}
	return b.String()
}

// loadTarget is one request of the load and the status it must get.
type loadTarget struct {
	method, path string
	status       int
}

// siteLoad sends requests through nginx from several clients, each
// request after the last, and counts those that fail: no answer, or
// another status than the target's.
type siteLoad struct {
	done     atomic.Int64
	api      atomic.Int64 // answered API requests
	failed   atomic.Int64
	mu       sync.Mutex
	failures []string
	acked    []string // contact subjects answered 200
	stop     chan struct{}
	wg       sync.WaitGroup
}

func startSiteLoad(t *testing.T, n *nginxSite, clients int, targets []loadTarget) *siteLoad {
	l := &siteLoad{stop: make(chan struct{})}
	for c := range clients {
		l.wg.Go(func() {
			client := n.client(true)
			token := n.xsrfToken(t, client)
			for i := 0; ; i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				tg := targets[(i+c)%len(targets)]
				var body io.Reader
				subject := ""
				if tg.method == http.MethodPost {
					subject = fmt.Sprintf("load %d-%d", c, i)
					body = strings.NewReader(`{"name":"Load Test","email":"load@example.in","subject":"` + subject + `"}`)
				}
				req, _ := http.NewRequest(tg.method, n.url(tg.path), body)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-XSRF-TOKEN", token)
				req.Header.Set("Accept-Encoding", "gzip")
				resp, err := client.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				l.done.Add(1)
				switch {
				case err != nil:
					l.fail(fmt.Sprintf("%s %s: %v", tg.method, tg.path, err))
				case resp.StatusCode != tg.status:
					l.fail(fmt.Sprintf("%s %s: %d, want %d", tg.method, tg.path, resp.StatusCode, tg.status))
				default:
					if strings.HasPrefix(tg.path, "/api/") {
						l.api.Add(1)
					}
					if subject != "" {
						l.mu.Lock()
						l.acked = append(l.acked, subject)
						l.mu.Unlock()
					}
				}
			}
		})
	}
	return l
}

func (l *siteLoad) fail(what string) {
	l.failed.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failures) < 20 {
		l.failures = append(l.failures, what)
	}
}

func (l *siteLoad) end() {
	close(l.stop)
	l.wg.Wait()
}

// waitRequests waits until at least n more requests were answered.
func (l *siteLoad) waitRequests(t *testing.T, n int64) {
	t.Helper()
	l.wait(t, &l.done, n, "requests")
}

// waitAPI waits until at least n more API calls were answered.
func (l *siteLoad) waitAPI(t *testing.T, n int64) {
	t.Helper()
	l.wait(t, &l.api, n, "API calls")
}

func (l *siteLoad) wait(t *testing.T, count *atomic.Int64, n int64, what string) {
	t.Helper()
	want := count.Load() + n
	deadline := time.Now().Add(60 * time.Second)
	for count.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("the load made fewer than %d %s in 60 s", n, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rebuildAndRestartUnderLoad: while clients load pages, hashed assets of
// the first build and API calls (reads and contact posts) through nginx,
// the site is rebuilt from a changed source tree with other settings
// (nginx is not reloaded) and the API restarted on its socket. No request
// may fail, every acknowledged post is stored once, a page opened before
// the rebuild still loads its captcha chunk and starts the check, a
// page of the new build runs its boot script under nginx's CSP, the
// publish command the staged build prints works from another folder,
// and after a rollback a page of the new build still loads its chunks.
func rebuildAndRestartUnderLoad(t *testing.T, n *nginxSite, api *socketAPI) {
	_, registration := n.get(t, "/registration")
	var oldAssets []string
	for _, m := range regexp.MustCompile(`(?:href|src)="(/assets/build/[^"]+)"`).FindAllStringSubmatch(registration, -1) {
		oldAssets = append(oldAssets, m[1])
	}
	oldAltcha := altchaChunk(t, filepath.Join(n.dir, "dist"))
	if len(oldAssets) < 2 {
		t.Fatalf("the registration page names %d hashed files", len(oldAssets))
	}

	// A visitor opened the registration form before the rebuild; its
	// captcha loads on first use.
	p := newPage(t)
	p.do(chromedp.Navigate(n.url("/registration")))
	p.waitLoaded()

	targets := []loadTarget{
		{http.MethodGet, "/", 200}, {http.MethodGet, "/hi/faq", 200}, {http.MethodGet, "/news-feed/news/3", 200},
		{http.MethodGet, "/ma/no-such-page", 404}, {http.MethodGet, oldAltcha, 200},
		{http.MethodGet, "/api/news", 200}, {http.MethodPost, "/api/contact_us", 200},
	}
	for _, a := range oldAssets {
		targets = append(targets, loadTarget{http.MethodGet, a, 200})
	}
	load := startSiteLoad(t, n, 6, targets)
	stopped := false
	defer func() {
		if !stopped {
			load.end()
		}
	}()
	load.waitRequests(t, 200)

	// docs/operations.md's upgrade (step 6): build the release without publishing it (the
	// CSP nginx read stays right: same boot script), publish it, restart
	// the API; then roll back.
	oldRelease := n.published(t)
	start := load.done.Load()
	out := n.build(t, changedSourceTree(t), "--stage", "--set", "analytics.pageViewEvent=page_view_rebuilt")
	duringBuild := load.done.Load() - start
	staged := regexp.MustCompile(`release (\S+) staged`).FindStringSubmatch(out)
	if staged == nil || n.published(t) != oldRelease {
		t.Fatalf("build --stage: published %s, output:\n%s", n.published(t), out)
	}
	if strings.Contains(out, "Content-Security-Policy changed") {
		t.Errorf("a build by the same version changed the CSP:\n%s", out)
	}
	// The command the build printed works from any folder.
	printed := regexp.MustCompile("publish it with `(freightsite release publish [^`]+)`").FindStringSubmatch(out)
	if printed == nil {
		t.Fatalf("build --stage printed no publish command:\n%s", out)
	}
	publish := exec.Command(binary, strings.Fields(printed[1])[1:]...)
	publish.Dir = t.TempDir()
	if out, err := publish.CombinedOutput(); err != nil || n.published(t) != staged[1] {
		t.Fatalf("%s from another folder: %v\n%s", printed[1], err, out)
	}
	newAltcha := altchaChunk(t, filepath.Join(n.dir, "dist"))
	if newAltcha == oldAltcha {
		t.Fatalf("the rebuild made the same captcha chunk %s: the test shows nothing", newAltcha)
	}

	oldPID := api.cmd.Process.Pid
	restartStart := time.Now()
	api.stop(t)
	api.start(t)
	restart := time.Since(restartStart)
	load.waitAPI(t, 100) // the new process answers

	// The page opened before the rebuild starts its captcha now: its own
	// build's chunk is still served.
	p.click(byLabel(text(t, "en", "registration.companyName")))
	p.waitCaptcha()
	if !eval[bool](p, `performance.getEntriesByType('resource').some(e => e.name.endsWith('`+oldAltcha+`') && e.responseStatus === 200)`) {
		t.Errorf("the old page did not load its own captcha chunk %s", oldAltcha)
	}
	p.expectNoConsoleErrors()

	// A page of the new build: nginx, not reloaded, still allows its boot
	// script, which pushes the event the new build names.
	p = newPage(t)
	p.do(chromedp.Navigate(n.url("/faq")))
	p.waitLoaded()
	if !eval[bool](p, `(window.dataLayer || []).some(e => e.event === 'page_view_rebuilt')`) {
		t.Error("the new build's page did not push its page-view event: its boot script did not run")
	}
	p.expectNoConsoleErrors()

	// A visitor opens the registration form of the new build, whose
	// captcha loads on first use; then the site rolls back, still under
	// load. The rolled-back-to release carries the new build's chunks.
	fresh := newPage(t)
	fresh.do(chromedp.Navigate(n.url("/registration")))
	fresh.waitLoaded()
	_, registration = n.get(t, "/registration")
	var newAssets []string
	for _, m := range regexp.MustCompile(`(?:href|src)="(/assets/build/[^"]+)"`).FindAllStringSubmatch(registration, -1) {
		newAssets = append(newAssets, m[1])
	}
	n.release(t, "publish", oldRelease)
	if _, faq := n.get(t, "/faq"); !strings.Contains(faq, `data-page-view="page_view"`) {
		t.Error("after the rollback nginx does not serve the earlier release")
	}
	for _, a := range append(newAssets, newAltcha) {
		if resp, _ := n.get(t, a); resp.StatusCode != http.StatusOK {
			t.Errorf("after the rollback the newer release's %s answers %d", a, resp.StatusCode)
		}
	}
	fresh.click(byLabel(text(t, "en", "registration.companyName")))
	fresh.waitCaptcha()
	if !eval[bool](fresh, `performance.getEntriesByType('resource').some(e => e.name.endsWith('`+newAltcha+`') && e.responseStatus === 200)`) {
		t.Errorf("a page of the newer release did not load its captcha chunk %s after the rollback", newAltcha)
	}
	fresh.expectNoConsoleErrors()
	load.waitRequests(t, 200)
	load.end()
	stopped = true

	t.Logf("%d requests, %d during the build, %d API calls answered; the API restarted (pid %d to %d) in %v",
		load.done.Load(), duringBuild, load.api.Load(), oldPID, api.cmd.Process.Pid, restart.Round(time.Millisecond))
	if f := load.failed.Load(); f > 0 {
		t.Errorf("%d of %d requests failed:\n  %s", f, load.done.Load(), strings.Join(load.failures, "\n  "))
	}
	if duringBuild < 50 {
		t.Errorf("too little load to show anything: %d requests during the build", duringBuild)
	}
	stored := storedSubjects(t, api.db)
	for _, s := range load.acked {
		if stored[s] != 1 {
			t.Errorf("acknowledged post %q is stored %d times", s, stored[s])
		}
	}
}

// altchaChunk is the captcha widget's chunk in the published release.
func altchaChunk(t *testing.T, dist string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dist, ".freightsite-build"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dist, "assets", "build", "altcha-*.js"))
	for _, f := range files {
		name := "assets/build/" + filepath.Base(f)
		if !strings.Contains(string(raw), `"`+name+`"`) { // not carried from an earlier release
			return "/" + name
		}
	}
	t.Fatalf("no captcha chunk of its own in %s", dist)
	return ""
}

// changedSourceTree is a copy of the source tree whose captcha module
// does one more thing, so its chunk gets another hash.
func changedSourceTree(t *testing.T) string {
	t.Helper()
	tree := t.TempDir()
	for _, name := range []string{"node_modules", "locales", "data", "package.json"} {
		if err := os.Symlink(filepath.Join(root, name), filepath.Join(tree, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.CopyFS(filepath.Join(tree, "pages"), os.DirFS(filepath.Join(root, "pages"))); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tree, "pages", "lib", "altcha.ts")
	const anchor = "widget.setAttribute('hidelogo', '');"
	src := string(must(os.ReadFile(file)))
	if !strings.Contains(src, anchor) {
		t.Fatalf("pages/lib/altcha.ts no longer contains %q: update this test", anchor)
	}
	write(t, file, strings.Replace(src, anchor, anchor+" widget.dataset.build = 'second';", 1))
	return tree
}
