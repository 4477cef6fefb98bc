package e2e

import (
	"context"
	_ "embed"
	"encoding/json"
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

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The harness builds the binary, creates the test database (with the news
// seed) and builds the site once from it (the build writes its news
// archive), starts the real `freightsite serve` on that database on a
// loopback port and one headless Chromium, and gives each test an
// isolated browser context (its own storage) on it.

// chromium is the browser the tests drive: Chromium's headless build
// (Debian's chromium-headless-shell, the browser Puppeteer and Playwright
// run headless), the same Blink, V8 and network stack as the desktop
// browser without its window and interface layers, which `chromium
// --headless=new` still runs: it takes less CPU for the same tests, and
// the browser tests are most of make test's CPU. Lighthouse audits in the
// desktop browser (lighthouseChromium).
const chromium = "/usr/bin/chromium-headless-shell"

var (
	baseURL   string // http://127.0.0.1:PORT of the running server
	root      string // the source tree
	work      string // temporary folder of this run: binary, dist, database
	binary    string
	browser   context.Context // allocator context; nil when Chromium is missing outside CI
	skipWhy   string
	axeSource string
)

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		code = 1
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	var err error
	root, err = filepath.Abs("..")
	if err != nil {
		return 1, err
	}
	work, err = os.MkdirTemp("", "freightsite-e2e-")
	if err != nil {
		return 1, err
	}
	defer os.RemoveAll(work)

	// make test builds the binary once for every step that runs it.
	binary = os.Getenv("FREIGHTSITE_BINARY")
	if binary == "" {
		binary = filepath.Join(work, "freightsite")
		if out, err := exec.Command("go", "build", "-o", binary, root).CombinedOutput(); err != nil {
			return 1, fmt.Errorf("building the binary: %v\n%s", err, out)
		}
	}
	// The test database, created with its tables and the news seed as the
	// server creates it (any command that opens it does), so the build can
	// read its news.
	if out, err := exec.Command(binary, "news", "list", "--db", filepath.Join(work, "site.db")).CombinedOutput(); err != nil {
		return 1, fmt.Errorf("creating the test database: %v\n%s", err, out)
	}
	siteBuildOutput, err = exec.Command(binary, append([]string{"build", "--root", root, "--out", filepath.Join(work, "dist"), "--db", filepath.Join(work, "site.db")}, buildArgs...)...).CombinedOutput()
	if err != nil {
		return 1, fmt.Errorf("building the site: %v\n%s", err, siteBuildOutput)
	}
	stop, err := startServer()
	if err != nil {
		return 1, err
	}
	defer stop()

	raw, err := os.ReadFile(filepath.Join(root, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		return 1, fmt.Errorf("axe-core is missing (run npm ci): %w", err)
	}
	axeSource = string(raw)

	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("CI") != "" {
			return 1, fmt.Errorf("%s is missing and CI is set: browser tests must run (apt-get install -y chromium-headless-shell)", chromium)
		}
		skipWhy = chromium + " is missing (apt-get install -y chromium-headless-shell); browser tests skipped outside CI"
		return m.Run(), nil
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		// Tenant subdomains (tenant_test.go) resolve to the test server.
		chromedp.Flag("host-resolver-rules", "MAP *.freight.test 127.0.0.1, MAP freight.test 127.0.0.1"),
		// nginx_test.go serves freight.test over HTTPS with a certificate
		// of its own making.
		chromedp.Flag("ignore-certificate-errors", true),
		chromedp.UserDataDir(filepath.Join(work, "chromium-profile")),
		chromedp.WindowSize(1280, 900),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	b, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	if err := chromedp.Do(b); err != nil {
		return 1, fmt.Errorf("starting Chromium: %w", err)
	}
	browser = b
	return m.Run(), nil
}

// startServer runs `freightsite serve` on a free loopback port and waits
// for /healthz.
func startServer() (stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(binary, "serve", "--addr", addr, "--dist", filepath.Join(work, "dist"), "--db", filepath.Join(work, "site.db"))
	cmd.Env = append(os.Environ(), serverEnv...)
	logFile, err := os.Create(filepath.Join(work, "server.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	baseURL = "http://" + addr
	stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		logFile.Close()
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(baseURL + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return stop, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	log, _ := os.ReadFile(filepath.Join(work, "server.log"))
	return nil, fmt.Errorf("server did not become healthy on %s:\n%s", addr, log)
}

// serverEnv is extra environment for the server process (FREIGHTSITE_*).
var serverEnv []string

// buildArgs are extra flags of `freightsite build` (e.g. --set), filled
// by package-level initialisers of the test files that need them.
var buildArgs []string

// siteBuildOutput is what that build printed (the build example of docs/commands.md).
var siteBuildOutput []byte

// page is one browser tab in its own browser context (fresh storage),
// recording what the page writes to the console.
type page struct {
	t   *testing.T
	ctx context.Context

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
	marks   chan string // the marks settleConsole logged, as they arrive
}

// pageOption adjusts a tab before its first navigation.
type pageOption func(*testing.T, context.Context)

// acceptLanguage makes the browser report these languages (navigator.languages).
func acceptLanguage(langs string) pageOption {
	return func(t *testing.T, ctx context.Context) {
		if _, err := chromedp.Call(ctx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{
			UserAgent:      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36",
			AcceptLanguage: langs,
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// viewport sets the window size, e.g. 360 x 740 for a phone.
func viewport(w, h int64) pageOption {
	return func(t *testing.T, ctx context.Context) {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h)); err != nil {
			t.Fatal(err)
		}
	}
}

// colorScheme makes the page see the device's colour scheme as "light" or
// "dark" (prefers-color-scheme).
func colorScheme(scheme string) pageOption {
	return func(t *testing.T, ctx context.Context) {
		if err := emulateColorScheme(ctx, scheme); err != nil {
			t.Fatal(err)
		}
	}
}

func emulateColorScheme(ctx context.Context, scheme string) error {
	_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
	return err
}

// resize gives the tab this screen's viewport, also where a page stands
// (it lays itself out again, as on a phone turned sideways).
func (p *page) resize(s screen) {
	p.t.Helper()
	p.do(chromedp.EmulateViewport(s.width, s.height))
}

// switchColorScheme changes the colour scheme the open page sees, as a
// phone's does at sunset: the page restyles itself without loading again.
func (p *page) switchColorScheme(scheme string) {
	p.t.Helper()
	if err := emulateColorScheme(p.ctx, scheme); err != nil {
		p.t.Fatal(err)
	}
}

func newPage(t *testing.T, opts ...pageOption) *page {
	t.Helper()
	if browser == nil {
		t.Skip(skipWhy)
	}
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	// Each action has its own time limit (actionLimit); this one only
	// stops a tab that a test drives directly (chromedp.Call on p.ctx)
	// from outliving a hung browser by much.
	ctx, cancelTimeout := context.WithTimeout(ctx, 5*time.Minute)
	t.Cleanup(cancelTimeout)
	p := &page{t: t, ctx: ctx, marks: make(chan string, 16)}
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	// chromedp turns on every DevTools domain a tab has; the CSS domain
	// (every style sheet reported) and the Network one (every response
	// copied for DevTools) cost the browser CPU on each page and no test
	// reads them: a test that needs Network turns it on again.
	for _, off := range []string{css.CommandDisable, network.CommandDisable} {
		if err := chromedp.FromContext(ctx).Target.Call(ctx, off, nil, nil); err != nil {
			t.Fatalf("opening a tab: %s: %v", off, err)
		}
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleDebug && strings.HasPrefix(m.Text, consoleMark) {
				select {
				case p.marks <- m.Text:
				case <-ctx.Done():
					return
				}
				continue
			}
			p.mu.Lock()
			p.console = append(p.console, m)
			p.mu.Unlock()
		}
	}()
	for _, o := range opts {
		o(t, ctx)
	}
	return p
}

// actionLimit is how long one action on a tab (a navigation, an
// evaluation, a wait) may take. The limit is an action's, not a tab's: a
// long journey in one tab (TestAccountJourney) takes minutes on a busy
// machine, where each of its steps still takes seconds.
const actionLimit = 30 * time.Second

// do runs actions and fails the test on error.
func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionLimit)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

// open navigates to a path of the site and waits until the page has loaded.
func (p *page) open(path string) {
	p.t.Helper()
	p.do(chromedp.Navigate(baseURL + path))
	p.waitLoaded()
}

// loaded is true once a page has loaded without redirecting (the boot
// script marks <html> with .js only when it stays) and its islands have
// hydrated, but for those that wait for the visitor's first interaction
// (data-on-interaction, the not-found page's).
const loaded = `document.readyState === 'complete' && document.documentElement.classList.contains('js') && [...document.querySelectorAll('[data-island]')].every(el => el.dataset.hydrated === 'true' || el.dataset.onInteraction !== undefined)`

// waiting is true while an island waits for the visitor's interaction.
const waiting = `[...document.querySelectorAll('[data-island][data-on-interaction]')].some(el => el.dataset.hydrated !== 'true')`

// waitLoaded waits until the current page has loaded and, as a visitor's
// first move of the mouse does, wakes the islands that wait for one;
// evaluation errors while a navigation replaces the document are retried.
func (p *page) waitLoaded() {
	p.t.Helper()
	p.waitFor(loaded)
	if eval[bool](p, waiting) {
		p.wake()
	}
}

// wake moves the mouse over the page until the islands waiting for an
// interaction have hydrated (a move before the client listens for one,
// just after the first paint, wakes nothing).
func (p *page) wake() {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for x := 1.0; time.Now().Before(deadline); x = 3 - x {
		p.do(chromedp.MouseEvent(chromedp.MouseMoved, x, x))
		if eval[bool](p, `new Promise(done => { const until = Date.now() + 1000; (function check() { if (!(`+waiting+`) || Date.now() > until) done(!(`+waiting+`)); else setTimeout(check, 25); })(); })`) {
			return
		}
	}
	p.t.Fatal("the islands waiting for an interaction did not hydrate after the mouse moved")
}

// waitFor waits until the expression is true, across navigations.
func (p *page) waitFor(expr string) {
	p.t.Helper()
	p.waitWithin(expr, 20*time.Second)
}

// waitWithin waits up to limit until the expression (a promise is
// awaited) is true, across navigations; an evaluation that hangs counts
// against the limit too.
func (p *page) waitWithin(expr string, limit time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(limit)
	ctx, cancel := context.WithDeadline(p.ctx, deadline)
	defer cancel()
	var last error
	js := withFinders(expr)
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
		if err == nil && ok {
			return
		}
		last = err
		time.Sleep(25 * time.Millisecond)
	}
	p.t.Fatalf("waiting for %s: timed out (%v)", expr, last)
}

// click clicks the element sel names (see locate) once it is visible.
func (p *page) click(sel string) {
	p.t.Helper()
	p.do(chromedp.Click(locate(sel), chromedp.NodeVisible))
}

// The finders of finders.js look for elements as a visitor does: by role
// and accessible name, by label, by the text on screen. An expression
// that names one gets them (see withFinders).
var (
	//go:embed finders.js
	findersJS string
	// usesFinders matches an expression that calls a finder.
	usesFinders = regexp.MustCompile(`\b(byRole|allByRole|byLabel|byText|nameOf|descriptionOf|roleOf|fieldErrors)\(`)
)

// withFinders prefixes expr with the definition of the finders, run only
// when the page does not have them yet (a new document does not), if expr
// uses one; the expression's value stays the script's value.
func withFinders(expr string) string {
	if !usesFinders.MatchString(expr) {
		return expr
	}
	return "globalThis.byRole || " + strings.TrimSpace(findersJS) + "\n" + expr
}

// locate is the element sel names for chromedp's actions: a finder
// expression such as byRole("button", "Send") (a visitor's way), or else
// a CSS selector (its first match).
func locate(sel string) chromedp.JSPath {
	if usesFinders.MatchString(sel) {
		return chromedp.JSPath(withFinders(sel))
	}
	return chromedp.JSPath("document.querySelector(" + jsString(sel) + ")")
}

// byRole, byLabel and byText write the finder expressions of finders.js,
// for click and the like or inside a longer expression: the element with
// this ARIA role (and accessible name, when one is given), the form
// control with this label, the innermost element on screen with this text.
func byRole(role string, name ...string) string {
	args := []string{jsString(role)}
	for _, n := range name {
		args = append(args, jsString(n))
	}
	return "byRole(" + strings.Join(args, ", ") + ")"
}

func byLabel(label string) string { return "byLabel(" + jsString(label) + ")" }

func byText(text string) string { return "byText(" + jsString(text) + ")" }

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// follow clicks a link (or a button that navigates), named as for click,
// and waits for the new page to load.
func (p *page) follow(sel string) {
	p.t.Helper()
	before := eval[float64](p, `performance.timeOrigin`)
	p.click(sel)
	p.waitFor(fmt.Sprintf(`performance.timeOrigin !== %v && (%s)`, before, loaded))
}

// eval evaluates a JavaScript expression (promises awaited) into T.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionLimit)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](withFinders(expr), chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// location is the current URL path with query.
func (p *page) location() string {
	return eval[string](p, `location.pathname + location.search`)
}

// consoleErrors are the errors and warnings the page logged, exceptions
// included, and clears them. The browser's note that a not-found page
// answered 404 is expected there and left out.
func (p *page) consoleErrors() []string {
	p.settleConsole()
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, m := range p.console {
		if m.Source == "network" && strings.Contains(m.Text, "status of 404") && !strings.Contains(m.URL, "/assets/") && !strings.Contains(m.URL, "/api/") {
			continue
		}
		switch m.Type {
		case "error", "warning", "assert", chromedp.ConsoleException:
			out = append(out, fmt.Sprintf("%s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line))
		}
	}
	p.console = nil
	return out
}

// consoleMark begins the messages settleConsole logs.
const consoleMark = "e2e: console mark "

var consoleMarks atomic.Int64

// settleConsole waits until every message the page has logged so far has
// reached p.console (DevTools reports them as events, which may come after
// the answer to a later command): it logs a mark and waits for it, since
// the browser reports a tab's messages in the order they were logged.
func (p *page) settleConsole() {
	p.t.Helper()
	mark := fmt.Sprintf("%s%d", consoleMark, consoleMarks.Add(1))
	deadline := time.Now().Add(actionLimit)
	ctx, cancel := context.WithDeadline(p.ctx, deadline)
	defer cancel()
	// An evaluation fails while a navigation replaces the document: the
	// next one goes to the new document.
	for {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`console.debug(`+jsString(mark)+`)`))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("logging a console mark: %v", err)
		}
		time.Sleep(25 * time.Millisecond)
	}
	for {
		select {
		case m := <-p.marks:
			if m == mark {
				return
			}
		case <-ctx.Done():
			p.t.Fatalf("the console mark %q never arrived", mark)
		}
	}
}

func (p *page) expectNoConsoleErrors() {
	p.t.Helper()
	if errs := p.consoleErrors(); len(errs) > 0 {
		p.t.Errorf("%s: console errors:\n  %s", p.location(), strings.Join(errs, "\n  "))
	}
}

// axeViolation is one failed rule of axe-core.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

// expectAccessible runs axe-core (WCAG 2.1 A and AA plus best practices)
// on the current page and reports every violation.
func (p *page) expectAccessible() {
	p.t.Helper()
	p.axe(`{type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}`, 10)
}

// expectReadableColours runs only axe-core's rules about colour (text
// contrast, links told apart from the text around them) once the
// transitions under way have ended: after switchColorScheme, the rules
// that the other scheme could break.
func (p *page) expectReadableColours() {
	p.t.Helper()
	p.axe(`{type: 'rule', values: ['color-contrast', 'link-in-text-block']}`, 1)
}

// axe runs axe-core's rules chosen by runOnly (an axe.run option) on the
// current page, after any finite animation or transition has ended
// (contrast is judged on the colours shown), and reports every violation;
// fewer than minPasses rules passed means it checked nothing.
func (p *page) axe(runOnly string, minPasses int) {
	p.t.Helper()
	if eval[bool](p, `typeof window.axe === 'undefined'`) {
		p.do(chromedp.Evaluate[chromedp.Void](axeSource))
	}
	raw := eval[string](p, `Promise.all(document.getAnimations().filter(a => a.effect?.getComputedTiming().endTime !== Infinity).map(a => a.finished.catch(() => {})))
		.then(() => axe.run(document, {runOnly: `+runOnly+`, resultTypes: ['violations']}))
		.then(r => JSON.stringify({passes: r.passes.length, violations: r.violations}))`)
	var result struct {
		Passes     int            `json:"passes"`
		Violations []axeViolation `json:"violations"`
	}
	if err := json.Unmarshal([]byte(raw), &result); err != nil {
		p.t.Fatal(err)
	}
	if result.Passes < minPasses {
		p.t.Errorf("%s: axe passed only %d rules: did it check the page at all?", p.location(), result.Passes)
	}
	for _, v := range result.Violations {
		var where []string
		for _, n := range v.Nodes {
			where = append(where, fmt.Sprint(n.Target)+" "+n.HTML)
		}
		p.t.Errorf("%s: axe %s (%s): %s\n    %s", p.location(), v.ID, v.Impact, v.Help, strings.Join(where, "\n    "))
	}
}

// screenshot saves a PNG under e2e/screenshots when SCREENSHOTS is set,
// for people to look at.
func (p *page) screenshot(name string) {
	if os.Getenv("SCREENSHOTS") == "" {
		return
	}
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatal(err)
	}
	dir := filepath.Join(root, "e2e", "screenshots")
	_ = os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// throttleUploads limits what the page sends to bytesPerSecond (-1: no
// limit), as on a slow line.
func (p *page) throttleUploads(bytesPerSecond float64) {
	p.t.Helper()
	if _, err := chromedp.Call(p.ctx, network.Enable, network.EnableParams{}); err != nil {
		p.t.Fatal(err)
	}
	conditions := []*network.Conditions{{DownloadThroughput: -1, UploadThroughput: bytesPerSecond}}
	if _, err := chromedp.Call(p.ctx, emulateNetworkConditionsByRule, networkConditionsByRule{MatchedNetworkConditions: conditions}); err != nil {
		p.t.Fatal(err)
	}
}

// emulateNetworkConditionsByRule is Network.emulateNetworkConditionsByRule
// with its offline parameter, which Chromium 148 requires ("Invalid
// parameters" without it) and cdproto's params leave out.
var emulateNetworkConditionsByRule = cdp.Command[networkConditionsByRule, network.EmulateNetworkConditionsByRuleResult]{Method: network.CommandEmulateNetworkConditionsByRule}

type networkConditionsByRule struct {
	Offline                  bool                  `json:"offline"`
	MatchedNetworkConditions []*network.Conditions `json:"matchedNetworkConditions"`
}

// download clicks what starts a download and returns the downloaded file.
func (p *page) download(sel string) string {
	p.t.Helper()
	dir := p.t.TempDir()
	id, events := chromedp.FromContext(p.ctx).BrowserContextID, true
	if _, err := chromedp.Call(p.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, BrowserContextID: id, DownloadPath: dir, EventsEnabled: &events,
	}); err != nil {
		p.t.Fatal(err)
	}
	done := make(chan string, 1)
	ctx, stop := context.WithCancel(p.ctx)
	defer stop()
	progress := chromedp.Events(ctx, cdpbrowser.DownloadProgress)
	go func() {
		for ev, err := range progress {
			if err != nil {
				return
			}
			if ev.State == cdpbrowser.DownloadProgressStateCompleted {
				done <- filepath.Join(dir, ev.GUID)
				return
			}
		}
	}()
	p.click(sel)
	select {
	case file := <-done:
		b, err := os.ReadFile(file)
		if err != nil {
			p.t.Fatal(err)
		}
		return string(b)
	case <-time.After(20 * time.Second):
		p.t.Fatal("no download within 20 s")
	}
	return ""
}
