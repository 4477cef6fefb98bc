package e2e

import (
	"database/sql"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The offline service worker (pages/sw.ts): after one visit the pages of
// the visitor's language open without a network, with the banner; a
// contact message written offline reaches the database once, when the
// connection returns; a rebuild is picked up at the next visit.

// offlineRule is Network.emulateNetworkConditionsByRule as Chromium 148
// takes it: offline for every request of the tab, its service worker's
// too, is a parameter of the command (cdproto's newer protocol has it in
// each condition, which this Chromium refuses).
type offlineRule struct {
	Offline                     bool                  `json:"offline"`
	EmulateOfflineServiceWorker bool                  `json:"emulateOfflineServiceWorker"`
	MatchedNetworkConditions    []*network.Conditions `json:"matchedNetworkConditions"`
}

var emulateOffline = cdp.Command[offlineRule, cdp.Empty]{Method: network.CommandEmulateNetworkConditionsByRule}

// setOffline cuts the tab's network, its service worker's included, and
// tells the page (navigator.onLine and the offline event), as a phone
// losing its connection; false brings it back (the online event).
func (p *page) setOffline(off bool) {
	p.t.Helper()
	if _, err := chromedp.Call(p.ctx, network.Enable, network.EnableParams{}); err != nil {
		p.t.Fatal(err)
	}
	conditions := []*network.Conditions{{DownloadThroughput: -1, UploadThroughput: -1}}
	if _, err := chromedp.Call(p.ctx, emulateOffline, offlineRule{Offline: off, EmulateOfflineServiceWorker: off, MatchedNetworkConditions: conditions}); err != nil {
		p.t.Fatal("Network.emulateNetworkConditionsByRule: ", err)
	}
	if _, err := chromedp.Call(p.ctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: off, DownloadThroughput: -1, UploadThroughput: -1}); err != nil {
		p.t.Fatal("Network.overrideNetworkState: ", err)
	}
}

// waitAsync waits until the expression (a promise, as the service
// worker's and IndexedDB's answers are) is true.
func (p *page) waitAsync(expr string) {
	p.t.Helper()
	p.waitWithin(expr, 30*time.Second)
}

// waitWorker waits until the service worker has kept the language's files
// and controls the page (it claims the pages once installed).
func (p *page) waitWorker() {
	p.t.Helper()
	p.waitFor(`navigator.serviceWorker.controller !== null && navigator.serviceWorker.controller.state === 'activated'`)
}

// banner is the offline banner's text (the status the worker puts first
// in the page's main part), "" when the page has none.
func (p *page) banner() string {
	return eval[string](p, announced("status", "byRole('main')"))
}

func TestOfflinePagesInTheVisitorsLanguage(t *testing.T) {
	p := newPage(t)
	p.open("/hi/faq")
	if got := p.banner(); got != "" {
		t.Errorf("online page with the offline banner %q", got)
	}
	p.waitWorker()
	p.setOffline(true)

	for _, path := range []string{"/hi/faq", "/hi", "/hi/contact-us"} {
		p.open(path)
		if got := p.location(); got != path {
			t.Errorf("offline %s: at %s", path, got)
		}
		if got := eval[string](p, `document.documentElement.lang`); got != "hi" {
			t.Errorf("offline %s: lang %q, want hi", path, got)
		}
		if got := p.banner(); got != tr(t, "hi", "offline.banner") {
			t.Errorf("offline %s: banner %q, want offline.banner in Hindi", path, got)
		}
	}
	if got := eval[string](p, `document.querySelector('h1').textContent`); got != tr(t, "hi", "contactUs.title") {
		t.Errorf("offline contact page: heading %q", got)
	}
	p.expectAccessible()

	// Forms that need a live answer say they need a connection: sign-in
	// when sent, the registration's check at once.
	p.open("/hi/login")
	p.fill(tr(t, "hi", "login.username"), "nobody@example.in")
	p.fill(tr(t, "hi", "login.password"), "Truck@2024")
	p.click(`form button[type=submit]`)
	p.waitNotice("bad")
	if got := p.notice("bad"); !strings.Contains(got, tr(t, "hi", "offline.needConnection")) {
		t.Errorf("offline sign-in: %q, want offline.needConnection", got)
	}
	p.open("/hi/registration")
	// Chromium's navigator.onLine override does not outlive the document:
	// set it again for this one (the offline event).
	p.setOffline(true)
	check := announced("status", byRole("group", tr(t, "hi", "captcha.heading")))
	p.waitFor(check + ` !== ''`)
	if got := eval[string](p, check); got != tr(t, "hi", "offline.needConnection") {
		t.Errorf("offline registration's check: %q, want offline.needConnection", got)
	}
	p.expectAccessible()

	// A page that was not kept: the language's home page says so.
	p.open("/hi/member-details-no-such-member")
	if got := p.banner(); got != tr(t, "hi", "offline.notSaved") {
		t.Errorf("offline, a page not kept: banner %q, want offline.notSaved in Hindi", got)
	}
	p.setOffline(false)
	p.open("/hi/faq")
	if got := p.banner(); got != "" {
		t.Errorf("back online: banner %q", got)
	}
}

// TestOfflineKeepsEachLanguageOpened: one worker serves every language; a
// visitor who reads in Hindi and then in Marathi has the pages of both on
// the phone, with no new worker installed for the second language (a
// worker replaced during a visit's navigations once left the tab's load
// unfinished).
func TestOfflineKeepsEachLanguageOpened(t *testing.T) {
	p := newPage(t)
	p.open("/hi/faq")
	p.waitWorker()
	p.open("/ma/faq")
	p.waitAsync(`caches.keys().then(k => k.length === 2 && k.some(n => n.startsWith('site-hi-')) && k.some(n => n.startsWith('site-ma-')))`)
	if same := eval[bool](p, `navigator.serviceWorker.getRegistration().then(r => r.installing === null && r.waiting === null && new URL(r.active.scriptURL).pathname + new URL(r.active.scriptURL).search === '/sw.js')`); !same {
		t.Error("opening a page in another language installed another worker")
	}
	// The Marathi cache fills in the background: wait until it holds as
	// many files as the Hindi one (every route is in every language).
	p.waitAsync(`(async () => {
	  const count = async (lang) => (await (await caches.open((await caches.keys()).find(n => n.startsWith('site-' + lang + '-')))).keys()).length;
	  return await count('ma') === await count('hi');
	})()`)
	p.setOffline(true)
	for _, c := range []struct{ path, lang, htmlLang string }{{"/ma", "ma", "mr"}, {"/ma/values", "ma", "mr"}, {"/hi/values", "hi", "hi"}} {
		p.open(c.path)
		if got := eval[string](p, `document.documentElement.lang`); got != c.htmlLang {
			t.Errorf("offline %s: lang %q, want %s", c.path, got, c.htmlLang)
		}
		if got := p.banner(); got != tr(t, c.lang, "offline.banner") {
			t.Errorf("offline %s: banner %q, want offline.banner in %s", c.path, got, c.lang)
		}
	}
}

// offlineSite serves the harness's dist on a database of the test's own
// and opens path there once online, so the worker is installed and
// controls the page; then the connection drops: the tab's emulation plus
// the server stopped (the browser's Background Sync sees the machine's
// own network, which stays up, and would otherwise send at once). count
// runs a COUNT query on the test's database.
func offlineSite(t *testing.T, path string) (server *siteServer, p *page, count func(query string, args ...any) int) {
	t.Helper()
	if browser == nil {
		t.Skip(skipWhy)
	}
	db := filepath.Join(t.TempDir(), "site.db")
	server = serveDist(t, filepath.Join(work, "dist"), db)
	p = newPage(t)
	p.do(chromedp.Navigate(server.url() + path))
	p.waitLoaded()
	p.waitWorker()
	p.setOffline(true)
	server.stop()
	conn, err := sql.Open("sqlite3", "file:"+db+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	count = func(query string, args ...any) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(query, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	return server, p, count
}

// expectKept checks the form's notice that the submission is kept on the
// phone, in the page's language.
func (p *page) expectKept(lang string) {
	p.t.Helper()
	p.waitFor(byText(tr(p.t, lang, "offline.queuedTitle")) + ` !== null`)
	if got, want := p.notice("ok"), tr(p.t, lang, "offline.queuedTitle")+tr(p.t, lang, "offline.queuedText"); got != want {
		p.t.Errorf("kept notice %q, want %q", got, want)
	}
	p.expectAccessible()
}

// backOnline starts the server again and ends the emulation (the page's
// online event sends the outbox), and asks the worker to send it too, at
// the same moment.
func (p *page) backOnline(server *siteServer) {
	p.t.Helper()
	server.start()
	p.setOffline(false)
	p.do(chromedp.Evaluate[chromedp.Void](`navigator.serviceWorker.controller.postMessage('flush')`))
}

// TestOfflineContactMessageIsSentOnce: a contact message sent offline is
// kept (the form says so in Marathi) and reaches the database once the
// connection returns, exactly once although both the page (online event)
// and the service worker (asked to, as by Background Sync or a visit)
// send it.
func TestOfflineContactMessageIsSentOnce(t *testing.T) {
	server, p, count := offlineSite(t, "/ma/contact-us")
	subject := "e2e offline " + t.Name()
	p.fill(tr(t, "ma", "contact.name"), "Sneha Patil")
	p.fill(tr(t, "ma", "contact.email"), "sneha@example.in")
	p.fill(tr(t, "ma", "contact.phone"), "9820012345")
	p.fill(tr(t, "ma", "contact.subject"), subject)
	p.fill(tr(t, "ma", "contact.message"), "Return load from Nashik to Pune, please.")
	p.click(`form button[type=submit]`)
	p.expectKept("ma")
	if n := count(`SELECT COUNT(*) FROM contact_messages`); n != 0 {
		t.Fatalf("%d messages stored while offline", n)
	}

	p.backOnline(server)
	sent := byText(tr(t, "ma", "contact.sentTitle"))
	p.waitFor(sent + ` !== null`)
	if !eval[bool](p, sent+`.closest('[role=status]') !== null`) {
		t.Errorf("the sent view's title %q is not in a status", tr(t, "ma", "contact.sentTitle"))
	}
	// The next visit (the worker sends what is left then) changes nothing.
	p.do(chromedp.Navigate(server.url() + "/ma/faq"))
	p.waitLoaded()
	p.waitAsync(`new Promise(r => { const q = indexedDB.open('outbox'); q.onsuccess = () => { const db = q.result; const c = db.transaction('requests').objectStore('requests').count(); c.onsuccess = () => { db.close(); r(c.result === 0); }; }; })`)
	if n := count(`SELECT COUNT(*) FROM contact_messages WHERE subject = ?`, subject); n != 1 {
		t.Errorf("%d messages stored, want exactly 1", n)
	}
	if n := count(`SELECT COUNT(*) FROM outbox WHERE subject = ?`, "Contact form: "+subject); n != 1 {
		t.Errorf("%d notifications queued, want exactly 1", n)
	}
	p.consoleErrors() // the requests that found no network are logged, as they should be
}

// TestOfflineFeedbackKeepsItsAttachment: feedback with a PNG sent offline
// from the Hindi page is kept with its file and stored once, file and
// all, when the connection returns; the form shows its success banner.
func TestOfflineFeedbackKeepsItsAttachment(t *testing.T) {
	server, p, count := offlineSite(t, "/hi/feedback-form")
	p.fill(tr(t, "hi", "feedback.feedback"), "समाचार पृष्ठ नहीं खुला।")
	p.fill(tr(t, "hi", "feedback.name"), "Farhan Shaikh")
	p.fill(tr(t, "hi", "feedback.email"), "farhan@example.in")
	p.do(chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{writeFile(t, "screen.png", pngFile)}))
	p.click(`form button[type=submit]`)
	p.expectKept("hi")
	if n := count(`SELECT COUNT(*) FROM feedback`); n != 0 {
		t.Fatalf("%d feedback rows stored while offline", n)
	}
	p.backOnline(server)
	p.waitFor(byText(tr(t, "hi", "feedback.success")) + ` !== null`)
	if got := p.notice("ok"); got != tr(t, "hi", "feedback.success") {
		t.Errorf("success banner %q", got)
	}
	p.waitFor(byText(tr(t, "hi", "offline.queuedTitle")) + ` === null`)
	if n := count(`SELECT COUNT(*) FROM feedback f JOIN attachments a ON a.id = f.attachment_id WHERE f.name = 'Farhan Shaikh' AND a.media_type = 'image/png' AND a.name = 'screen.png'`); n != 1 {
		t.Errorf("%d feedback rows with the PNG, want exactly 1", n)
	}
	p.consoleErrors()
}

// TestServiceWorkerUpdatesAfterRebuild: on a site of its own, a rebuild
// that changes a page is picked up at the next visit: the new worker
// takes over, the old one's cache is deleted, and the page kept for
// offline use is the new one.
func TestServiceWorkerUpdatesAfterRebuild(t *testing.T) {
	if browser == nil {
		t.Skip(skipWhy)
	}
	dir := t.TempDir()
	dist := filepath.Join(dir, "dist")
	build := func(donate string) {
		t.Helper()
		out, err := exec.Command(binary, "build", "--root", root, "--out", dist, "--set", "payment.donationURL="+donate).CombinedOutput()
		if err != nil {
			t.Fatalf("build: %v\n%s", err, out)
		}
	}
	build("https://pay.example/before")
	site := serveDist(t, dist, filepath.Join(dir, "site.db")).url()

	p := newPage(t)
	p.do(chromedp.Navigate(site + "/donate"))
	p.waitLoaded()
	p.waitWorker()
	before := eval[[]string](p, `caches.keys()`)
	if len(before) != 1 {
		t.Fatalf("caches %v, want the worker's one", before)
	}

	build("https://pay.example/after")
	p.do(chromedp.Navigate(site + "/faq"))
	p.waitLoaded()
	p.waitAsync(fmt.Sprintf(`caches.keys().then(k => k.length === 1 && k[0] !== %q)`, before[0]))
	p.waitWorker()

	p.setOffline(true)
	p.do(chromedp.Navigate(site + "/donate"))
	p.waitLoaded()
	if p.banner() == "" {
		t.Error("offline /donate has no banner")
	}
	if html := eval[string](p, `document.documentElement.outerHTML`); !strings.Contains(html, "pay.example/after") || strings.Contains(html, "pay.example/before") {
		t.Error("the page kept for offline use is the old build's")
	}
}

// siteServer is `freightsite serve` on a dist and database of a test's
// own, stopped and started again on the same address as a connection
// that drops and returns (for the page and its service worker alike).
type siteServer struct {
	t              *testing.T
	addr, dist, db string
	cmd            *exec.Cmd
}

// serveDist starts a siteServer for as long as the test runs.
func serveDist(t *testing.T, dist, db string) *siteServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &siteServer{t: t, addr: ln.Addr().String(), dist: dist, db: db}
	ln.Close()
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *siteServer) url() string { return "http://" + s.addr }

func (s *siteServer) start() {
	s.t.Helper()
	s.cmd = exec.Command(binary, "serve", "--addr", s.addr, "--dist", s.dist, "--db", s.db)
	s.cmd.Env = append(os.Environ(), serverEnv...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(s.url() + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("serve on %s did not become healthy", s.addr)
}

func (s *siteServer) stop() {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(os.Interrupt)
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}
