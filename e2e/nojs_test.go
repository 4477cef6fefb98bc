package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Forms without JavaScript (issue 33, item 4): every form of the site is
// a POST to a page, so nothing a visitor types lands in an address; the
// contact, feedback and unsubscribe forms work without JavaScript, the
// others say they need it (formapi/formposts.go).

// answered waits until the page a form post was answered with has
// loaded, its heading the one wanted, and returns its main text. Such a
// page runs no script: loaded (harness_test.go) never holds there. Its
// address carries no query but the error a feedback link named.
func (p *page) answered(heading string) string {
	p.t.Helper()
	p.waitFor(`document.readyState === 'complete' && document.querySelector('main h1')?.textContent === ` + jsString(heading))
	if search := eval[string](p, `location.search`); !regexp.MustCompile(`^(\?errorType=\w+)?$`).MatchString(search) {
		p.t.Errorf("the answer's address carries %q", search)
	}
	return eval[string](p, `document.querySelector('main').innerText`)
}

// TestContactAndFeedbackWithoutJavaScript: with scripts off, the contact
// form (in Hindi) and the feedback form (in Marathi, with a file) are
// sent: the answer is a page in the visitor's language saying so, at the
// form's own address without a query, and the message is stored with
// its notification to the provider. A refused field gives a page naming
// it, and nothing is stored.
func TestContactAndFeedbackWithoutJavaScript(t *testing.T) {
	p := newPage(t, viewport(narrow.width, narrow.height), withoutJavaScript)
	p.openWithoutJavaScript("/hi/contact-us")
	email := "no-js-contact@example.in"
	p.fill(text(t, "hi", "contact.name"), "Ravi Kumar")
	p.fill(text(t, "hi", "contact.email"), email)
	p.fill(text(t, "hi", "contact.subject"), "बिना JavaScript")
	p.fill(text(t, "hi", "contact.message"), "हर हफ़्ते दो लोड।")
	p.click(byRole("button", text(t, "hi", "contact.send")))
	if main := p.answered(text(t, "hi", "contact.sentTitle")); !strings.Contains(main, text(t, "hi", "contact.sentText")) {
		t.Errorf("the sent page says %q", main)
	}
	if got := eval[string](p, `location.pathname + ' ' + document.documentElement.lang`); got != "/hi/contact-us hi" {
		t.Errorf("answered at %s", got)
	}
	if n := countRows(t, `SELECT COUNT(*) FROM contact_messages WHERE email = ? AND message = ?`, email, "हर हफ़्ते दो लोड।"); n != 1 {
		t.Errorf("%d contact messages stored, want 1", n)
	}
	if n := countRows(t, `SELECT COUNT(*) FROM outbox WHERE subject = ?`, "Contact form: बिना JavaScript"); n != 1 {
		t.Errorf("%d notifications queued, want 1", n)
	}
	p.expectAccessibleWithoutJavaScript(false)

	// A refused address: the page names the field.
	p.openWithoutJavaScript("/hi/contact-us")
	p.fill(text(t, "hi", "contact.name"), "Ravi Kumar")
	p.fill(text(t, "hi", "contact.email"), "ravi at example")
	p.fill(text(t, "hi", "contact.subject"), "गलत पता")
	p.fill(text(t, "hi", "contact.message"), "नमस्ते")
	p.click(byRole("button", text(t, "hi", "contact.send")))
	main := p.answered(text(t, "hi", "forms.post.fixTitle"))
	if !strings.Contains(main, text(t, "hi", "contact.email")+": "+text(t, "hi", "forms.emailInvalid")) {
		t.Errorf("the page for a refused address does not name the field: %q", main)
	}
	if n := countRows(t, `SELECT COUNT(*) FROM contact_messages WHERE subject = 'गलत पता'`); n != 0 {
		t.Error("a message with a refused address was stored")
	}
	p.click(byRole("link", text(t, "hi", "forms.post.back")))
	p.waitFor(`document.readyState === 'complete' && document.querySelector('main form') !== null`)
	if got := p.location(); got != "/hi/contact-us" {
		t.Errorf("back to the form leads to %s", got)
	}

	// Feedback with a file, in Marathi, from the not-found page's link.
	f := newPage(t, withoutJavaScript)
	f.openWithoutJavaScript("/ma/feedback-form?errorType=404")
	feedback := "नकाशा उघडत नाही."
	f.fill(text(t, "ma", "feedback.feedback"), feedback)
	f.do(chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{writeFile(t, "screen.png", pngFile)}))
	f.fill(text(t, "ma", "feedback.name"), "Asha Patil")
	f.fill(text(t, "ma", "feedback.email"), "no-js-feedback@example.in")
	f.click(byRole("button", text(t, "ma", "feedback.send")))
	if main := f.answered(text(t, "ma", "feedback.success")); !strings.Contains(main, text(t, "ma", "nav.home")) {
		t.Errorf("the sent page in Marathi: %q", main)
	}
	if n := countRows(t, `SELECT COUNT(*) FROM feedback WHERE email = 'no-js-feedback@example.in' AND feedback = ? AND error_type = '404' AND attachment_id IS NOT NULL`, feedback); n != 1 {
		t.Errorf("%d feedback rows with the file and the error of the link, want 1", n)
	}
	// Without the required text: the page names it.
	f.openWithoutJavaScript("/ma/feedback-form")
	f.fill(text(t, "ma", "feedback.name"), "Asha Patil")
	f.click(byRole("button", text(t, "ma", "feedback.send")))
	if main := f.answered(text(t, "ma", "forms.post.fixTitle")); !strings.Contains(main, text(t, "ma", "feedback.feedback")) {
		t.Errorf("the page for a missing feedback text does not name it: %q", main)
	}
}

// formTag matches a form's start tag in a page's HTML.
var formTag = regexp.MustCompile(`<form\b[^>]*>`)

// TestNoFormPutsDataInAnAddress: every form in the HTML of every page, in
// every language, posts (a GET would put its fields in the address);
// each form's address answers a post with a page, never a 405. The
// pages known to hold forms are found to hold them.
func TestNoFormPutsDataInAnAddress(t *testing.T) {
	pages, notFound := sitePages(t)
	forms := map[string]int{}
	for _, path := range append(pages, notFound...) {
		resp, err := http.Get(baseURL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, tag := range formTag.FindAllString(string(body), -1) {
			forms[path]++
			if !strings.Contains(tag, `method="post"`) {
				t.Errorf("%s: a form that does not post: %s", path, tag)
			}
		}
	}
	for _, path := range []string{"/contact-us", "/hi/feedback-form", "/ma/unsubscribe", "/faq", "/login", "/hi/registration", "/forget-password", "/reset-password", "/donate", "/standard-15-day-format", "/"} {
		if forms[path] == 0 {
			t.Errorf("%s: no form found: the check saw nothing", path)
		}
	}
	// Sent as is, each of those forms gets a page (the tab has no script).
	p := newPage(t, withoutJavaScript)
	for _, c := range []struct{ path, button, heading string }{
		{"/login", text(t, "en", "login.submit"), text(t, "en", "forms.post.needsScriptTitle")},
		{"/hi/registration", "", text(t, "hi", "forms.post.needsScriptTitle")},
		{"/ma/donate", "", text(t, "ma", "forms.post.needsScriptTitle")},
	} {
		p.openWithoutJavaScript(c.path)
		if got := eval[string](p, `document.querySelector('main noscript')?.textContent ?? ''`); !strings.Contains(got, "+91") || !strings.Contains(got, "@") {
			t.Errorf("%s: no notice with the provider's e-mail and phone: %q", c.path, got)
		}
		button := `main form button[type=submit]`
		if c.button != "" {
			button = byRole("button", c.button)
		}
		p.click(button)
		if main := p.answered(c.heading); !strings.Contains(main, "+91") {
			t.Errorf("%s: the answer to a post gives no phone: %q", c.path, main)
		}
	}
}

// TestFAQMessageGoesWithTheUnsubscribe: the message written in the FAQ's
// box reaches an unsubscribe form (the API's page) without passing
// through any address, goes with the request as its reason, is stored
// with the opt-out and listed by `mail optouts`; with JavaScript or
// without, in each language. Emptied, it sends none; a message the rules
// refuse is named, and nothing is stored.
func TestFAQMessageGoesWithTheUnsubscribe(t *testing.T) {
	for i, l := range languagesUnderTest {
		message := map[string]string{"en": "Too many newsletters.\nOne a month is enough.", "hi": "बहुत ज़्यादा ईमेल आते हैं।\nमहीने में एक काफ़ी है।", "ma": "खूप जास्त ईमेल येतात.\nमहिन्यातून एक पुरे."}[l.code]
		email := fmt.Sprintf("faq-reason-%d@example.in", i)
		var p *page
		if i%2 == 0 {
			p = newPage(t, viewport(narrow.width, narrow.height), withoutJavaScript)
			p.openWithoutJavaScript(l.prefix + "/faq")
		} else {
			p = newPage(t, viewport(narrow.width, narrow.height))
			p.open(l.prefix + "/faq")
		}
		p.do(chromedp.SendKeys(chromedp.CSS("#faq-message"), message))
		p.click(byRole("button", text(t, l.code, "faq.unsubscribe")))
		p.answered(text(t, l.code, "unsubscribe.title"))
		if got := eval[string](p, `location.pathname`); got != l.prefix+"/unsubscribe" {
			t.Errorf("%s: the FAQ's box led to %s", l.prefix, got)
		}
		if got := eval[string](p, byLabel(text(t, l.code, "faq.messageLabel"))+`.value`); got != message {
			t.Errorf("%s/unsubscribe holds the message %q, want %q", l.prefix, got, message)
		}
		if wide := eval[[]string](p, overflowing); len(wide) > 0 {
			t.Errorf("%s/unsubscribe with a message: wider than a 320 px screen: %v", l.prefix, wide)
		}
		p.fill(text(t, l.code, "unsubscribe.email"), email)
		p.click(byRole("button", text(t, l.code, "unsubscribe.button")))
		p.answered(text(t, l.code, "unsubscribe.successTitle"))
		if got := queryString(t, `SELECT reason FROM mail_opt_outs WHERE email = ?`, email); got != message {
			t.Errorf("%s: stored reason %q, want %q", l.prefix, got, message)
		}
		out, err := exec.Command(binary, "mail", "optouts", "--db", filepath.Join(work, "site.db")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), email) || !strings.Contains(string(out), strings.ReplaceAll(message, "\n", `\n`)) {
			t.Errorf("mail optouts does not list %s with its reason (%v):\n%s", email, err, out)
		}
		p.expectNoConsoleErrors()
	}

	// An emptied message sends none.
	p := newPage(t, withoutJavaScript)
	p.openWithoutJavaScript("/faq")
	p.do(chromedp.SendKeys(chromedp.CSS("#faq-message"), "Never mind"))
	p.click(byRole("button", "Unsubscribe"))
	p.answered(text(t, "en", "unsubscribe.title"))
	p.fill(text(t, "en", "faq.messageLabel"), "")
	p.fill("Email", "faq-no-reason@example.in")
	p.click(byRole("button", "Unsubscribe"))
	p.answered(text(t, "en", "unsubscribe.successTitle"))
	if got := queryString(t, `SELECT reason FROM mail_opt_outs WHERE email = 'faq-no-reason@example.in'`); got != "" {
		t.Errorf("the message left out was stored: %q", got)
	}

	// A message the rules refuse (a bidi override) is named, and nothing
	// is sent until it is fixed.
	p.openWithoutJavaScript("/faq")
	p.do(chromedp.SetValue(chromedp.CSS("#faq-message"), "fine\u202eexe.txt"))
	p.click(byRole("button", "Unsubscribe"))
	p.answered(text(t, "en", "unsubscribe.title"))
	p.fill("Email", "faq-bad-reason@example.in")
	p.click(byRole("button", "Unsubscribe"))
	if main := p.answered(text(t, "en", "forms.post.fixTitle")); !strings.Contains(main, text(t, "en", "faq.messageLabel")+": "+text(t, "en", "forms.invisibleCharacters")) {
		t.Errorf("a refused message: %q", main)
	}
	if n := countRows(t, `SELECT COUNT(*) FROM mail_opt_outs WHERE email = 'faq-bad-reason@example.in'`); n != 0 {
		t.Errorf("sent with a refused reason")
	}
}
