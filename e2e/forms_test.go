package e2e

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	_ "github.com/mattn/go-sqlite3"
)

// Browser tests of the form islands (contact, feedback, unsubscribe):
// every state a visitor can see, checked for console errors and axe.

// fill focuses the control labelled label (as assistive technology reads
// it: without the required mark), clears it and types text as a person
// would.
func (p *page) fill(label, text string) {
	p.t.Helper()
	js := `(() => {
  const el = ` + byLabel(label) + `;
  if (!el) return false;
  el.focus();
  el.select();
  return true;
})()`
	if !eval[bool](p, js) {
		p.t.Fatalf("no visible field labelled %q", label)
	}
	keys := text
	if keys == "" {
		keys = "\b"
	}
	p.do(chromedp.KeyEvent(keys))
}

// fieldErrors maps the label of each field marked invalid to the error
// that describes it.
func (p *page) fieldErrors() map[string]string {
	raw := eval[string](p, `JSON.stringify(fieldErrors())`)
	m := map[string]string{}
	_ = json.Unmarshal([]byte(raw), &m)
	return m
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// siteDB opens the database of the server under test, read-only.
func siteDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(work, "site.db")+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func countRows(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := siteDB(t).QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestContactForm walks the contact form of the contact-us page through
// its states: untouched (no errors), touched on leaving a field, all
// errors on submit, sent (thank-you view, the message stored) and, with
// a forged anti-forgery cookie, failed (the server's text, the form kept,
// Auth-Token removed as SPEC §6 says).
func TestContactForm(t *testing.T) {
	p := newPage(t)
	p.open("/contact-us")
	if got := eval[string](p, byRole("complementary", text(t, "en", "contactUs.office"))+`.textContent`); !strings.Contains(got, "Vashi") || !strings.Contains(got, "support@bharatfreight.example") || !strings.Contains(got, "+91 22 4971 5300") {
		t.Errorf("side block lacks the provider's address, e-mail or phone: %q", got)
	}
	if errs := p.fieldErrors(); len(errs) != 0 {
		t.Errorf("errors before anything was touched: %v", errs)
	}
	// Leaving a field touches it: only that field's error shows.
	p.fill("Email", "ab")
	p.do(chromedp.KeyEvent("\t"))
	if errs := p.fieldErrors(); len(errs) != 1 || errs["Email"] != "Email must be at least 3 characters" {
		t.Errorf("after leaving Email with 'ab': %v", errs)
	}
	// Submitting touches every field and moves focus to the first error.
	p.click(`form button[type=submit]`)
	errs := p.fieldErrors()
	if want := []string{"Email", "Name", "Subject"}; !slices.Equal(keysOf(errs), want) {
		t.Errorf("after submit, errors on %v, want %v (%v)", keysOf(errs), want, errs)
	}
	if got := eval[string](p, `document.activeElement.name`); got != "name" {
		t.Errorf("focus on %q after a refused submit, want the name field", got)
	}
	if got := eval[string](p, `document.querySelector('input[name=name]').getAttribute('aria-invalid')`); got != "true" {
		t.Errorf("invalid name field has aria-invalid=%q", got)
	}
	p.expectAccessible()

	p.fill("Email", "meera@example.in")
	p.fill("Phone", "0123")
	p.do(chromedp.KeyEvent("\t"))
	if got := p.fieldErrors()["Phone"]; got != "Phone must contain digits only, without a leading zero" {
		t.Errorf("phone 0123: %q", got)
	}
	p.fill("Phone", "9820012345")
	p.fill("Name", "Meera Joshi <b>bold</b>")
	p.fill("Subject", "e2e contact "+t.Name())
	p.fill("Message", "Need return loads from Nagpur.")

	// A forged cookie: the server answers 403 and the failure view shows
	// its text while the form stays filled in.
	p.do(chromedp.Evaluate[chromedp.Void](`sessionStorage.setItem('Auth-Token', 'x'); document.cookie = 'XSRF-TOKEN=forged.token; path=/'`))
	p.click(`form button[type=submit]`)
	p.waitNotice("bad")
	if got := p.notice("bad"); !strings.Contains(got, "Your session has expired") {
		t.Errorf("failure view: %q", got)
	}
	if eval[bool](p, `sessionStorage.getItem('Auth-Token') !== null`) {
		t.Error("Auth-Token survived a 403")
	}
	if got := eval[string](p, `document.querySelector('input[name=subject]').value`); got != "e2e contact "+t.Name() {
		t.Errorf("form not kept after failure: subject %q", got)
	}
	p.expectAccessible()

	// The 403 answer carried a fresh cookie: sending again succeeds.
	p.click(`form button[type=submit]`)
	p.waitNotice("ok")
	if got := p.notice("ok"); !strings.Contains(got, "Thank you for contacting us") {
		t.Errorf("sent view: %q", got)
	}
	if eval[bool](p, `document.querySelector('form') !== null`) {
		t.Error("the form is still shown after sending")
	}
	p.expectAccessible()
	p.expectNoConsoleErrorsExcept("status of 403")
	if n := countRows(t, `SELECT COUNT(*) FROM contact_messages WHERE subject = ? AND name = ?`, "e2e contact "+t.Name(), "Meera Joshi <b>bold</b>"); n != 1 {
		t.Errorf("%d stored messages, want 1", n)
	}
}

// TestContactFormOnHome: the home page carries the same form below the
// sign-up prompt, in the page's language.
func TestContactFormOnHome(t *testing.T) {
	p := newPage(t)
	p.open("/hi")
	order := eval[bool](p, `(() => { const s = `+byRole("region", text(t, "hi", "home.signUpTitle"))+`, f = document.querySelector('[data-island=ContactForm]'); return !!s && !!f && (s.compareDocumentPosition(f) & Node.DOCUMENT_POSITION_FOLLOWING) > 0 })()`)
	if !order {
		t.Error("no contact form below the sign-up prompt on /hi")
	}
	p.click(`[data-island=ContactForm] button[type=submit]`)
	if got := p.fieldErrors()["ईमेल"]; got != "ईमेल आवश्यक है" {
		t.Errorf("Hindi email error %q", got)
	}
	p.expectNoConsoleErrors()
}

// writeFile writes a file for an upload and returns its path.
func writeFile(t *testing.T, name string, content []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var pngFile = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 200)...)

// TestFeedbackPage: the feedback form's rules and texts (SPEC §5), the
// 5 MB check in the browser, a refused upload (a renamed .exe) showing the
// failure banner, and a sent form: banner for 5 seconds, form reset.
func TestFeedbackPage(t *testing.T) {
	p := newPage(t)
	p.open("/feedback-form")
	p.click(`form button[type=submit]`)
	if got := p.fieldErrors(); got["Describe your feedback"] != "Feedback is required" || got["Your Name"] != "Name is required" || got["Your Email Address"] != "Email is required" || len(got) != 3 {
		t.Errorf("errors after an empty submit: %v", got)
	}
	p.expectAccessible()
	p.fill("Your Name", "Agent 007")
	p.fill("Phone", "12ab")
	p.do(chromedp.KeyEvent("\t"))
	if got := p.fieldErrors(); got["Your Name"] != "Name cannot be numeric" || got["Phone"] != "Should be numeric" {
		t.Errorf("name and phone errors: %v", got)
	}
	p.fill("Phone", "12345")
	p.do(chromedp.KeyEvent("\t"))
	if got := p.fieldErrors()["Phone"]; got != "Phone must be exactly 10 digits" {
		t.Errorf("short phone: %q", got)
	}

	// A file over 5,000,000 bytes is refused in the browser and cleared.
	huge := writeFile(t, "huge.png", append(pngFile, make([]byte, 5_000_001)...))
	p.do(chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{huge}))
	p.waitFor(`Object.values(fieldErrors()).includes('File size should not exceed 5 MB!')`)
	if n := eval[int](p, `document.querySelector('input[type=file]').files.length`); n != 0 {
		t.Errorf("the huge file is still selected (%d files)", n)
	}

	// A program renamed to .png passes the browser and is refused by the
	// server, which looks at the content.
	p.do(chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{writeFile(t, "cat.png", append([]byte("MZ\x90\x00\x03"), make([]byte, 300)...))}))
	p.fill("Describe your feedback", "The page about values would not open.")
	p.fill("Your Name", "Farhan Shaikh")
	p.fill("Your Email Address", "farhan@example.in")
	p.fill("Phone", "9123456780")
	p.click(`form button[type=submit]`)
	p.waitNotice("bad")
	if got := p.notice("bad"); !strings.Contains(got, "There was an error processing your form.") || !strings.Contains(got, "PNG, GIF, JPEG or PDF") {
		t.Errorf("failure banner %q", got)
	}
	p.expectAccessible()

	p.do(chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{writeFile(t, "screen.png", pngFile)}))
	p.click(`form button[type=submit]`)
	p.waitNotice("ok")
	shown := time.Now() // the banner's 5 s count from here, not from after the checks below
	if got := p.notice("ok"); got != "Thank you for contacting us. We will get back to you soon!" {
		t.Errorf("success banner %q", got)
	}
	if got := eval[string](p, `[...document.querySelectorAll('form input:not([type=file]), form textarea')].map(e => e.value).join('')`); got != "" {
		t.Errorf("the form was not reset: %q", got)
	}
	if errs := p.fieldErrors(); len(errs) != 0 {
		t.Errorf("errors after the reset: %v", errs)
	}
	p.expectAccessible()
	p.waitFor(announced("status") + ` === ''`)
	if d := time.Since(shown); d < 4*time.Second {
		t.Errorf("the banner hid after %v, want 5 s", d)
	}
	if n := countRows(t, `SELECT COUNT(*) FROM feedback f JOIN attachments a ON a.id = f.attachment_id WHERE f.name = 'Farhan Shaikh' AND a.media_type = 'image/png'`); n != 1 {
		t.Errorf("%d stored feedback rows with the PNG, want 1", n)
	}
	p.expectNoConsoleErrorsExcept("status of 415")
}

// TestFilePicker: the feedback attachment and the CSV check upload use one
// file picker that speaks the page's language (the browser's own "Choose
// File" is never shown), is named by its label and described by the
// chosen file for screen readers, is reached with Tab, shows where the
// focus is, and opens the file chooser from a click on its button or
// from the keyboard.
func TestFilePicker(t *testing.T) {
	for _, c := range []struct{ path, label string }{
		{"/feedback-form", "feedback.attachment"},
		{"/standard-15-day-format", "importFormat.check.file"},
	} {
		for _, l := range languagesUnderTest {
			p := newPage(t)
			p.open(l.prefix + c.path)
			T := func(key string) string { return text(t, l.code, key) }
			// The input, and the button and file name drawn in its place
			// (in its form, where the texts are looked for).
			input := byLabel(T(c.label))
			button := `byText(` + jsString(T("forms.chooseFile")) + `, ` + input + `.form)`
			chosen := func(name string) string { return `byText(` + jsString(name) + `, ` + input + `.form)` }
			shown := eval[map[string]string](p, `(() => {
  const input = `+input+`, r = input.getBoundingClientRect();
  return {button: `+button+`?.textContent ?? '', chosen: `+chosen(T("forms.noFileChosen"))+`?.textContent ?? '', opacity: getComputedStyle(input).opacity, width: String(r.width)};
})()`)
			if shown["button"] != T("forms.chooseFile") || shown["chosen"] != T("forms.noFileChosen") {
				t.Errorf("%s%s: the picker shows %q and %q, want %q and %q", l.prefix, c.path, shown["button"], shown["chosen"], T("forms.chooseFile"), T("forms.noFileChosen"))
			}
			if shown["opacity"] != "0" || shown["width"] != "1" {
				t.Errorf("%s%s: the browser's own file input is visible (opacity %s, width %s)", l.prefix, c.path, shown["opacity"], shown["width"])
			}
			role, name, props := axNode(p, input)
			if role != "button" || name != T(c.label) || props["description"] != T("forms.noFileChosen") && !strings.HasSuffix(props["description"], " "+T("forms.noFileChosen")) {
				t.Errorf("%s%s: assistive technology sees %s %q described %q, want a button named %q described by %q", l.prefix, c.path, role, name, props["description"], T(c.label), T("forms.noFileChosen"))
			}

			// A click on the translated button, and Enter on the input
			// reached with Tab, open the file chooser.
			opened, events := make(chan struct{}, 4), chromedp.Events(p.ctx, cdppage.FileChooserOpened)
			go func() {
				for _, err := range events {
					if err != nil {
						return
					}
					opened <- struct{}{}
				}
			}()
			if _, err := chromedp.Call(p.ctx, cdppage.SetInterceptFileChooserDialog, cdppage.SetInterceptFileChooserDialogParams{Enabled: true}); err != nil {
				t.Fatal(err)
			}
			waitChooser := func(how string) {
				t.Helper()
				select {
				case <-opened:
				case <-time.After(5 * time.Second):
					t.Errorf("%s%s: %s did not open the file chooser", l.prefix, c.path, how)
				}
			}
			p.click(button)
			waitChooser("a click on the button")
			p.do(chromedp.Evaluate[chromedp.Void](withFinders(`(() => { const i = ` + input + `; const all = [...document.querySelectorAll('input, textarea, select, button, a[href]')]; all[all.indexOf(i) - 1].focus(); })()`)))
			p.do(chromedp.KeyEvent("\t"))
			if !eval[bool](p, `document.activeElement === `+input) {
				t.Fatalf("%s%s: Tab did not reach the file input", l.prefix, c.path)
			}
			if outline := eval[string](p, `getComputedStyle(`+button+`).outlineStyle`); outline == "none" {
				t.Errorf("%s%s: the focused picker shows no focus outline", l.prefix, c.path)
			}
			p.do(chromedp.KeyEvent("\r"))
			waitChooser("Enter on the focused input")

			file := writeFile(t, "पावती.pdf", []byte("%PDF-1.4\n%%EOF\n"))
			p.do(chromedp.SetUploadFiles(locate(input), []string{file}))
			p.waitFor(chosen("पावती.pdf") + ` !== null`)
			if _, _, props := axNode(p, input); !strings.Contains(props["description"], "पावती.pdf") {
				t.Errorf("%s%s: the input's description %q does not name the chosen file", l.prefix, c.path, props["description"])
			}
			p.expectAccessible()
			p.screenshot("file-picker" + strings.ReplaceAll(l.prefix, "/", "-") + strings.ReplaceAll(c.path, "/", "-"))
		}
	}
}

// TestFeedbackDialog: the not-found page's button opens the dialog (80vw
// at most), Escape and the backdrop close it, opening it twice raises an
// error, and feedback sent from it carries errorType 404.
func TestFeedbackDialog(t *testing.T) {
	p := openFeedbackDialog(t, "/ma/no-such-page")
	if got := eval[string](p, `getComputedStyle(document.querySelector('dialog')).maxWidth`); got != "1024px" {
		t.Errorf("dialog max-width %s, want 80vw = 1024px", got)
	}
	if got := eval[string](p, `document.querySelector('dialog h2').textContent`); !strings.Contains(got, "BharatFreight Network Pvt. Ltd.") {
		t.Errorf("dialog title %q", got)
	}
	p.expectAccessible()

	p.do(chromedp.KeyEvent("\x1b")) // Escape
	p.waitFor(`!` + open)

	p.click(`[data-opens="feedback-dialog"]`)
	p.waitFor(open)
	// Opening the dialog again while it is open is an error.
	if got := p.openFeedbackDialogAgain(); !strings.Contains(got, `a dialog with id "feedback-dialog" is already open`) {
		t.Errorf("opening twice raised %q", got)
	}
	// A click on the backdrop (outside the dialog box) closes it.
	p.do(chromedp.MouseClickXY(5, 5))
	p.waitFor(`!` + open)

	p.click(`[data-opens="feedback-dialog"]`)
	p.waitFor(open)
	p.fill("तुमचा अभिप्राय लिहा", "हे पान सापडले नाही.")
	p.fill("तुमचे नाव", "स्नेहा पाटील")
	p.fill("तुमचा ईमेल पत्ता", "sneha@example.in")
	p.click(`dialog button[type=submit]`)
	p.waitFor(announced("status", byRole("dialog")) + ` !== ''`)
	p.expectAccessible()
	if n := countRows(t, `SELECT COUNT(*) FROM feedback WHERE name = 'स्नेहा पाटील' AND error_type = '404'`); n != 1 {
		t.Errorf("%d feedback rows with errorType 404, want 1", n)
	}
	p.expectNoConsoleErrors()
}

// TestFeedbackDialogReopenedBeforeItsCloseEvent: a dialog's close event
// comes in a task of its own after it has closed, and a visitor's click
// can come first. Opening the dialog again then must work, and opening it
// while it is open must still be refused, whichever way it closed. The
// test acts at exactly that moment: (1) the dialog's exit animation ends
// in close() and a click reopens it right after (a microtask), before the
// event; (2) the browser closes the dialog itself (as a second Escape
// after a refused one does, without a cancel event) and a click comes in
// the same task; (3) the browser closes it during its exit animation and a
// click reopens it before the animation's end.
func TestFeedbackDialogReopenedBeforeItsCloseEvent(t *testing.T) {
	p := openFeedbackDialog(t, "/no-such-page")
	p.do(chromedp.Evaluate[chromedp.Void](`(() => {
  const dialog = document.querySelector('dialog#feedback-dialog'), close = dialog.close.bind(dialog);
  window.__closeEvents = 0;
  dialog.addEventListener('close', () => window.__closeEvents++);
  dialog.close = () => {
    close();
    dialog.close = close;
    queueMicrotask(() => document.querySelector('[data-opens="feedback-dialog"]').click());
  };
})()`))
	p.do(chromedp.KeyEvent("\x1b")) // Escape
	p.waitFor(`window.__closeEvents === 1`)
	if !eval[bool](p, open) {
		t.Fatal("(1) the dialog did not open again")
	}
	if got := p.openFeedbackDialogAgain(); !strings.Contains(got, `a dialog with id "feedback-dialog" is already open`) {
		t.Errorf("(1) opening the reopened dialog again raised %q: its late close event released it", got)
	}

	p.do(chromedp.Evaluate[chromedp.Void](`window.__errors = []; document.querySelector('dialog#feedback-dialog').close(); document.querySelector('[data-opens="feedback-dialog"]').click()`))
	p.waitFor(`window.__closeEvents === 2`)
	if !eval[bool](p, open) {
		t.Fatalf("(2) a click before the close event did not open the dialog again (raised %q)", eval[string](p, `window.__errors.join()`))
	}
	if got := p.openFeedbackDialogAgain(); !strings.Contains(got, `a dialog with id "feedback-dialog" is already open`) {
		t.Errorf("(2) opening the reopened dialog again raised %q", got)
	}

	// (3) The browser closes the dialog during its exit animation (Escape
	// again) and a click reopens it before the animation would have ended:
	// the animation's end must not close the reopened dialog (on a busy
	// machine the 75 ms timer fires late).
	p.do(chromedp.Evaluate[chromedp.Void](`(() => {
  const dialog = document.querySelector('dialog#feedback-dialog');
  dialog.dispatchEvent(new Event('cancel', {cancelable: true}));
  dialog.close();
  document.querySelector('[data-opens="feedback-dialog"]').click();
})()`))
	p.waitFor(exitTimerRun)
	if !eval[bool](p, open) {
		t.Fatal("(3) the exit animation of the earlier close closed the reopened dialog")
	}

	// It still closes and opens normally afterwards.
	p.do(chromedp.KeyEvent("\x1b"))
	p.waitFor(`!` + open)
	p.click(`[data-opens="feedback-dialog"]`)
	p.waitFor(open)
	p.expectNoConsoleErrors()
}

// open is true while the feedback dialog is open.
const open = `document.querySelector('dialog#feedback-dialog').open`

// exitTimerRun is true once the dialog's exit timer (Dialog.tsx's exitMs,
// 75 ms), if a close set one before, has run: a timer as long set after it
// runs after it, however late the page's timers run on a busy machine.
const exitTimerRun = `new Promise(ran => setTimeout(() => ran(true), 75))`

// openFeedbackDialog opens a desktop-sized page at a not-found path and
// its feedback dialog.
func openFeedbackDialog(t *testing.T, path string) *page {
	t.Helper()
	p := newPage(t, viewport(1280, 900))
	p.open(path)
	p.click(`[data-opens="feedback-dialog"]`)
	p.waitFor(open)
	return p
}

// openFeedbackDialogAgain presses the button that opens the feedback
// dialog while it is open and returns the errors that raised (logged to
// the console too, as they should be, and cleared from it).
func (p *page) openFeedbackDialogAgain() string {
	p.t.Helper()
	p.do(chromedp.Evaluate[chromedp.Void](`window.__errors = []; window.addEventListener('error', e => window.__errors.push(e.message)); document.querySelector('[data-opens="feedback-dialog"]').click()`))
	errs := eval[string](p, `window.__errors.join()`)
	p.consoleErrors()
	return errs
}

// expectNoConsoleErrorsExcept ignores the one expected message.
func (p *page) expectNoConsoleErrorsExcept(expected string) {
	p.t.Helper()
	var other []string
	for _, e := range p.consoleErrors() {
		if !strings.Contains(e, expected) {
			other = append(other, e)
		}
	}
	if len(other) > 0 {
		p.t.Errorf("console errors:\n  %s", strings.Join(other, "\n  "))
	}
}

// TestUnsubscribe: SPEC §5's three messages, then the success notice in
// place of the form; the opt-out is stored.
func TestUnsubscribe(t *testing.T) {
	p := newPage(t)
	p.open("/unsubscribe")
	p.click(`form button[type=submit]`)
	if got := p.fieldErrors()["Email"]; got != "Email is required" {
		t.Errorf("empty: %q", got)
	}
	p.fill("Email", "ab")
	if got := p.fieldErrors()["Email"]; got != "Email must be at least 3 characters" {
		t.Errorf("ab: %q", got)
	}
	p.fill("Email", "abc")
	if got := p.fieldErrors()["Email"]; got != "Invalid Email" {
		t.Errorf("abc: %q", got)
	}
	p.expectAccessible()
	p.fill("Email", "Leaving.Member@Example.in")
	p.click(`form button[type=submit]`)
	p.waitNotice("ok")
	want := "Unsubscribed Successfully!You have been successfully unsubscribed from the list. You will not receive any further emails from BharatFreight Network." +
		"Mail about your own account, such as password reset links, still reaches you."
	if got := p.notice("ok"); got != want {
		t.Errorf("notice %q, want %q", got, want)
	}
	if eval[bool](p, `document.querySelector('form') !== null`) {
		t.Error("the form is still shown")
	}
	p.expectAccessible()
	p.expectNoConsoleErrors()
	if n := countRows(t, `SELECT COUNT(*) FROM mail_opt_outs WHERE email = 'leaving.member@example.in'`); n != 1 {
		t.Errorf("%d opt-outs stored", n)
	}
}

func queryString(t *testing.T, query string, args ...any) string {
	t.Helper()
	var s string
	if err := siteDB(t).QueryRow(query, args...).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFeedbackDialogStaysOpenWhileSending: while the dialog's form is
// sending, closing is disabled (SPEC §4): Escape, a backdrop click and the
// close button leave it open; once the answer arrives it closes again.
// The post is held in the browser (DevTools Fetch interception) so the
// sending state lasts as long as the test needs.
func TestFeedbackDialogStaysOpenWhileSending(t *testing.T) {
	p := openFeedbackDialog(t, "/no-such-page")
	p.fill("Describe your feedback", "The page about Pune loads is gone.")
	p.fill("Your Name", "Sneha Patil")
	p.fill("Your Email Address", "sneha@example.in")

	paused := chromedp.Events(p.ctx, fetch.RequestPaused)
	if _, err := chromedp.Call(p.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/error_feedback*"}}}); err != nil {
		t.Fatal(err)
	}
	p.click(`dialog button[type=submit]`)
	var held fetch.EventRequestPaused
	for ev, err := range paused {
		if err != nil {
			t.Fatal(err)
		}
		held = ev
		break
	}

	p.do(chromedp.KeyEvent("\x1b"))   // Escape
	p.do(chromedp.MouseClickXY(5, 5)) // the backdrop
	p.waitFor(exitTimerRun)
	if !eval[bool](p, open) {
		t.Fatal("the dialog closed while its form was sending")
	}
	if !eval[bool](p, byRole("button", text(t, "en", "feedback.close"))+`.disabled`) {
		t.Error("the close button is enabled while sending")
	}

	if _, err := chromedp.Call(p.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: held.RequestID}); err != nil {
		t.Fatal(err)
	}
	p.waitFor(announced("status", byRole("dialog")) + ` !== ''`)
	p.do(chromedp.KeyEvent("\x1b"))
	p.waitFor(`!` + open)
	p.expectNoConsoleErrors()
}
