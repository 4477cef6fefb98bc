package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Browser tests of the accounts: the whole journey (register, sign in,
// sign out, forgot, reset, sign in with the new password) in each
// language, solving the real ALTCHA widget, with axe on every state shown.

func init() {
	// A small proof of work, so the real widget solves it at once; the
	// loopback peer may name the client in X-Forwarded-For, so the tests
	// can guess passwords from many addresses as an attacker would.
	serverEnv = append(serverEnv, "FREIGHTSITE_CAPTCHA_MAX_NUMBER=2000", "FREIGHTSITE_TRUSTED_PROXY=127.0.0.1")
}

// guessPasswords makes five wrong sign-ins to email from each address
// ("" is the test's own loopback address, as the browser's), over HTTP as
// a script would.
func guessPasswords(t *testing.T, email string, addresses ...string) {
	t.Helper()
	token := xsrfToken(t, baseURL)
	for _, address := range addresses {
		for i := range 5 {
			req, _ := http.NewRequest(http.MethodPost, baseURL+"/auth", strings.NewReader(url.Values{"username": {email}, "password": {fmt.Sprintf("Guess#%d", i)}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Requested-With", "XMLHttpRequest")
			req.Header.Set("X-XSRF-TOKEN", token)
			req.AddCookie(&http.Cookie{Name: "XSRF-TOKEN", Value: token})
			if address != "" {
				req.Header.Set("X-Forwarded-For", address)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("guess %d at %s from %q: %d", i, email, address, resp.StatusCode)
			}
		}
	}
}

// tr is the text of a locales key in lang, as the pages show it.
func tr(t *testing.T, lang, key string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "locales", lang+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var node any
	if err := json.Unmarshal(raw, &node); err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(key, ".") {
		m, _ := node.(map[string]any)
		node = m[part]
	}
	s, ok := node.(string)
	if !ok {
		t.Fatalf("no text for %s in %s", key, lang)
	}
	return s
}

var prefixes = map[string]string{"en": "", "hi": "/hi", "ma": "/ma"}

// waitCaptcha waits until the security check is solved.
func (p *page) waitCaptcha() {
	p.t.Helper()
	p.waitCaptchaSays("captcha.verified")
}

// waitCaptchaSays waits until the security check shows the text of key
// (captcha.verified, captcha.error) in the page's language.
func (p *page) waitCaptchaSays(key string) {
	p.t.Helper()
	lang := eval[string](p, `document.documentElement.dataset.lang`)
	p.waitFor(byText(tr(p.t, lang, key)) + ` !== null`)
}

// requested says whether the page has called a path of the site.
func (p *page) requested(path string) bool {
	return eval[bool](p, fmt.Sprintf(`performance.getEntriesByType('resource').some(e => new URL(e.name).pathname === %q)`, path))
}

// noticeRoles are the roles of a form's notices by kind: a success is a
// status, a failure an alert.
var noticeRoles = map[string]string{"ok": "status", "bad": "alert"}

// notice is the text of the notice of a kind (ok or bad) shown, or "".
func (p *page) notice(kind string) string {
	return eval[string](p, announced(noticeRoles[kind]))
}

// waitNotice waits for a notice of a kind (ok or bad).
func (p *page) waitNotice(kind string) {
	p.t.Helper()
	p.waitFor(announced(noticeRoles[kind]) + ` !== ''`)
}

// announced is an expression: the text of the first element with the role
// (alert or status) that has something to say, within the element of the
// expression within if one is given, or an empty string. What a region
// still busy says ("Sending…" in a form that is sending) is not an answer
// yet, and the security check's widget says how its check goes in a
// status of its own.
func announced(role string, within ...string) string {
	scope := "document"
	if len(within) > 0 {
		scope = within[0]
	}
	return `(allByRole(` + jsString(role) + `, undefined, ` + scope + `).filter(e => !e.closest('[aria-busy="true"], altcha-widget')).map(e => e.textContent).find(t => t.trim() !== '') ?? '')`
}

func TestAccountJourney(t *testing.T) {
	for _, lang := range []string{"en", "hi", "ma"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			journey(t, lang)
		})
	}
}

func journey(t *testing.T, lang string) {
	prefix := prefixes[lang]
	email := "meera." + lang + "@sahyadri.example"
	password, newPassword := "Truck@2024", "Lorry#2025"
	T := func(key string) string { return tr(t, lang, key) }

	// Registration.
	p := newPage(t)
	p.open(prefix + "/registration")
	if p.requested("/api/captcha/challenge") || eval[bool](p, `performance.getEntriesByType('resource').some(e => e.name.includes('altcha'))`) {
		t.Error("the captcha was loaded before the visitor used the form")
	}
	p.expectAccessible()
	p.fillRegistration(lang, "Sahyadri Roadlines "+lang, strings.ToUpper(email[:1])+email[1:], password)
	p.fill(T("registration.confirmPassword"), password+"x")
	if got := eval[string](p, `[...document.querySelectorAll('input[readonly]')].map(i => i.value).join()`); got != T("registration.countryIndia") {
		t.Errorf("country shows %q, want %q", got, T("registration.countryIndia"))
	}
	// Focusing the form loaded the widget, which solves its challenge.
	p.waitCaptcha()
	// A mismatch shows its message and makes no call.
	p.click(`form button[type=submit]`)
	if got := p.fieldErrors()[T("registration.confirmPassword")]; got != T("registration.errors.passwordMismatch") {
		t.Errorf("mismatch: %q (all: %v)", got, p.fieldErrors())
	}
	if p.requested("/api/registration") {
		t.Error("a mismatched password was sent to the server")
	}
	p.expectAccessible()
	p.screenshot("accounts-registration-mismatch-" + lang)
	p.fill(T("registration.confirmPassword"), password)
	p.click(`input[type=checkbox]`)
	if got := eval[string](p, `document.querySelector('input[name=confirmPassword]').type`); got != "text" {
		t.Errorf("show passwords: the confirmation is a %q field", got)
	}
	p.click(`form button[type=submit]`)
	p.waitNotice("ok")
	if got := p.notice("ok"); !strings.Contains(got, T("registration.successTitle")) {
		t.Errorf("registration success: %q", got)
	}
	if eval[bool](p, `document.querySelector('form') !== null`) {
		t.Error("the form is still shown after the registration")
	}
	p.expectAccessible()
	p.screenshot("accounts-registration-done-" + lang)
	if n := countRows(t, `SELECT COUNT(*) FROM users u JOIN companies c ON c.id = u.company_id WHERE u.email = ? AND u.preferred_language = ? AND c.country = 'IN'`, email, lang); n != 1 {
		t.Errorf("%d users %s with language %s, want 1", n, email, lang)
	}
	p.follow(byRole("link", T("registration.goToLogin")))
	if got := p.location(); got != prefix+"/login" {
		t.Errorf("Go To Login went to %s", got)
	}

	// The e-mail is taken now: a second registration warns on leaving it,
	// and the server's refusal shows the failure banner and the error on
	// the e-mail field.
	q := newPage(t)
	q.open(prefix + "/registration")
	q.fillRegistration(lang, "Second Company", strings.ToUpper(email), password)
	q.waitFor(announced("status") + ` !== ''`)
	if got := eval[string](q, announced("status")); got != T("registration.errors.emailTaken") {
		t.Errorf("taken e-mail warning %q", got)
	}
	q.expectAccessible()
	q.screenshot("accounts-registration-taken-" + lang)
	q.waitCaptcha()
	q.click(`form button[type=submit]`)
	q.waitNotice("bad")
	if got := q.notice("bad"); !strings.Contains(got, T("registration.failedTitle")) {
		t.Errorf("refused registration banner %q", got)
	}
	if got := q.fieldErrors()[T("registration.email")]; got != T("registration.errors.emailTaken") {
		t.Errorf("the server's error is not on the e-mail field: %v", q.fieldErrors())
	}
	q.expectAccessible()
	q.expectNoConsoleErrorsExcept("status of 409")

	// Sign-in: an empty form fails without a call, a wrong password with
	// LOGIN.WARNING behind "Error:" for screen readers.
	p.click(`form button[type=submit]`)
	if got := p.notice("bad"); got != T("login.errorPrefix")+" "+T("LOGIN.WARNING") {
		t.Errorf("empty login: %q", got)
	}
	if p.requested("/auth") {
		t.Error("an empty login form was sent")
	}
	p.fill(T("login.username"), strings.ToUpper(email))
	if got := eval[string](p, `document.querySelector('input[name=username]').value`); got != email {
		t.Errorf("username shows %q, want lowercase %q", got, email)
	}
	p.fill(T("login.password"), "wrong-"+password)
	p.click(`form button[type=submit]`)
	p.waitFor(`performance.getEntriesByType('resource').some(e => new URL(e.name).pathname === '/auth') && document.querySelector('form').getAttribute('aria-busy') === 'false'`)
	if got := p.notice("bad"); got != T("login.errorPrefix")+" "+T("LOGIN.WARNING") {
		t.Errorf("wrong password: %q", got)
	}
	if !eval[bool](p, `(() => { const r = byText(`+jsString(T("login.errorPrefix"))+`, byRole('alert'))?.getBoundingClientRect(); return !!r && r.width <= 1 && r.height <= 1; })()`) {
		t.Error("the Error: prefix is visible to everyone, not only to screen readers")
	}
	p.expectAccessible()
	p.screenshot("accounts-login-failed-" + lang)
	p.expectNoConsoleErrorsExcept("status of 401")

	// Someone guesses the password from four other addresses: the account
	// is not locked, but sign-in to it needs the security check. The page
	// shows it (here with its challenge out of reach, so the state holds),
	// then, once the check is done, signs in with the right password.
	guessPasswords(t, email, "198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4")
	if _, err := chromedp.Call(p.ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	blockChallenge := func(block bool) {
		var patterns []*network.BlockPattern
		if block {
			patterns = []*network.BlockPattern{{URLPattern: baseURL + "/api/captcha/challenge", Block: true}}
		}
		if _, err := chromedp.Call(p.ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: patterns}); err != nil {
			t.Fatal(err)
		}
	}
	blockChallenge(true)
	p.fill(T("login.password"), password)
	p.click(`input[name=rememberMe]`)
	p.click(`form button[type=submit]`)
	p.waitCaptchaSays("captcha.error")
	if got := p.notice("bad"); got != T("login.errorPrefix")+" "+T("LOGIN.CAPTCHA") {
		t.Errorf("sign-in under attack: %q, want LOGIN.CAPTCHA", got)
	}
	if !eval[bool](p, byRole("group", T("captcha.heading"))+` !== null`) {
		t.Errorf("the security check %q is not shown", T("captcha.heading"))
	}
	p.expectAccessible()
	p.screenshot("accounts-login-captcha-" + lang)
	for _, e := range p.consoleErrors() {
		// The refused sign-in and the challenge this test blocked.
		if !strings.Contains(e, "status of 401") && !strings.Contains(e, "Failed to fetch") && !strings.Contains(e, "/api/captcha/challenge") {
			t.Errorf("console error: %s", e)
		}
	}
	blockChallenge(false)
	p.click(`altcha-widget input[type=checkbox]`)
	p.waitFor(`location.pathname === '/secure/entry' && document.readyState === 'complete'`)
	expectMembersPage(t, p, lang, "Sahyadri Roadlines "+lang, email, true)
	p.screenshot("accounts-members-" + lang)

	// Sign-out leads to the login page with the signed-out banner.
	p.follow(byRole("button", T("member.signOut")))
	if got := p.location(); got != prefix+"/login?logout=true" {
		t.Errorf("signed out to %s", got)
	}
	if got := p.notice("ok"); got != T("login.signedOut") {
		t.Errorf("signed-out banner %q", got)
	}
	if eval[bool](p, `sessionStorage.getItem('Auth-Token') !== null`) {
		t.Error("Auth-Token survived the sign-out")
	}
	p.expectAccessible()
	p.open("/secure/entry")
	if got := p.location(); got != "/login" {
		t.Errorf("/secure/entry after sign-out went to %s, want /login", got)
	}

	// More guessing, now also from this browser's address, which locks
	// it out: the reset below lifts that and the step-up.
	guessPasswords(t, email, "", "198.51.100.5", "198.51.100.6", "198.51.100.7")

	// Forgot password.
	p.open(prefix + "/forget-password")
	if !eval[bool](p, `document.querySelector('form button[type=submit]').disabled`) {
		t.Error("the submit button is enabled with no login id")
	}
	p.fill(T("forgetPassword.loginId"), email)
	p.waitCaptcha()
	if eval[bool](p, `document.querySelector('form button[type=submit]').disabled`) {
		t.Error("the submit button is disabled with a login id")
	}
	p.expectAccessible()
	p.click(`form button[type=submit]`)
	p.waitNotice("ok")
	if got := p.notice("ok"); !strings.Contains(got, T("forgetPassword.successTitle")) {
		t.Errorf("forgot success: %q", got)
	}
	p.expectAccessible()
	p.screenshot("accounts-forgot-sent-" + lang)
	link := resetLinkFor(t, email)
	if !strings.HasPrefix(link.String(), "http://localhost:8080"+prefix+"/reset-password?token=") {
		t.Errorf("reset link %s, want the configured base URL and the member's language", link)
	}

	// Reset password: a mismatch (RESET4 once, on the confirmation field,
	// no call), then RESET5.
	p.open(link.RequestURI())
	p.fill(T("RESET.RESET6"), newPassword)
	p.fill(T("RESET.RESET10"), newPassword+"x")
	p.click(`form button[type=submit]`)
	if got := p.fieldErrors()[T("RESET.RESET10")]; got != T("RESET.RESET4") {
		t.Errorf("mismatch on the confirmation field: %q (all: %v)", got, p.fieldErrors())
	}
	if n := eval[int](p, fmt.Sprintf(`document.querySelector('main').innerText.split(%q).length - 1`, T("RESET.RESET4"))); n != 1 {
		t.Errorf("the mismatch message shows %d times, want once", n)
	}
	if p.requested("/api/reset_password") {
		t.Error("a mismatched reset was sent")
	}
	p.expectAccessible()
	p.screenshot("accounts-reset-mismatch-" + lang)
	p.fill(T("RESET.RESET10"), newPassword)
	p.click(`form button[type=submit]`)
	p.waitNotice("ok")
	if got := p.notice("ok"); !strings.Contains(got, T("RESET.RESET5")) || !strings.Contains(got, T("resetPassword.goToLogin")) {
		t.Errorf("reset success: %q", got)
	}
	p.expectAccessible()
	p.expectNoConsoleErrors()

	// The link works once: RESET2 the second time.
	p.open(link.RequestURI())
	p.fill(T("RESET.RESET6"), "Again#2026")
	p.fill(T("RESET.RESET10"), "Again#2026")
	p.click(`form button[type=submit]`)
	p.waitNotice("bad")
	if got := p.notice("bad"); !strings.Contains(got, T("RESET.RESET2")) {
		t.Errorf("reused link: %q", got)
	}
	p.expectAccessible()
	p.expectNoConsoleErrorsExcept("status of 400")

	// Sign in with the new password, from the address that was locked out
	// and with no security check: the reset cleared both.
	p.open(prefix + "/login")
	p.fill(T("login.username"), email)
	p.fill(T("login.password"), newPassword)
	p.follow(`form button[type=submit]`)
	if got := p.location(); got != "/secure/entry" {
		t.Fatalf("signed in with the new password to %s", got)
	}
	if p.requested("/api/captcha/challenge") {
		t.Error("the sign-in after the reset asked for the security check")
	}
	expectMembersPage(t, p, lang, "Sahyadri Roadlines "+lang, email, false)

	// Under a language's prefix the members' page is in that language,
	// and signing out there leads to that language's login page.
	other := map[string]string{"en": "ma", "hi": "ma", "ma": "hi"}[lang]
	p.open(prefixes[other] + "/secure/entry")
	expectMembersPage(t, p, other, "Sahyadri Roadlines "+lang, email, false)
	p.follow(byRole("button", tr(t, other, "member.signOut")))
	if got := p.location(); got != prefixes[other]+"/login?logout=true" {
		t.Errorf("signed out of %s/secure/entry to %s", prefixes[other], got)
	}
	if got := p.notice("ok"); got != tr(t, other, "login.signedOut") {
		t.Errorf("signed-out banner %q", got)
	}
	p.open(prefixes[other] + "/secure/entry")
	if got := p.location(); got != prefixes[other]+"/login" {
		t.Errorf("%s/secure/entry without a session went to %s", prefixes[other], got)
	}
}

// fillRegistration fills in every field of the registration form validly
// (the state from the list when the API has it, as text otherwise).
func (p *page) fillRegistration(lang, company, email, password string) {
	p.t.Helper()
	T := func(key string) string { return tr(p.t, lang, key) }
	for _, f := range [][2]string{
		{"registration.companyName", company},
		{"registration.contactName", "Meera Joshi"},
		{"registration.address1", "Plot 7, MIDC Bhosari"},
		{"registration.city", "Pune"},
		{"registration.postalCode", "411026"},
		{"registration.contactEmail", "office@sahyadri.example"},
		{"registration.contactPhone", "(20) 2712-3456"},
		{"registration.email", email},
		{"registration.firstName", "Meera"},
		{"registration.lastName", "Joshi"},
		{"registration.newPassword", password},
		{"registration.confirmPassword", password},
	} {
		p.fill(T(f[0]), f[1])
	}
	p.waitFor(`document.querySelector('select[name=state]') !== null`)
	// The states are named in the page's language (Devanagari on Hindi and
	// Marathi pages); the value sent is the key.
	maharashtra := map[string]string{"en": "Maharashtra", "hi": "महाराष्ट्र", "ma": "महाराष्ट्र"}[lang]
	if got := eval[string](p, `document.querySelector('select[name=state] option[value=MH]').textContent`); got != maharashtra {
		p.t.Errorf("state MH is named %q on a %s page, want %q", got, lang, maharashtra)
	}
	if names := eval[[]string](p, `[...document.querySelectorAll('select[name=state] option')].filter(o => o.value && /[A-Za-z]/.test(o.textContent)).map(o => o.textContent)`); lang != "en" && len(names) > 0 {
		p.t.Errorf("states named in Latin letters on a %s page: %v", lang, names)
	}
	p.do(chromedp.SendKeys(chromedp.CSS(`select[name=state]`), maharashtra))
	if got := eval[string](p, `document.querySelector('select[name=state]').value`); got != "MH" {
		p.t.Errorf("state select: %q, want MH", got)
	}
}

// TestRegistrationBannerSaysWhatTheServerSaid: when the server refuses a
// registration without marking a field of the form, the banner shows the
// server's message, not "correct the marked fields". The requests reach
// the real server, altered in flight (DevTools Fetch interception): one
// whose country is not India (an error on a field the form does not
// mark), one whose body is not JSON, and one that never arrives.
func TestRegistrationBannerSaysWhatTheServerSaid(t *testing.T) {
	const lang = "hi"
	T := func(key string) string { return tr(t, lang, key) }
	body, _ := json.Marshal(map[string]string{
		"companyName": "Nepal Haulers", "contactName": "Meera Joshi", "contactEmail": "office@nepal.example", "address1": "Ward 4",
		"city": "Pune", "state": "MH", "postalCode": "411026", "country": "NP", "email": "banner@nepal.example", "firstName": "Meera",
		"lastName": "Joshi", "newPassword": "Truck@2024", "confirmPassword": "Truck@2024", "preferredLanguage": lang, "recaptchaResponse": "x",
	})
	for _, c := range []struct {
		name string
		body []byte // what reaches the server; nil: the request fails
		want string
	}{
		{"an error on a field the form does not show", body, T("registration.errors.countryIndia")},
		{"an answer without field errors", []byte("{"), T("api.errors.badRequest")},
		{"no answer", nil, T("offline.needConnection")},
	} {
		p := newPage(t)
		p.open("/hi/registration")
		p.fillRegistration(lang, "Nepal Haulers", "banner@nepal.example", "Truck@2024")
		p.waitCaptcha()
		paused := chromedp.Events(p.ctx, fetch.RequestPaused)
		if _, err := chromedp.Call(p.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/registration"}}}); err != nil {
			t.Fatal(err)
		}
		p.click(`form button[type=submit]`)
		for ev, err := range paused {
			if err != nil {
				t.Fatal(err)
			}
			if c.body == nil {
				_, err = chromedp.Call(p.ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonConnectionRefused})
			} else {
				_, err = chromedp.Call(p.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID, PostData: c.body})
			}
			if err != nil {
				t.Fatal(err)
			}
			break
		}
		p.waitNotice("bad")
		if got := p.notice("bad"); got != T("registration.failedTitle")+c.want {
			t.Errorf("%s: banner %q, want the title and %q", c.name, got, c.want)
		}
		if errs := p.fieldErrors(); len(errs) > 0 {
			t.Errorf("%s: fields marked %v", c.name, errs)
		}
		p.expectAccessible()
		p.consoleErrors() // the refused and the failed request are logged, as they should be
	}
}

// expectMembersPage checks /secure/entry: the member's language, company
// and login id, the Auth-Token, the session cookie, no console errors
// (CSP violations would be), axe.
func expectMembersPage(t *testing.T, p *page, lang, company, email string, remembered bool) {
	t.Helper()
	if got := eval[string](p, `document.documentElement.dataset.lang`); got != lang {
		t.Errorf("members' page in %q, want %q", got, lang)
	}
	if got := eval[string](p, `document.querySelector('h1').textContent`); got != tr(t, lang, "member.title") {
		t.Errorf("members' page heading %q", got)
	}
	text := eval[string](p, `document.querySelector('main').textContent`)
	if !strings.Contains(text, company) || !strings.Contains(text, email) {
		t.Errorf("members' page lacks the company or login id: %q", text)
	}
	if eval[bool](p, `!sessionStorage.getItem('Auth-Token')`) {
		t.Error("no Auth-Token in session storage after signing in")
	}
	if eval[bool](p, `document.cookie.includes('SESSION=')`) {
		t.Error("the session cookie is readable by scripts")
	}
	if !eval[bool](p, `getComputedStyle(`+byRole("button", tr(t, lang, "member.signOut"))+`).backgroundColor !== 'rgba(0, 0, 0, 0)'`) {
		t.Error("the members' page is not styled by the site stylesheet")
	}
	cookies, err := chromedp.Call(p.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{baseURL}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cookies.Cookies {
		if c.Name == "SESSION" {
			if !c.HTTPOnly || c.SameSite != network.CookieSameSiteLax || c.Session == remembered {
				t.Errorf("session cookie: HttpOnly %v, SameSite %v, browser-session only %v; want HttpOnly, Lax, persistent only when remembered (%v)", c.HTTPOnly, c.SameSite, c.Session, remembered)
			}
		}
	}
	p.expectAccessible()
	p.expectNoConsoleErrors()
}

var resetLinkPattern = regexp.MustCompile(`https?://\S+/reset-password\?token=[A-Za-z0-9_-]+`)

// resetLinkFor reads the newest reset link mailed to email from the outbox.
func resetLinkFor(t *testing.T, email string) *url.URL {
	t.Helper()
	var body string
	if err := siteDB(t).QueryRow(`SELECT body FROM outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1`, email).Scan(&body); err != nil {
		t.Fatalf("no mail to %s: %v", email, err)
	}
	link, err := url.Parse(resetLinkPattern.FindString(body))
	if err != nil || link.Host == "" {
		t.Fatalf("no reset link in %q", body)
	}
	return link
}

// TestLoginBanners: ?logout and ?auctionLogout show the signed-out banner;
// a plain visit does not. The island reads the address in an effect once
// hydrated, so the banner shows a render after the island is marked live:
// the test waits for it rather than looking at that very moment.
func TestLoginBanners(t *testing.T) {
	p := newPage(t)
	for _, path := range []string{"/login?logout=true", "/hi/login?auctionLogout"} {
		p.open(path)
		p.waitNotice("ok")
	}
	p.open("/login")
	if p.notice("ok") != "" {
		t.Error("/login: a signed-out banner without ?logout")
	}
	p.expectNoConsoleErrors()
}

// TestForgotPasswordWarnings: with the challenge out of reach the check
// cannot pass, and submitting shows the captcha warning without a call;
// with the API out of reach the form stays and says it needs a connection.
func TestForgotPasswordWarnings(t *testing.T) {
	p := newPage(t)
	block := func(paths ...string) {
		var patterns []*network.BlockPattern
		for _, path := range paths {
			patterns = append(patterns, &network.BlockPattern{URLPattern: baseURL + path, Block: true})
		}
		if _, err := chromedp.Call(p.ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: patterns}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := chromedp.Call(p.ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	block("/api/captcha/challenge")
	p.open("/ma/forget-password")
	p.fill(tr(t, "ma", "forgetPassword.loginId"), "nobody@sahyadri.example")
	p.waitCaptchaSays("captcha.error")
	p.click(`form button[type=submit]`)
	if got := p.notice("bad"); got != tr(t, "ma", "forgetPassword.warnings.captcha") {
		t.Errorf("captcha warning %q", got)
	}
	if p.requested("/api/forgot_password") {
		t.Error("the request was sent without a captcha answer")
	}
	p.expectAccessible()

	block("/api/forgot_password")
	p.open("/forget-password")
	p.fill("Login ID (email)", "nobody@sahyadri.example")
	p.waitCaptcha()
	p.click(`form button[type=submit]`)
	p.waitNotice("bad")
	if got := p.notice("bad"); got != tr(t, "en", "offline.needConnection") {
		t.Errorf("transport failure: %q, want the form to say it needs a connection", got)
	}
	if got := eval[string](p, `document.querySelector('form input[name=loginId]')?.value ?? ''`); got != "nobody@sahyadri.example" {
		t.Errorf("the form is not kept after a transport failure: login id %q", got)
	}
	p.expectAccessible()
}

// TestResetPasswordWithoutALink: no token in the address shows RESET2 at
// once; a transport failure says the form needs a connection.
func TestResetPasswordWithoutALink(t *testing.T) {
	p := newPage(t)
	p.open("/hi/reset-password")
	if got := p.notice("bad"); !strings.Contains(got, tr(t, "hi", "RESET.RESET2")) {
		t.Errorf("no token: %q", got)
	}
	if !eval[bool](p, `document.querySelector('form button[type=submit]').disabled`) {
		t.Error("the form can be sent without a token")
	}
	p.expectAccessible()

	if _, err := chromedp.Call(p.ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(p.ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{{URLPattern: baseURL + "/api/reset_password", Block: true}}}); err != nil {
		t.Fatal(err)
	}
	p.open("/reset-password?token=abc")
	p.fill("New password", "Lorry#2025")
	p.fill("Confirm new password", "Lorry#2025")
	p.click(`form button[type=submit]`)
	p.waitNotice("bad")
	if got := p.notice("bad"); got != tr(t, "en", "offline.needConnection") {
		t.Errorf("transport failure: %q, want the form to say it needs a connection", got)
	}
	p.expectAccessible()
}
