package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestIslandsLoadAfterTheFirstPaint: a form page asks for React only after
// its first contentful paint (the client entry waits for it); so does the
// news feed, whose items are in its HTML (the build's archive): it asks
// the API for the list once, after the first paint, to refresh it.
func TestIslandsLoadAfterTheFirstPaint(t *testing.T) {
	p := newPage(t, viewport(360, 740))
	p.open("/registration")
	type entry struct {
		Initiator string  `json:"initiator"`
		Start     float64 `json:"start"`
	}
	resources := func(part string) []entry {
		return eval[[]entry](p, `performance.getEntriesByType('resource').filter(e => e.name.includes('`+part+`')).map(e => ({initiator: e.initiatorType, start: e.startTime}))`)
	}
	fcp := eval[float64](p, `performance.getEntriesByName('first-contentful-paint')[0].startTime`)
	react := resources("/assets/build/hydrate-")
	if len(react) != 1 || react[0].Start < fcp {
		t.Errorf("/registration: React requested %+v, want once, after the first paint at %.0f ms", react, fcp)
	}

	p.open("/news-feed")
	p.waitFor(newsItems + `.length > 0 && performance.getEntriesByType('resource').some(e => e.name.includes('/api/news'))`)
	fcp = eval[float64](p, `performance.getEntriesByName('first-contentful-paint')[0].startTime`)
	if news := resources("/api/news"); len(news) != 1 || news[0].Start < fcp {
		t.Errorf("/news-feed: /api/news requested %+v, want once, after the first paint at %.0f ms", news, fcp)
	}
	p.expectNoConsoleErrors()
}

// TestFormsWaitForTheirIsland: a form submitted before its island is live
// (here React never loads) stays on the page: the browser's own submit, a
// GET with the password in the address, is held back. A page whose
// scripts do not load reloads once, then says so.
func TestFormsWaitForTheirIsland(t *testing.T) {
	p := newPage(t, viewport(360, 740))
	if _, err := chromedp.Call(p.ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(p.ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/assets/build/hydrate-*", Block: true}}}); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.Navigate(baseURL + "/ma/login"))
	// The page reloads once to get scripts that load; when they still do
	// not, it says so in its language.
	p.waitFor(announced("alert") + ` !== ''`)
	if kind := eval[string](p, `performance.getEntriesByType('navigation')[0].type`); kind != "reload" {
		t.Errorf("the notice shows after a %q navigation, want after one reload", kind)
	}
	if got := eval[string](p, announced("alert")); !strings.Contains(got, "या पानाचा काही भाग लोड होऊ शकला नाही") || !strings.Contains(got, "पान पुन्हा लोड करा") {
		t.Errorf("the notice reads %q, want the Marathi text and button", got)
	}
	p.screenshot("scripts-load-failed-ma-login-phone")
	origin := eval[float64](p, `performance.timeOrigin`)
	// Each submit event, once it has passed every listener: whether its
	// default action, the browser's own submit, was prevented.
	p.do(
		chromedp.Evaluate[chromedp.Void](`window.submits = []; window.addEventListener('submit', e => window.submits.push(e.defaultPrevented))`),
		chromedp.SendKeys(chromedp.CSS(`input[name=username]`), "meera@sahyadri.in"),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "Truck@2024"),
	)
	p.click(`form button[type=submit]`)
	if eval[bool](p, `document.querySelector('[data-island="Login"]').dataset.hydrated === 'true'`) {
		t.Fatal("the login island hydrated although React was blocked")
	}
	if n := eval[int](p, `window.submits?.length ?? -1`); n != 1 {
		t.Fatalf("%d submit events: the click did not submit the form, or the page was replaced", n)
	}
	// A submit whose default action was prevented sends nothing: no
	// navigation can follow.
	if !eval[bool](p, `window.submits[0]`) {
		t.Error("the form's submit event went on to the browser's own submit")
	}
	if now := eval[float64](p, `performance.timeOrigin`); now != origin || p.location() != "/ma/login" {
		t.Errorf("the form submitted the browser's way before its island was live: now at %s", p.location())
	}
}

// TestACaptchaThatCannotLoadSaysSo: when the captcha widget's script
// does not load (the site was rebuilt long after the page was opened),
// the form says so in its language and offers a reload, instead of a
// check that never starts.
func TestACaptchaThatCannotLoadSaysSo(t *testing.T) {
	for path, c := range map[string]struct{ lang, want string }{
		"/registration":       {"en", "The security check could not be loaded"},
		"/hi/forget-password": {"hi", "सुरक्षा जाँच लोड नहीं हो सकी"},
	} {
		want := c.want
		p := newPage(t)
		if _, err := chromedp.Call(p.ctx, network.Enable, network.EnableParams{}); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Call(p.ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/assets/build/altcha-*", Block: true}}}); err != nil {
			t.Fatal(err)
		}
		p.open(path)
		p.click(`form input:not([type=hidden])`)
		alert := `byRole('alert', undefined, ` + byRole("group", tr(t, c.lang, "captcha.heading")) + `)`
		p.waitFor(alert + ` !== null`)
		if got := eval[string](p, alert+`.textContent`); !strings.Contains(got, want) {
			t.Errorf("%s: the captcha says %q, want %q", path, got, want)
		}
		if eval[bool](p, `byRole('button', undefined, `+alert+`) === null`) {
			t.Errorf("%s: no reload button", path)
		}
		p.screenshot("captcha-load-failed" + strings.ReplaceAll(path, "/", "-"))
	}
}
