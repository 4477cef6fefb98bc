package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// Tests of a visitor's site without traps: the phone menu and
// header at 320 px and without JavaScript, the not-found page's feedback
// link, and the feedback dialog's focus.

// narrow is the narrowest phone screen the site is made for.
var narrow = screen{320, 568}

// withoutJavaScript turns the tab's scripts off before its first page,
// as a browser with JavaScript disabled.
func withoutJavaScript(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
}

// openWithoutJavaScript opens a page in a tab whose scripts are off and
// waits until it has loaded, checking that no script ran.
func (p *page) openWithoutJavaScript(path string) {
	p.t.Helper()
	p.do(chromedp.Navigate(baseURL + path))
	p.waitFor(`document.readyState === 'complete'`)
	if eval[bool](p, `document.documentElement.classList.contains('js') || window.dataLayer !== undefined`) {
		p.t.Fatalf("%s: scripts ran in a tab without JavaScript", path)
	}
}

// scripts turns the tab's script execution on or off.
func (p *page) scripts(on bool) {
	p.t.Helper()
	if _, err := chromedp.Call(p.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on}); err != nil {
		p.t.Fatal(err)
	}
}

// expectAccessibleWithoutJavaScript runs axe-core on a page opened
// without JavaScript: axe needs timers and promises, so scripts are on
// while it runs (the page's own scripts, skipped when it loaded, stay
// unrun), then off again. dark checks the colours in the dark scheme too.
func (p *page) expectAccessibleWithoutJavaScript(dark bool) {
	p.t.Helper()
	p.scripts(true)
	defer p.scripts(false)
	p.expectAccessible()
	if dark {
		p.switchColorScheme("dark")
		p.expectReadableColours()
		p.switchColorScheme("light")
	}
}

// headerCover is how many pixels of the viewport the header covers.
const headerCover = `(() => { const r = document.querySelector('header').getBoundingClientRect(); return Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0)); })()`

// visibleMenuLinks counts the navigation and language links shown.
// menuLinksShown is how many links the open menu shows (a desktop's
// header): home, members, news, FAQ and contact, login and sign up, the
// three languages; the group about the network is closed.
const menuLinksShown = 10

const visibleMenuLinks = `[...document.querySelectorAll('header nav a')].filter(a => a.checkVisibility({visibilityProperty: true})).length`

// expectHeaderWithinAFifth checks, at the top of the page and scrolled
// down it, that the header covers at most a fifth of the screen and that
// the page does not scroll sideways. A menu the visitor opened fills the
// top of the page: with it open, only the page scrolled down is checked,
// where the header must not follow.
func (p *page) expectHeaderWithinAFifth(what string, menuOpen bool) {
	p.t.Helper()
	at := []string{"0", "innerHeight", "document.documentElement.scrollHeight"}
	if menuOpen {
		at = []string{"2 * innerHeight", "document.documentElement.scrollHeight"}
	}
	for _, to := range at {
		p.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, ` + to + `)`))
		p.waitFor(`Math.abs(scrollY - Math.min(` + to + `, document.documentElement.scrollHeight - innerHeight)) < 2`)
		cover, height := eval[float64](p, headerCover), eval[float64](p, `innerHeight`)
		if cover > height/5 {
			p.t.Errorf("%s, scrolled to %s: the header covers %.0f of %.0f px, more than a fifth", what, to, cover, height)
		}
		if wide := eval[int](p, `document.documentElement.scrollWidth`); wide > int(eval[float64](p, `innerWidth`)) {
			p.t.Errorf("%s: the page scrolls sideways (%d px wide)", what, wide)
		}
	}
	p.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
}

// TestPhoneMenuWithoutJavaScript: on a 320 px phone without JavaScript the
// menu starts collapsed behind its summary, which opens it; the header
// covers at most a fifth of the screen, open or closed, wherever the page
// is scrolled; a link of the open menu leads to its page; on a desktop
// without JavaScript the links show at once. In every language, light
// and dark, axe-clean.
func TestPhoneMenuWithoutJavaScript(t *testing.T) {
	for _, l := range languagesUnderTest {
		p := newPage(t, viewport(narrow.width, narrow.height), withoutJavaScript)
		p.openWithoutJavaScript(l.prefix + "/faq")
		menu := byRole("button", text(t, l.code, "nav.menu"))
		if n := eval[int](p, visibleMenuLinks); n != 0 {
			t.Errorf("%s/faq without JavaScript: %d menu links show before the menu is opened", l.prefix, n)
		}
		if right := eval[float64](p, `(`+menu+`).getBoundingClientRect().right`); right > float64(narrow.width) {
			t.Errorf("%s/faq: the menu's summary is cut off (its right edge at %.0f px)", l.prefix, right)
		}
		p.expectHeaderWithinAFifth(l.prefix+"/faq, menu closed", false)
		p.expectAccessibleWithoutJavaScript(true)

		p.click(menu)
		p.waitFor(fmt.Sprintf("%s === %d", visibleMenuLinks, menuLinksShown))
		if _, _, props := axNode(p, menu); props["expanded"] != "true" {
			t.Errorf("%s/faq: the open menu's summary is not exposed as expanded: %v", l.prefix, props)
		}
		p.screenshot(strings.TrimPrefix(strings.ReplaceAll(l.prefix+"/menu-open-no-js-320", "/", "_"), "_"))
		p.expectHeaderWithinAFifth(l.prefix+"/faq, menu open", true)
		p.expectAccessibleWithoutJavaScript(true)

		// A link of the open menu leads to its page, whose menu is closed.
		p.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		contact := byRole("link", text(t, l.code, "nav.contact"))
		p.click(contact)
		p.waitFor(`location.pathname === '` + l.prefix + `/contact-us' && document.readyState === 'complete'`)
		if n := eval[int](p, visibleMenuLinks); n != 0 {
			t.Errorf("%s/contact-us: %d menu links show on arrival", l.prefix, n)
		}

		d := newPage(t, viewport(desktop.width, desktop.height), withoutJavaScript)
		d.openWithoutJavaScript(l.prefix + "/faq")
		if n := eval[int](d, visibleMenuLinks); n != menuLinksShown {
			t.Errorf("%s/faq on a desktop without JavaScript: %d menu links show, want %d: 5 links, 2 buttons and 3 languages (the group closed)", l.prefix, n, menuLinksShown)
		}
		if eval[bool](d, byRole("button", text(t, l.code, "nav.menu"))+` !== null`) {
			t.Errorf("%s/faq on a desktop: the menu's summary shows", l.prefix)
		}
		d.expectAccessibleWithoutJavaScript(true)
	}
}

// TestPhoneHeaderWithJavaScript: with JavaScript the phone's bar stays at
// the top as the page scrolls, and covers at most a fifth of a 320 px
// screen; every page fits the 320 px width (TestEveryPageOnAPhoneAndADesktop).
func TestPhoneHeaderWithJavaScript(t *testing.T) {
	for _, l := range languagesUnderTest {
		p := newPage(t, viewport(narrow.width, narrow.height))
		p.open(l.prefix + "/registration")
		p.expectHeaderWithinAFifth(l.prefix+"/registration", false)
		p.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, innerHeight)`))
		p.waitFor(`scrollY > 0`)
		if top := eval[float64](p, `document.querySelector('header').getBoundingClientRect().top`); top != 0 {
			t.Errorf("%s/registration: the bar does not stay at the top (at %.0f px)", l.prefix, top)
		}
		menu := byRole("button", text(t, l.code, "nav.menu"))
		p.click(menu)
		p.waitFor(fmt.Sprintf("%s === %d", visibleMenuLinks, menuLinksShown))
		p.expectAccessible()
		p.do(chromedp.KeyEvent("\x1b"))
		p.waitFor(visibleMenuLinks + ` === 0`)
		if !eval[bool](p, `document.activeElement === (`+menu+`)`) {
			t.Errorf("%s: Escape did not return the focus to the menu's summary", l.prefix)
		}
		p.expectNoConsoleErrors()
	}
}

// TestNotFoundFeedbackWithoutJavaScript: without JavaScript, "Send
// feedback" on a not-found page is a link to the feedback form page with
// errorType 404, in the page's language; with it, a button opening the
// dialog.
func TestNotFoundFeedbackWithoutJavaScript(t *testing.T) {
	for _, l := range languagesUnderTest {
		p := newPage(t, viewport(narrow.width, narrow.height), withoutJavaScript)
		p.openWithoutJavaScript(l.prefix + "/no-such-page")
		link := byRole("link", text(t, l.code, "notFound.sendFeedback"))
		if got := eval[string](p, `(`+link+`).getAttribute('href')`); got != l.prefix+"/feedback-form?errorType=404" {
			t.Errorf("%s/no-such-page: Send feedback links to %q", l.prefix, got)
		}
		p.expectAccessibleWithoutJavaScript(true)
		p.click(link)
		p.waitFor(`location.pathname + location.search === '` + l.prefix + `/feedback-form?errorType=404' && document.readyState === 'complete'`)
		if h1 := eval[string](p, `document.querySelector('main h1').textContent`); h1 != text(t, l.code, "feedbackForm.title") {
			t.Errorf("%s: the feedback link led to a page titled %q", l.prefix, h1)
		}

		j := newPage(t, viewport(narrow.width, narrow.height))
		j.open(l.prefix + "/no-such-page")
		j.click(byRole("button", text(t, l.code, "notFound.sendFeedback")))
		j.waitFor(open)
		if eval[int](j, `[...document.querySelectorAll('main a')].filter(a => a.textContent === '`+text(t, l.code, "notFound.sendFeedback")+`').length`) != 0 {
			t.Errorf("%s/no-such-page with JavaScript still has the feedback link", l.prefix)
		}
		j.expectNoConsoleErrors()
	}
}

// TestFeedbackDialogKeepsFocusInside: Tab and Shift+Tab, pressed many
// times round, never leave the open dialog: not to the page under it, not
// out of the document, not to the dialog box itself.
func TestFeedbackDialogKeepsFocusInside(t *testing.T) {
	p := openFeedbackDialog(t, "/hi/no-such-page")
	const where = `(() => { const a = document.activeElement, d = document.querySelector('dialog#feedback-dialog');
  return !document.hasFocus() ? 'outside the document' : a === d ? 'the dialog box' : d.contains(a) ? 'inside' : (a?.tagName ?? 'nothing') + ' of the page'; })()`
	stops := map[string]bool{}
	for _, shift := range []bool{false, true} {
		for i := range 40 {
			key := chromedp.KeyEvent("\t")
			if shift {
				key = chromedp.KeyEvent("\t", chromedp.KeyModifiers(chromedp.ModifierShift))
			}
			p.do(key)
			if got := eval[string](p, where); got != "inside" {
				t.Fatalf("Tab %d (shift %v): the focus went to %s", i+1, shift, got)
			}
			stops[eval[string](p, `document.activeElement.outerHTML.slice(0, 60)`)] = true
		}
	}
	// The close button, the message, the file, name, e-mail, phone, Send.
	if len(stops) < 7 {
		t.Errorf("Tab reached only %d controls of the dialog: %v", len(stops), stops)
	}
	p.expectNoConsoleErrors()
}

// TestEveryPageAt320WithoutJavaScript: every page in every language, on a
// 320 px phone without JavaScript, fits the screen's width and its header
// (the menu collapsed) covers at most a fifth of the screen.
func TestEveryPageAt320WithoutJavaScript(t *testing.T) {
	pages, notFound := sitePages(t)
	p := newPage(t, viewport(narrow.width, narrow.height), withoutJavaScript)
	for _, path := range append(pages, notFound...) {
		p.openWithoutJavaScript(path)
		if wide := eval[[]string](p, overflowing); len(wide) > 0 {
			t.Errorf("%s without JavaScript: wider than a 320 px screen: %v", path, wide)
		}
		if n := eval[int](p, visibleMenuLinks); n != 0 {
			t.Errorf("%s without JavaScript: the menu is open on arrival (%d links show)", path, n)
		}
		if cover := eval[float64](p, headerCover); cover > float64(narrow.height)/5 {
			t.Errorf("%s without JavaScript: the header covers %.0f px of %d", path, cover, narrow.height)
		}
	}
}

// TestFAQSaysWhatSignUpDoes: the FAQ says an account is ready as soon as
// the form is sent, as the sign-up's success message does, and never
// that it waits for documents; in each language.
func TestFAQSaysWhatSignUpDoes(t *testing.T) {
	for _, l := range languagesUnderTest {
		p := newPage(t)
		p.open(l.prefix + "/faq")
		question := byRole("group", text(t, l.code, "faq.items.register.question"))
		answer := eval[string](p, `byRole('paragraph', undefined, `+question+`).textContent`)
		if answer != text(t, l.code, "faq.items.register.answer") {
			t.Errorf("%s/faq: the sign-up answer reads %q", l.prefix, answer)
		}
		for _, wrong := range []string{"working days", "दो कामकाजी दिनों", "दोन कामकाजाच्या"} {
			if strings.Contains(eval[string](p, `document.querySelector('main').textContent`), wrong) {
				t.Errorf("%s/faq still says accounts wait %q", l.prefix, wrong)
			}
		}
	}
}

// TestHomeShowsTheProviderInTheVisitorsLanguage: the home page's office
// address is the provider's in the page's language, as on the contact
// page (data/site.json).
func TestHomeShowsTheProviderInTheVisitorsLanguage(t *testing.T) {
	for _, l := range languagesUnderTest {
		p := newPage(t)
		p.open(l.prefix + "/")
		home := eval[string](p, `document.querySelector('main').textContent`)
		p.open(l.prefix + "/contact-us")
		address := eval[string](p, byRole("complementary", text(t, l.code, "contactUs.office"))+`?.textContent ?? ''`)
		want := map[string]string{"en": "Vashi, Navi Mumbai", "hi": "वाशी, नवी मुंबई", "ma": "वाशी, नवी मुंबई"}[l.code]
		if !strings.Contains(home, want) || !strings.Contains(address, want) {
			t.Errorf("%s: the home page or the contact page lacks the address with %q", l.prefix, want)
		}
		if l.code != "en" && strings.Contains(home, "Navi Mumbai, Maharashtra") {
			t.Errorf("%s/: the home page shows the address in English", l.prefix)
		}
	}
}
