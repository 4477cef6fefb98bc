package formapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"freightsite/internal/captcha"
	"freightsite/internal/store"
	"freightsite/internal/testkit"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Tests of the accounts API: registration, e-mail uniqueness, sign-in
// with its throttle, bearer tokens, forgot and reset password, the members'
// page. They use a small captcha so the Go solver below is quick, and a
// clock the test moves.

func withClock(c *testkit.Clock) apiOption { return func(cfg *Config) { cfg.Now = c.Now } }

func withAccounts(o AccountOptions) apiOption {
	return func(cfg *Config) {
		if o.CaptchaMaxNumber == 0 {
			o.CaptchaMaxNumber = 500
		}
		cfg.Accounts = o
	}
}

// newAccountsAPI is a test API with a small captcha and no rate limits.
func newAccountsAPI(t *testing.T, opts ...apiOption) *testAPI {
	return newTestAPI(t, append([]apiOption{unlimited(), withAccounts(AccountOptions{BaseURL: "https://freight.example"})}, opts...)...)
}

// test is the test of a testAPI made by a test (not a benchmark), for the
// helpers that take a *testing.T.
func (a *testAPI) test() *testing.T { return a.t.(*testing.T) }

// solveCaptcha fetches a challenge and solves it as the widget does.
func (a *testAPI) solveCaptcha() string {
	a.t.Helper()
	resp := a.get("/api/captcha/challenge")
	expectStatus(a.test(), resp, http.StatusOK)
	c := decode[captcha.Challenge](a.test(), resp)
	for n := 0; n <= c.MaxNumber; n++ {
		sum := sha256.Sum256([]byte(c.Salt + strconv.Itoa(n)))
		if hex.EncodeToString(sum[:]) == c.Challenge {
			return altchaPayload(c.Algorithm, c.Challenge, int64(n), c.Salt, c.Signature)
		}
	}
	a.t.Fatalf("no solution up to %d for %+v", c.MaxNumber, c)
	return ""
}

func altchaPayload(algorithm, challenge string, number int64, salt, signature string) string {
	raw, _ := json.Marshal(map[string]any{"algorithm": algorithm, "challenge": challenge, "number": number, "salt": salt, "signature": signature, "took": 12})
	return base64.StdEncoding.EncodeToString(raw)
}

// registration is a valid registration payload for email.
func (a *testAPI) registration(email string) map[string]string {
	return map[string]string{
		"companyName": "Sahyadri Roadlines", "contactName": "Meera Joshi", "contactEmail": "office@sahyadri.example",
		"address1": "Plot 7, MIDC Bhosari", "address2": "", "city": "Pune", "state": "MH", "postalCode": "411026", "country": "IN",
		"contactPhone": "(20) 2712-3456", "contactFax": "", "email": email, "firstName": "Meera", "lastName": "Joshi",
		"newPassword": "Truck@2024", "confirmPassword": "Truck@2024", "preferredLanguage": "hi", "recaptchaResponse": a.solveCaptcha(),
	}
}

func (a *testAPI) register(email, password string) {
	a.t.Helper()
	p := a.registration(email)
	p["newPassword"], p["confirmPassword"] = password, password
	resp := a.postJSON("/api/registration", p)
	expectStatus(a.test(), resp, http.StatusOK)
	if got := decode[statusAnswer](a.test(), resp); got.Status != "200" {
		a.t.Fatalf("registration answered %+v", got)
	}
}

// signIn posts /auth as the login page does.
func (a *testAPI) signIn(username, password string, remember bool) (*http.Response, signInAnswer) {
	a.t.Helper()
	form := url.Values{"username": {username}, "password": {password}, "rememberMe": {"off"}}
	if remember {
		form.Set("rememberMe", "on")
	}
	resp := a.do(http.MethodPost, "/auth", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()),
		http.Header{xsrfHeader: {a.token()}, "X-Requested-With": {"XMLHttpRequest"}})
	return resp, decode[signInAnswer](a.test(), resp)
}

func (a *testAPI) cookie(name string) *http.Cookie {
	u, _ := url.Parse(a.srv.URL)
	for _, c := range a.client.Jar.Cookies(u) {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// withoutCookies forgets the client's cookies (a new browser).
func (a *testAPI) withoutCookies() {
	jar, _ := cookiejar.New(nil)
	a.client.Jar = jar
}

func TestRegistrationCreatesCompanyAndUser(t *testing.T) {
	a := newAccountsAPI(t)
	a.register("Meera.Joshi@Sahyadri.example", "Truck@2024")
	var email, first, lang, hash, company, state, country string
	if err := a.store.TestQueryRow(`SELECT u.email, u.first_name, u.preferred_language, u.password_hash, c.name, c.state, c.country
		FROM users u JOIN companies c ON c.id = u.company_id`).Scan(&email, &first, &lang, &hash, &company, &state, &country); err != nil {
		t.Fatal(err)
	}
	if email != "meera.joshi@sahyadri.example" || first != "Meera" || lang != "hi" || company != "Sahyadri Roadlines" || state != "MH" || country != "IN" {
		t.Errorf("stored %q %q %q %q %q %q", email, first, lang, company, state, country)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(hash, "Truck@2024") {
		t.Errorf("password stored as %q, want an argon2id hash with OWASP parameters", hash)
	}

	// The same e-mail in another case is the same login id.
	resp := a.postJSON("/api/registration", a.registration("MEERA.JOSHI@sahyadri.example"))
	got := decode[statusAnswer](t, resp)
	if resp.StatusCode != http.StatusConflict || got.Status != "409" || len(got.ErrorMessageList) != 1 || got.ErrorMessageList[0] != (fieldError{"email", "registration.errors.emailTaken"}) {
		t.Errorf("second registration: %d %+v", resp.StatusCode, got)
	}
	if n := a.count(`SELECT COUNT(*) FROM companies`); n != 1 {
		t.Errorf("%d companies after a refused registration, want 1", n)
	}
}

// TestRegistrationRules: one row per rule of SPEC §5, each answered with
// status "400" and the error on its field.
func TestRegistrationRules(t *testing.T) {
	a := newAccountsAPI(t)
	cases := []struct {
		name, field, value, message string
	}{
		{"company name required", "companyName", "", "registration.errors.companyNameRequired"},
		{"company name no leading space", "companyName", " Sahyadri", "registration.errors.leadingSpace"},
		{"contact name required", "contactName", "", "registration.errors.contactNameRequired"},
		{"contact name letters and spaces", "contactName", "Meera 2", "forms.nameLetters"},
		{"contact name starts with a letter", "contactName", " Meera", "forms.nameLetters"},
		{"contact e-mail required", "contactEmail", "", "forms.emailRequired"},
		{"contact e-mail valid", "contactEmail", "office@", "forms.emailInvalid"},
		{"contact e-mail no leading space", "contactEmail", " office@sahyadri.example", "registration.errors.leadingSpace"},
		{"address required", "address1", "", "registration.errors.address1Required"},
		{"address no leading space", "address1", " Plot 7", "registration.errors.leadingSpace"},
		{"city required", "city", "", "registration.errors.cityRequired"},
		{"city letters only", "city", "Pune 411", "registration.errors.cityLetters"},
		{"city no leading space", "city", " Pune", "registration.errors.cityLetters"},
		{"state required", "state", "", "registration.errors.stateRequired"},
		{"country required", "country", "", "registration.errors.countryRequired"},
		{"country letters only", "country", "I1", "registration.errors.countryLetters"},
		{"country is India", "country", "US", "registration.errors.countryIndia"},
		{"postal code six digits", "postalCode", "4110", "registration.errors.postalCode"},
		{"phone exactly ten digits", "contactPhone", "20 2712 345", "registration.errors.phoneTenDigits"},
		{"phone no letters", "contactPhone", "020-CALL-NOW", "registration.errors.phoneCharacters"},
		{"phone no leading space", "contactPhone", " 0202712345", "registration.errors.leadingSpace"},
		{"fax exactly ten digits", "contactFax", "12345678901", "registration.errors.faxTenDigits"},
		{"fax only digits, spaces, brackets, hyphens", "contactFax", "020.2712.3456", "registration.errors.faxCharacters"},
		{"e-mail required", "email", "", "forms.emailRequired"},
		{"e-mail valid", "email", "meera@@sahyadri", "forms.emailInvalid"},
		{"first name required", "firstName", "", "registration.errors.firstNameRequired"},
		{"first name letters only", "firstName", "Meera1", "registration.errors.lettersOnly"},
		{"last name letters only", "lastName", "Jo shi", "registration.errors.lettersOnly"},
		{"password required", "newPassword", "", "registration.errors.passwordRequired"},
		{"password at least 8", "newPassword", "Ab1@", "registration.errors.passwordLength"},
		{"password at most 30", "newPassword", "Abcdefgh1" + strings.Repeat("x", 22), "registration.errors.passwordLength"},
		{"password needs a digit or symbol", "newPassword", "Abcdefghij", "registration.errors.passwordRule"},
		{"password needs a letter", "newPassword", "12345678@", "registration.errors.passwordRule"},
		{"password only the allowed characters", "newPassword", "Abcdefg1^", "registration.errors.passwordRule"},
		{"confirmation required", "confirmPassword", "", "registration.errors.confirmRequired"},
		{"passwords equal", "confirmPassword", "Truck@2025", "registration.errors.passwordMismatch"},
		{"captcha required", "recaptchaResponse", "", "captcha.required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := a.registration("rules@sahyadri.example")
			p[c.field] = c.value
			if c.field == "newPassword" && c.value != "" {
				p["confirmPassword"] = c.value
			}
			resp := a.postJSON("/api/registration", p)
			got := decode[statusAnswer](t, resp)
			if resp.StatusCode != http.StatusBadRequest || got.Status != "400" || !slices.Contains(got.ErrorMessageList, fieldError{c.field, c.message}) {
				t.Errorf("%s=%q: %d %+v, want the error %s on %s", c.field, c.value, resp.StatusCode, got, c.message, c.field)
			}
		})
	}
	// What the rules allow: Devanagari names, a bracketed phone, no fax.
	p := a.registration("allowed@sahyadri.example")
	p["contactName"], p["city"], p["firstName"], p["contactFax"] = "मीरा जोशी", "पुणे", "मीरा", "(20) 2712 3457"
	resp := a.postJSON("/api/registration", p)
	expectStatus(t, resp, http.StatusOK)
	resp.Body.Close()
	if n := a.count(`SELECT COUNT(*) FROM users`); n != 1 {
		t.Errorf("%d users, want only the allowed registration", n)
	}
}

func TestSignInSessionAndMembersPage(t *testing.T) {
	a := newAccountsAPI(t)
	a.register("ravi@carriers.example", "Cargo#777")

	// Without a session the members' page sends the browser to /login.
	a.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp := a.get("/secure/entry")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Fatalf("/secure/entry without a session: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp.Body.Close()
	for path, login := range map[string]string{"/hi/secure/entry": "/hi/login", "/ma/secure/entry": "/ma/login"} {
		resp := a.get(path)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != login {
			t.Errorf("%s without a session: %d to %q, want %s", path, resp.StatusCode, resp.Header.Get("Location"), login)
		}
		resp.Body.Close()
	}

	// The login page sends the username as typed; it is compared lowercase.
	resp, got := a.signIn("Ravi@Carriers.example", "Cargo#777", false)
	if resp.StatusCode != http.StatusOK || !got.Success {
		t.Fatalf("sign-in: %d %+v", resp.StatusCode, got)
	}
	raw := resp.Header.Get("Set-Cookie")
	for _, want := range []string{sessionCookie + "=", "HttpOnly", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(raw, want) {
			t.Errorf("session cookie %q lacks %s", raw, want)
		}
	}
	if strings.Contains(raw, "Max-Age") || strings.Contains(raw, "Expires") {
		t.Errorf("session cookie without remember me is persistent: %q", raw)
	}
	value := a.cookie(sessionCookie).Value
	if len(value) < 43 {
		t.Errorf("session id %q is shorter than 256 bits", value)
	}
	if n := a.count(`SELECT COUNT(*) FROM credentials WHERE token_hash = ?`, value); n != 0 {
		t.Error("the session id is stored in the clear")
	}
	if n := a.count(`SELECT COUNT(*) FROM credentials WHERE token_hash = ? AND kind = 'session'`, sha256Hex(value)); n != 1 {
		t.Error("the session's hash is not stored")
	}

	// The members' page: company, login id, sign-out, the member's language.
	resp = a.get("/secure/entry")
	expectStatus(t, resp, http.StatusOK)
	csp := resp.Header.Get("Content-Security-Policy")
	page := bodyText(resp)
	for _, want := range []string{`<html lang="hi"`, "Sahyadri Roadlines", "ravi@carriers.example", `action="/api/logout"`, `data-next="/hi/login?logout=true"`, `href="/assets/site.css"`, "सदस्य"} {
		if !strings.Contains(page, want) {
			t.Errorf("members' page lacks %q", want)
		}
	}
	// Under a language's prefix the page is in that language, and so is
	// the login page sign-out leads to.
	page = bodyText(a.get("/ma/secure/entry"))
	for _, want := range []string{`<html lang="mr"`, "Sahyadri Roadlines", `data-next="/ma/login?logout=true"`, `href="/ma"`} {
		if !strings.Contains(page, want) {
			t.Errorf("/ma/secure/entry lacks %q", want)
		}
	}
	page = bodyText(a.get("/secure/entry"))
	script := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(page)
	sum := sha256.Sum256([]byte(script[1]))
	if !strings.Contains(csp, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") || !strings.Contains(csp, "style-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Errorf("members' page CSP %q does not allow exactly its script by hash", csp)
	}

	// Remember me makes the cookie persistent (30 days).
	a.withoutCookies()
	resp, _ = a.signIn("ravi@carriers.example", "Cargo#777", true)
	if raw := resp.Header.Get("Set-Cookie"); !strings.Contains(raw, "Max-Age=2592000") {
		t.Errorf("remembered session cookie %q, want Max-Age=2592000", raw)
	}

	// Signing out ends the session on the server, not only in the browser.
	old := a.cookie(sessionCookie).Value
	resp = a.post("/api/logout", "application/json", nil)
	expectStatus(t, resp, http.StatusOK)
	resp.Body.Close()
	if n := a.count(`SELECT COUNT(*) FROM credentials WHERE token_hash = ?`, sha256Hex(old)); n != 0 {
		t.Error("the session survived sign-out")
	}
	a.client.Jar.SetCookies(resp.Request.URL, []*http.Cookie{{Name: sessionCookie, Value: old, Path: "/"}})
	resp = a.get("/secure/entry")
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the old session cookie still opens the members' page: %d", resp.StatusCode)
	}
	resp.Body.Close()
}

func TestSignInRefusals(t *testing.T) {
	a := newAccountsAPI(t)
	a.register("ravi@carriers.example", "Cargo#777")
	for _, c := range []struct{ name, username, password string }{
		{"wrong password", "ravi@carriers.example", "Cargo#778"},
		{"unknown account", "nobody@carriers.example", "Cargo#777"},
		{"empty password", "ravi@carriers.example", ""},
		{"empty username", "", "Cargo#777"},
	} {
		resp, got := a.signIn(c.username, c.password, false)
		if resp.StatusCode != http.StatusUnauthorized || got != (signInAnswer{false, "LOGIN.WARNING"}) {
			t.Errorf("%s: %d %+v, want 401 and LOGIN.WARNING", c.name, resp.StatusCode, got)
		}
		if resp.Header.Get("Set-Cookie") != "" && strings.Contains(resp.Header.Get("Set-Cookie"), sessionCookie) {
			t.Errorf("%s: a session cookie was set", c.name)
		}
	}
	post := func(contentType, body string, header http.Header) *http.Response {
		header.Set(xsrfHeader, a.token())
		return a.do(http.MethodPost, "/auth", contentType, strings.NewReader(body), header)
	}
	ajax := func() http.Header { return http.Header{"X-Requested-With": {"XMLHttpRequest"}} }
	expectJSONError(t, post("application/x-www-form-urlencoded", "username=a&password=b", http.Header{}), http.StatusBadRequest, "X-Requested-With")
	expectJSONError(t, post("application/json", `{"username":"a"}`, ajax()), http.StatusUnsupportedMediaType, "application/x-www-form-urlencoded")
	expectJSONError(t, post("application/x-www-form-urlencoded", "username=a&password=b&admin=1", ajax()), http.StatusBadRequest, `unknown field "admin"`)
	expectJSONError(t, post("application/x-www-form-urlencoded", "username=a&password=b&rememberMe=yes", ajax()), http.StatusBadRequest, "rememberMe")
	expectJSONError(t, post("application/x-www-form-urlencoded", "username=a&username=b&password=b", ajax()), http.StatusBadRequest, "more than once")
	// Without the anti-forgery header nothing is checked at all.
	resp := a.do(http.MethodPost, "/auth", "application/x-www-form-urlencoded", strings.NewReader("username=ravi%40carriers.example&password=Cargo%23777"), ajax())
	expectStatus(t, resp, http.StatusForbidden)
	resp.Body.Close()
}

// TestSignInEnumeration: a wrong password, an unknown account and empty or
// overlong credentials get the same answer after the same work (each
// checks an argon2id hash), at /auth and at the token call.
func TestSignInEnumeration(t *testing.T) {
	long := strings.Repeat("x", 300)
	invalid := [][2]string{{"", "Wrong#pass1"}, {"ravi@carriers.example", ""}, {long + "@carriers.example", "Wrong#pass1"}, {"ravi@carriers.example", long}, {"", ""}}
	for _, call := range []string{"/auth", "/token/generate-token"} {
		t.Run(call, func(t *testing.T) {
			// A server each: the address's own count (50) must not lock.
			a := newAccountsAPI(t)
			a.register("ravi@carriers.example", "Cargo#777")
			attempt := func(user, password string) time.Duration {
				t.Helper()
				var resp *http.Response
				var got signInAnswer
				took := work(func() {
					if call == "/auth" {
						resp, got = a.signIn(user, password, false)
					} else {
						resp = a.postJSON(call, map[string]string{"username": user, "password": password})
						got = decode[signInAnswer](t, resp)
					}
				})
				if resp.StatusCode != http.StatusUnauthorized || got != (signInAnswer{false, "LOGIN.WARNING"}) {
					t.Fatalf("%q/%d characters: %d %+v", user, len(password), resp.StatusCode, got)
				}
				return took
			}
			var known, unknown, bad []time.Duration
			attempt("warm-up@carriers.example", "Wrong#pass1")
			for round := 0; round < 3; round++ {
				for i := 0; i < limitAccountAddress-1; i++ {
					known = append(known, attempt("ravi@carriers.example", "Wrong#pass1"))
					unknown = append(unknown, attempt(fmt.Sprintf("nobody%d-%d@carriers.example", round, i), "Wrong#pass1"))
					c := invalid[(round*limitAccountAddress+i)%len(invalid)]
					bad = append(bad, attempt(c[0], c[1]))
				}
				// Stay below the lockout: a success clears the account's count.
				a.signIn("ravi@carriers.example", "Cargo#777", false)
			}
			expectSimilarTimes(t, known, unknown)
			expectSimilarTimes(t, known, bad)
		})
	}
}

// work is the CPU time the test process (client and server) spends while
// fn runs. Unlike the time on the clock it does not grow while other work
// on a shared machine holds the CPU, so it measures what the server did.
func work(fn func()) time.Duration {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	fn()
	return cpu() - start
}

// expectSimilarTimes fails when the medians of two sets of work differ by
// more than half the larger one: an answer that skipped the password hash
// would.
func expectSimilarTimes(t *testing.T, a, b []time.Duration) {
	t.Helper()
	median := func(d []time.Duration) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[len(s)/2]
	}
	ma, mb := median(a), median(b)
	t.Logf("median work %v and %v", ma, mb)
	if diff := max(ma, mb) - min(ma, mb); diff > max(ma, mb)/2 && diff > 5*time.Millisecond {
		t.Errorf("the answers take noticeably different work: %v and %v", ma, mb)
	}
}

// TestSignInThrottle: repeated wrong passwords lock sign-in for the account
// from that address (even with the right password), the lockout ends after
// its window and the right password works again; further lockouts grow.
func TestSignInThrottle(t *testing.T) {
	clock := testkit.NewClock()
	a := newAccountsAPI(t, withClock(clock), withAccounts(AccountOptions{BaseURL: "https://freight.example", SignInLockout: time.Minute}))
	a.register("ravi@carriers.example", "Cargo#777")
	guess := func(n int) {
		for i := 0; i < n; i++ {
			resp, got := a.signIn("ravi@carriers.example", "guess"+strconv.Itoa(i), false)
			if resp.StatusCode != http.StatusUnauthorized || got.Status != "LOGIN.WARNING" {
				t.Fatalf("guess %d: %d %+v", i, resp.StatusCode, got)
			}
		}
	}
	expectLocked := func(user, password string, retry int) {
		t.Helper()
		resp, got := a.signIn(user, password, false)
		if resp.StatusCode != http.StatusTooManyRequests || got != (signInAnswer{false, "LOGIN.LOCKED"}) {
			t.Fatalf("%s: %d %+v, want 429 LOGIN.LOCKED", user, resp.StatusCode, got)
		}
		if ra := resp.Header.Get("Retry-After"); ra != strconv.Itoa(retry) {
			t.Errorf("Retry-After %q, want %d", ra, retry)
		}
	}
	guess(limitAccountAddress)
	expectLocked("ravi@carriers.example", "Cargo#777", 60)
	// Trying during the lockout does not extend it.
	clock.Advance(30 * time.Second)
	expectLocked("RAVI@carriers.example", "guess", 30)
	clock.Advance(30 * time.Second)
	if resp, got := a.signIn("ravi@carriers.example", "Cargo#777", false); resp.StatusCode != http.StatusOK || !got.Success {
		t.Fatalf("right password after the lockout: %d %+v", resp.StatusCode, got)
	}
	// A success clears the count; the next lockout doubles.
	guess(limitAccountAddress)
	expectLocked("ravi@carriers.example", "Cargo#777", 60)
	clock.Advance(time.Minute)
	guess(limitAccountAddress)
	expectLocked("ravi@carriers.example", "Cargo#777", 120)
	clock.Advance(2 * time.Minute)
	if resp, got := a.signIn("ravi@carriers.example", "Cargo#777", false); resp.StatusCode != http.StatusOK || !got.Success {
		t.Fatalf("right password after the second lockout: %d %+v", resp.StatusCode, got)
	}

	// Unknown accounts lock exactly the same way.
	for i := 0; i < limitAccountAddress; i++ {
		a.signIn("ghost@carriers.example", "guess", false)
	}
	expectLocked("ghost@carriers.example", "guess", 60)
	// The token call shares the throttle.
	resp := a.postJSON("/token/generate-token", map[string]string{"username": "ghost@carriers.example", "password": "guess"})
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("token call during a lockout: %d", resp.StatusCode)
	}
	resp.Body.Close()
}

func TestSignInThrottleLimits(t *testing.T) {
	clock := testkit.NewClock()
	st := testkit.OpenStore(t, testDB(t, "throttle.db"))
	defer st.Close()
	th := newSignInThrottle(st, time.Minute, clock.Now)
	ctx := context.Background()
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	failed := func(account, address string) {
		t.Helper()
		_, refusal, err := th.reserve(ctx, account, address, false)
		check(err)
		if refusal != nil {
			t.Fatalf("%s from %s refused: %+v", account, address, refusal.answer)
		}
	}
	wait := func(account, address string) time.Duration {
		t.Helper()
		d, err := th.wait(ctx, account, address)
		check(err)
		return d
	}
	needsCaptcha := func(account string) bool {
		t.Helper()
		ok, err := th.needsCaptcha(ctx, account)
		check(err)
		return ok
	}
	// Guessing one account from many addresses never locks it: sign-in to
	// it needs a captcha, from anywhere, until the failures are a window
	// old.
	for i := 0; i < limitAccount; i++ {
		failed("ravi", fmt.Sprintf("10.0.0.%d", i))
	}
	if wait("ravi", "10.9.9.9") != 0 || !needsCaptcha("ravi") {
		t.Errorf("an account guessed from 20 addresses: wait %v from elsewhere, captcha %v; want no lock and a captcha", wait("ravi", "10.9.9.9"), needsCaptcha("ravi"))
	}
	if needsCaptcha("other") {
		t.Error("another account needs a captcha")
	}
	clock.Advance(61 * time.Second)
	if needsCaptcha("ravi") {
		t.Error("the step-up outlived its window")
	}
	// Guessing many accounts from one address locks the address.
	for i := 0; i < limitAddress; i++ {
		failed(fmt.Sprintf("user%d", i), "10.1.1.1")
	}
	if wait("someone-else", "10.1.1.1") == 0 {
		t.Error("an address that guessed 50 accounts is not locked")
	}
	if wait("someone-else", "10.2.2.2") != 0 {
		t.Error("an innocent address is locked")
	}
	// A completed reset forgets the account everywhere, not other accounts.
	for i := 0; i < limitAccount; i++ {
		failed("āsha", fmt.Sprintf("10.5.0.%d", i%4))
		failed("meera", fmt.Sprintf("10.5.0.%d", i%4))
	}
	check(st.Write(ctx, func(tx *store.Tx) error { return forgetAccount(tx, "āsha") }))
	if needsCaptcha("āsha") || wait("āsha", "10.5.0.1") != 0 {
		t.Error("a reset left āsha's step-up or lockout")
	}
	if !needsCaptcha("meera") || wait("meera", "10.5.0.1") == 0 {
		t.Error("āsha's reset cleared meera's failures")
	}
	// Failures spread wider than the window never lock.
	for i := 0; i < 2*limitAccountAddress; i++ {
		failed("slow", "10.3.3.3")
		clock.Advance(61 * time.Second)
	}
	if wait("slow", "10.3.3.3") != 0 || needsCaptcha("slow") {
		t.Error("failures a window apart locked the account or stepped it up")
	}
	// Rows of long-past failures are dropped.
	clock.Advance(10 * time.Minute)
	failed("late", "10.4.4.4")
	var n int
	check(st.TestQueryRow(`SELECT COUNT(*) FROM sign_in_failures`).Scan(&n))
	if n != 3 {
		t.Errorf("%d rows kept, want only the 3 of the latest failure", n)
	}
}

// withTrustedProxy lets tests name the client's address in
// X-Forwarded-For, as nginx does, to sign in from many addresses.
func withTrustedProxy() apiOption {
	return func(cfg *Config) { cfg.TrustedProxies, _ = ParseTrustedProxies([]string{"127.0.0.1"}) }
}

// signInFrom posts /auth from an address, with a captcha answer if any.
func (a *testAPI) signInFrom(address, username, password, captcha string) (*http.Response, signInAnswer) {
	a.t.Helper()
	form := url.Values{"username": {username}, "password": {password}, "rememberMe": {"off"}}
	if captcha != "" {
		form.Set("recaptchaResponse", captcha)
	}
	resp := a.do(http.MethodPost, "/auth", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()),
		http.Header{xsrfHeader: {a.token()}, "X-Requested-With": {"XMLHttpRequest"}, "X-Forwarded-For": {address}})
	return resp, decode[signInAnswer](a.test(), resp)
}

// tokenFrom posts the token call from an address.
func (a *testAPI) tokenFrom(address, username, password, captcha string) *http.Response {
	a.t.Helper()
	b, _ := json.Marshal(map[string]string{"username": username, "password": password, "recaptchaResponse": captcha})
	return a.do(http.MethodPost, "/token/generate-token", "application/json", strings.NewReader(string(b)),
		http.Header{xsrfHeader: {a.token()}, "X-Forwarded-For": {address}})
}

// attack makes limitAccountAddress wrong guesses at account from each of
// the addresses (a guesser spreading over addresses: 5 from each of 4).
func (a *testAPI) attack(account string, addresses ...string) {
	a.t.Helper()
	for _, address := range addresses {
		for i := 0; i < limitAccountAddress; i++ {
			if resp, got := a.signInFrom(address, account, "Guess#"+strconv.Itoa(i), ""); resp.StatusCode != http.StatusUnauthorized || got.Status == statusSignInLocked {
				a.t.Fatalf("guess %d from %s: %d %+v", i, address, resp.StatusCode, got)
			}
		}
	}
}

// TestSignInStepUpInsteadOfAccountLock: wrong passwords from many
// addresses never lock the owner out. The guessing addresses are locked
// (for that account); from anywhere else sign-in answers LOGIN.CAPTCHA
// until a solved captcha comes with it, and then the right password
// signs in. Tries without a captcha are not counted, so keeping the
// account stepped up costs an attacker a proof of work per guess. The
// token call follows the same rule, and unknown accounts step up alike.
func TestSignInStepUpInsteadOfAccountLock(t *testing.T) {
	a := newAccountsAPI(t, withTrustedProxy())
	a.register("ravi@carriers.example", "Cargo#777")
	attackers := []string{"198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"}
	a.attack("ravi@carriers.example", attackers...)
	captchaWanted := signInAnswer{false, statusSignInCaptcha}

	for _, c := range []struct{ name, address, password, captcha string }{
		{"right password, new address, no captcha", "203.0.113.7", "Cargo#777", ""},
		{"right password, captcha not base64", "203.0.113.7", "Cargo#777", "%%%"},
		{"right password, captcha forged", "203.0.113.7", "Cargo#777", altchaPayload("SHA-256", strings.Repeat("a", 64), 1, "0123456789abcdef01234567?expires=9999999999&", strings.Repeat("b", 64))},
		{"wrong password, no captcha", "203.0.113.8", "Guess#x", ""},
	} {
		resp, got := a.signInFrom(c.address, "RAVI@carriers.example", c.password, c.captcha)
		if resp.StatusCode != http.StatusUnauthorized || got != captchaWanted {
			t.Errorf("%s: %d %+v, want 401 LOGIN.CAPTCHA", c.name, resp.StatusCode, got)
		}
	}
	// Many more tries without a captcha, from many addresses, lock
	// nothing: they are not even counted.
	for i := 0; i < 3*limitAccountAddress; i++ {
		a.signInFrom("203.0.113.7", "ravi@carriers.example", "Guess#"+strconv.Itoa(i), "")
	}
	// An attacker's own address stays locked for the account.
	if resp, got := a.signInFrom(attackers[0], "ravi@carriers.example", "Cargo#777", a.solveCaptcha()); resp.StatusCode != http.StatusTooManyRequests || got.Status != statusSignInLocked {
		t.Errorf("from a guessing address: %d %+v, want 429 LOGIN.LOCKED", resp.StatusCode, got)
	}
	// The token call asks for the captcha too.
	resp := a.tokenFrom("203.0.113.7", "ravi@carriers.example", "Cargo#777", "")
	if got := decode[signInAnswer](t, resp); resp.StatusCode != http.StatusUnauthorized || got != captchaWanted {
		t.Errorf("token call without a captcha: %d %+v", resp.StatusCode, got)
	}
	// A solved captcha with a wrong password is a counted failure.
	if resp, got := a.signInFrom("203.0.113.9", "ravi@carriers.example", "Guess#y", a.solveCaptcha()); resp.StatusCode != http.StatusUnauthorized || got.Status != statusSignInFailed {
		t.Errorf("wrong password with a captcha: %d %+v, want LOGIN.WARNING", resp.StatusCode, got)
	}
	// The right password with a solved captcha signs in (a solution works
	// once: the spent one is refused).
	solved := a.solveCaptcha()
	if resp, got := a.signInFrom("203.0.113.7", "ravi@carriers.example", "Cargo#777", solved); resp.StatusCode != http.StatusOK || !got.Success {
		t.Fatalf("right password with a captcha: %d %+v", resp.StatusCode, got)
	}
	// The owner's success ends the step-up: the token needs no captcha.
	resp = a.tokenFrom("203.0.113.7", "ravi@carriers.example", "Cargo#777", "")
	expectStatus(t, resp, http.StatusOK)
	resp.Body.Close()

	// Stepped up again, the token call takes a solved captcha.
	a.attack("ravi@carriers.example", "198.51.100.5", "198.51.100.6", "198.51.100.7", "198.51.100.8")
	if resp := a.tokenFrom("203.0.113.7", "ravi@carriers.example", "Cargo#777", solved); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("token call with a spent captcha: %d", resp.StatusCode)
	}
	resp = a.tokenFrom("203.0.113.7", "ravi@carriers.example", "Cargo#777", a.solveCaptcha())
	if got := decode[tokenAnswer](t, resp); resp.StatusCode != http.StatusOK || got.Token == "" {
		t.Errorf("token call with a captcha: %d %+v", resp.StatusCode, got)
	}

	// An unknown account steps up exactly the same way.
	a.attack("ghost@carriers.example", attackers[:limitAccount/limitAccountAddress]...)
	if resp, got := a.signInFrom("203.0.113.7", "ghost@carriers.example", "Cargo#777", ""); resp.StatusCode != http.StatusUnauthorized || got != captchaWanted {
		t.Errorf("unknown account under attack: %d %+v, want LOGIN.CAPTCHA", resp.StatusCode, got)
	}
}

// TestResetClearsSignInFailures: a completed password reset lifts the
// account's lockouts (also for the address that guessed) and its step-up.
func TestResetClearsSignInFailures(t *testing.T) {
	a := newAccountsAPI(t, withTrustedProxy())
	a.register("ravi@carriers.example", "Cargo#777")
	a.register("asha@carriers.example", "Cargo#777")
	addresses := []string{"198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"}
	a.attack("ravi@carriers.example", addresses...)
	a.attack("asha@carriers.example", addresses[1:]...)
	if resp, got := a.signInFrom(addresses[0], "ravi@carriers.example", "Cargo#777", ""); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("before the reset: %d %+v, want locked", resp.StatusCode, got)
	}
	a.forgot("ravi@carriers.example", "")
	_, token := a.lastResetLink("ravi@carriers.example")
	if resp, got := a.reset(token, "Lorry#2025", "Lorry#2025"); resp.StatusCode != http.StatusOK || got.Status != "success" {
		t.Fatalf("reset: %d %+v", resp.StatusCode, got)
	}
	for _, address := range []string{addresses[0], "203.0.113.7"} {
		if resp, got := a.signInFrom(address, "ravi@carriers.example", "Lorry#2025", ""); resp.StatusCode != http.StatusOK || !got.Success {
			t.Errorf("after the reset, from %s without a captcha: %d %+v", address, resp.StatusCode, got)
		}
	}
	// asha's own failures are not ravi's to clear.
	if resp, got := a.signInFrom(addresses[1], "asha@carriers.example", "Cargo#777", ""); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("another account after ravi's reset: %d %+v, want still locked", resp.StatusCode, got)
	}
}

func TestBearerToken(t *testing.T) {
	clock := testkit.NewClock()
	a := newAccountsAPI(t, withClock(clock))
	a.register("ravi@carriers.example", "Cargo#777")
	resp := a.postJSON("/token/generate-token", map[string]string{"username": "Ravi@carriers.example", "password": "Cargo#777"})
	expectStatus(t, resp, http.StatusOK)
	tok := decode[tokenAnswer](t, resp)
	if tok.TokenType != "Bearer" || len(tok.Token) < 43 || tok.ExpiresIn != 7200 {
		t.Fatalf("token answer %+v", tok)
	}
	if _, err := time.Parse(time.RFC3339, tok.ExpiresAt); err != nil {
		t.Errorf("expiresAt %q: %v", tok.ExpiresAt, err)
	}
	if n := a.count(`SELECT COUNT(*) FROM credentials WHERE token_hash = ? AND kind = 'bearer'`, sha256Hex(tok.Token)); n != 1 {
		t.Error("the token's hash is not stored")
	}
	account := func(token string) *http.Response {
		return a.do(http.MethodGet, "/api/account", "", nil, http.Header{"Authorization": {"Bearer " + token}})
	}
	resp = account(tok.Token)
	expectStatus(t, resp, http.StatusOK)
	if got := decode[accountAnswer](t, resp); got.Email != "ravi@carriers.example" || got.CompanyName != "Sahyadri Roadlines" || got.PreferredLanguage != "hi" {
		t.Errorf("account %+v", got)
	}
	// Forged: a well-formed value the server never issued.
	expectJSONError(t, account(randomToken(32)), http.StatusForbidden, "not valid")
	// A session id is not a bearer token.
	a.signIn("ravi@carriers.example", "Cargo#777", false)
	expectJSONError(t, account(a.cookie(sessionCookie).Value), http.StatusForbidden, "not valid")
	// Expired.
	clock.Advance(bearerLifetime)
	expectJSONError(t, account(tok.Token), http.StatusForbidden, "expired")
	// No credentials at all.
	a.withoutCookies()
	expectJSONError(t, a.get("/api/account"), http.StatusUnauthorized, "not signed in")
	// Wrong credentials get the sign-in failure.
	resp = a.postJSON("/token/generate-token", map[string]string{"username": "ravi@carriers.example", "password": "nope"})
	if got := decode[signInAnswer](t, resp); resp.StatusCode != http.StatusUnauthorized || got.Status != "LOGIN.WARNING" {
		t.Errorf("bad credentials: %d %+v", resp.StatusCode, got)
	}
	// Signing out with the token revokes it.
	resp = a.postJSON("/token/generate-token", map[string]string{"username": "ravi@carriers.example", "password": "Cargo#777"})
	tok = decode[tokenAnswer](t, resp)
	resp = a.do(http.MethodPost, "/api/logout", "", nil, http.Header{xsrfHeader: {a.token()}, "Authorization": {"Bearer " + tok.Token}})
	expectStatus(t, resp, http.StatusOK)
	resp.Body.Close()
	expectJSONError(t, account(tok.Token), http.StatusForbidden, "not valid")
}

// forgot posts a forgot-password request with a solved captcha.
func (a *testAPI) forgot(loginID, origin string) (*http.Response, statusAnswer) {
	a.t.Helper()
	resp := a.postJSON("/api/forgot_password", map[string]string{"loginId": loginID, "recaptchaResponse": a.solveCaptcha(), "origin": origin})
	return resp, decode[statusAnswer](a.test(), resp)
}

var resetLink = regexp.MustCompile(`(https?://[^\s]+)/reset-password\?token=([A-Za-z0-9_-]{43})`)

// lastResetLink is the base and token of the newest mail to recipient.
func (a *testAPI) lastResetLink(recipient string) (base, token string) {
	a.t.Helper()
	var body string
	if err := a.store.TestQueryRow(`SELECT body FROM outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1`, recipient).Scan(&body); err != nil {
		a.t.Fatalf("no mail to %s: %v", recipient, err)
	}
	m := resetLink.FindStringSubmatch(body)
	if m == nil {
		a.t.Fatalf("no reset link in %q", body)
	}
	return m[1], m[2]
}

func TestForgotPasswordMailsALink(t *testing.T) {
	a := newAccountsAPI(t, withAccounts(AccountOptions{BaseURL: "https://freight.example/", SiteOrigins: []string{"https://pune.freight.example"}}))
	a.register("ravi@carriers.example", "Cargo#777")
	resp, got := a.forgot("RAVI@carriers.example", "https://evil.example")
	if resp.StatusCode != http.StatusOK || got.Status != "success" {
		t.Fatalf("forgot: %d %+v", resp.StatusCode, got)
	}
	var subject, body string
	if err := a.store.TestQueryRow(`SELECT subject, body FROM outbox WHERE recipient = 'ravi@carriers.example'`).Scan(&subject, &body); err != nil {
		t.Fatal(err)
	}
	// The member registered in Hindi: the mail and the link are Hindi.
	base, token := a.lastResetLink("ravi@carriers.example")
	if base != "https://freight.example/hi" || !strings.Contains(subject, "पासवर्ड") || !strings.Contains(body, "30") {
		t.Errorf("mail %q / %q: link base %q, want the configured base URL (never the request's origin) with /hi", subject, body, base)
	}
	if n := a.count(`SELECT COUNT(*) FROM password_resets WHERE token_hash = ? AND user_id IS NOT NULL`, sha256Hex(token)); n != 1 {
		t.Error("the reset token's hash is not stored")
	}
	if n := a.count(`SELECT COUNT(*) FROM password_resets WHERE token_hash = ?`, token); n != 0 {
		t.Error("the reset token is stored in the clear")
	}
	// A configured origin is used for the link.
	a.forgot("ravi@carriers.example", "https://pune.freight.example")
	if base, _ := a.lastResetLink("ravi@carriers.example"); base != "https://pune.freight.example/hi" {
		t.Errorf("link base %q, want the configured origin the request came from", base)
	}
	a.forgot("ravi@carriers.example", "https://pune.freight.example/path")
	if base, _ := a.lastResetLink("ravi@carriers.example"); base != "https://freight.example/hi" {
		t.Errorf("link base %q for an origin with a path, want the base URL", base)
	}
}

func TestForgotPasswordRules(t *testing.T) {
	a := newAccountsAPI(t)
	for _, c := range []struct {
		name    string
		payload map[string]string
		want    fieldError
	}{
		{"login id required", map[string]string{"loginId": "", "recaptchaResponse": a.solveCaptcha()}, fieldError{"loginId", "forgetPassword.errors.loginIdRequired"}},
		{"captcha required", map[string]string{"loginId": "ravi@carriers.example", "recaptchaResponse": ""}, fieldError{"recaptchaResponse", "forgetPassword.errors.captcha"}},
		{"captcha refused", map[string]string{"loginId": "ravi@carriers.example", "recaptchaResponse": "bm90IGEgc29sdXRpb24="}, fieldError{"recaptchaResponse", "forgetPassword.errors.captcha"}},
	} {
		resp := a.postJSON("/api/forgot_password", c.payload)
		got := decode[statusAnswer](t, resp)
		if resp.StatusCode != http.StatusBadRequest || got.Status != "failed" || !slices.Contains(got.ErrorMessageList, c.want) {
			t.Errorf("%s: %d %+v", c.name, resp.StatusCode, got)
		}
	}
	if n := a.count(`SELECT COUNT(*) FROM outbox`); n != 0 {
		t.Errorf("%d mails queued by refused requests", n)
	}
}

// TestForgotPasswordEnumeration: a known and an unknown login id get the
// same answer after the same work; only the known one gets mail.
func TestForgotPasswordEnumeration(t *testing.T) {
	a := newAccountsAPI(t)
	a.register("ravi@carriers.example", "Cargo#777")
	var known, unknown []time.Duration
	var answers []string
	for i := 0; i < 7; i++ {
		for _, c := range []struct {
			id    string
			times *[]time.Duration
		}{{"ravi@carriers.example", &known}, {fmt.Sprintf("nobody%d@carriers.example", i), &unknown}} {
			payload := map[string]string{"loginId": c.id, "recaptchaResponse": a.solveCaptcha(), "origin": ""}
			var resp *http.Response
			*c.times = append(*c.times, work(func() { resp = a.postJSON("/api/forgot_password", payload) }))
			answers = append(answers, fmt.Sprint(resp.StatusCode, " ", bodyText(resp)))
		}
	}
	for _, got := range answers {
		if got != answers[0] || !strings.Contains(got, `"status":"success"`) {
			t.Fatalf("answers differ: %q vs %q", got, answers[0])
		}
	}
	expectSimilarTimes(t, known, unknown)
	if n := a.count(`SELECT COUNT(*) FROM outbox`); n != resetMailsPerLifetime {
		t.Errorf("%d mails, want %d (the known account only, up to its cap)", n, resetMailsPerLifetime)
	}
}

// TestForgotPasswordCapsMails: a member gets at most three reset mails
// in 30 minutes, whatever is asked; the answers do not change.
func TestForgotPasswordCapsMails(t *testing.T) {
	clock := testkit.NewClock()
	a := newAccountsAPI(t, withClock(clock))
	a.register("ravi@carriers.example", "Cargo#777")
	for i := 0; i < resetMailsPerLifetime+2; i++ {
		if resp, got := a.forgot("ravi@carriers.example", ""); resp.StatusCode != http.StatusOK || got.Status != "success" {
			t.Fatalf("request %d: %d %+v", i, resp.StatusCode, got)
		}
	}
	if n := a.count(`SELECT COUNT(*) FROM outbox`); n != resetMailsPerLifetime {
		t.Errorf("%d mails, want %d", n, resetMailsPerLifetime)
	}
	clock.Advance(resetLifetime)
	a.forgot("ravi@carriers.example", "")
	if n := a.count(`SELECT COUNT(*) FROM outbox`); n != resetMailsPerLifetime+1 {
		t.Errorf("%d mails after the links expired, want one more", n)
	}
}

// TestForgotPasswordCapHoldsAcrossInstances: requests for one account
// sent all at once through two instances of the server on one database
// mail the member no more than the cap; every one answers "success". Once
// the links have expired, the cap allows as many again.
func TestForgotPasswordCapHoldsAcrossInstances(t *testing.T) {
	clock := testkit.NewClock()
	a := newAccountsAPI(t, withClock(clock))
	b := newTestAPIOn(t, a.db, unlimited(), withClock(clock), withAccounts(AccountOptions{BaseURL: "https://freight.example"}))
	a.register("ravi@carriers.example", "Cargo#777")
	for round := range 3 {
		tokens := []string{a.token(), b.token()}
		const requests = 8
		bodies := make([][]byte, requests)
		for i := range bodies {
			bodies[i], _ = json.Marshal(map[string]string{"loginId": "ravi@carriers.example", "recaptchaResponse": a.solveCaptcha(), "origin": ""})
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		answers := map[string]int{}
		start := make(chan struct{})
		for i := range requests {
			api := []*testAPI{a, b}[i%2]
			wg.Go(func() {
				<-start
				req, _ := http.NewRequest(http.MethodPost, api.srv.URL+"/api/forgot_password", bytes.NewReader(bodies[i]))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(xsrfHeader, tokens[i%2])
				answer := "no answer"
				if resp, err := api.client.Do(req); err == nil {
					answer = fmt.Sprint(resp.StatusCode, " ", strings.TrimSpace(bodyText(resp)))
				}
				mu.Lock()
				answers[answer]++
				mu.Unlock()
			})
		}
		close(start)
		wg.Wait()
		if want := `200 {"status":"success"}`; answers[want] != requests {
			t.Errorf("round %d: answers %v, want %d of %s", round+1, answers, requests, want)
		}
		if n := a.count(`SELECT COUNT(*) FROM outbox WHERE recipient = 'ravi@carriers.example'`); n != (round+1)*resetMailsPerLifetime {
			t.Fatalf("round %d: %d reset mails in all, want %d (at most %d a round)", round+1, n, (round+1)*resetMailsPerLifetime, resetMailsPerLifetime)
		}
		if n := a.count(`SELECT COUNT(*) FROM password_resets`); n != requests {
			t.Errorf("round %d: %d links kept, want the round's %d (the earlier ones expired)", round+1, n, requests)
		}
		clock.Advance(resetLifetime)
	}
}

// reset posts a new password with a token.
func (a *testAPI) reset(token, password, confirm string) (*http.Response, statusAnswer) {
	a.t.Helper()
	resp := a.postJSON("/api/reset_password", map[string]string{"token": token, "newPassword": password, "confirmPassword": confirm})
	return resp, decode[statusAnswer](a.test(), resp)
}

func TestResetPassword(t *testing.T) {
	clock := testkit.NewClock()
	a := newAccountsAPI(t, withClock(clock))
	a.register("ravi@carriers.example", "Cargo#777")
	// A session and a bearer token from before the reset.
	a.signIn("ravi@carriers.example", "Cargo#777", true)
	resp := a.postJSON("/token/generate-token", map[string]string{"username": "ravi@carriers.example", "password": "Cargo#777"})
	bearer := decode[tokenAnswer](t, resp).Token
	a.withoutCookies()

	a.forgot("ravi@carriers.example", "")
	_, token := a.lastResetLink("ravi@carriers.example")
	for _, c := range []struct {
		name, password, confirm string
		want                    fieldError
	}{
		{"required", "", "", fieldError{"newPassword", "RESET.RESET7"}},
		{"at least 8", "Ab1", "Ab1", fieldError{"newPassword", "RESET.RESET8"}},
		{"letter and digit or symbol", "abcdefghi", "abcdefghi", fieldError{"newPassword", "RESET.RESET9"}},
		{"allowed characters only", "abcdefg1~", "abcdefg1~", fieldError{"newPassword", "RESET.RESET9"}},
		{"confirmation required", "Lorry@2025", "", fieldError{"confirmPassword", "RESET.RESET11"}},
		{"confirmation at least 8", "Lorry@2025", "Lo1", fieldError{"confirmPassword", "RESET.RESET12"}},
		{"confirmation rule", "Lorry@2025", "Lorryyyyy", fieldError{"confirmPassword", "RESET.RESET13"}},
		{"equal", "Lorry@2025", "Lorry@2026", fieldError{"confirmPassword", "RESET.RESET4"}},
	} {
		resp, got := a.reset(token, c.password, c.confirm)
		if resp.StatusCode != http.StatusBadRequest || got.Status != "failed" || !slices.Contains(got.ErrorMessageList, c.want) {
			t.Errorf("%s: %d %+v, want failed with %v", c.name, resp.StatusCode, got, c.want)
		}
	}
	// Refused attempts do not use the token up.
	if resp, got := a.reset(token, "Lorry@2025", "Lorry@2025"); resp.StatusCode != http.StatusOK || got.Status != "success" {
		t.Fatalf("reset: %d %+v", resp.StatusCode, got)
	}
	// The new password works, the old one not; the old session and
	// bearer token are over.
	if resp, _ := a.signIn("ravi@carriers.example", "Cargo#777", false); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("old password after the reset: %d", resp.StatusCode)
	}
	if resp, got := a.signIn("ravi@carriers.example", "Lorry@2025", false); resp.StatusCode != http.StatusOK || !got.Success {
		t.Errorf("new password: %d %+v", resp.StatusCode, got)
	}
	if n := a.count(`SELECT COUNT(*) FROM credentials`); n != 1 {
		t.Errorf("%d credentials after the reset and one sign-in, want 1", n)
	}
	expectJSONError(t, a.do(http.MethodGet, "/api/account", "", nil, http.Header{"Authorization": {"Bearer " + bearer}}), http.StatusForbidden, "not valid")

	// Reused, forged, expired, missing: all tokenExpired (RESET2).
	expectExpired := func(name, token string) {
		t.Helper()
		resp, got := a.reset(token, "Again@2025", "Again@2025")
		if resp.StatusCode != http.StatusBadRequest || got.Status != "tokenExpired" {
			t.Errorf("%s token: %d %+v, want tokenExpired", name, resp.StatusCode, got)
		}
	}
	expectExpired("reused", token)
	expectExpired("forged", randomToken(32))
	expectExpired("missing", "")
	a.forgot("ravi@carriers.example", "")
	_, fresh := a.lastResetLink("ravi@carriers.example")
	clock.Advance(resetLifetime)
	expectExpired("expired", fresh)
	// A link asked for an unknown account has a row but resets nothing.
	a.forgot("nobody@carriers.example", "")
	var orphan int
	if err := a.store.TestQueryRow(`SELECT COUNT(*) FROM password_resets WHERE user_id IS NULL`).Scan(&orphan); err != nil || orphan != 1 {
		t.Errorf("%d rows for the unknown account (%v), want 1", orphan, err)
	}
}

// TestResetEndsOtherSessionsOnly: a member signed in while resetting keeps
// that session; every other one ends.
func TestResetEndsOtherSessionsOnly(t *testing.T) {
	a := newAccountsAPI(t)
	a.register("ravi@carriers.example", "Cargo#777")
	a.signIn("ravi@carriers.example", "Cargo#777", false)
	other := a.cookie(sessionCookie).Value
	a.withoutCookies()
	a.signIn("ravi@carriers.example", "Cargo#777", false)
	mine := a.cookie(sessionCookie).Value
	a.forgot("ravi@carriers.example", "")
	_, token := a.lastResetLink("ravi@carriers.example")
	if resp, got := a.reset(token, "Lorry@2025", "Lorry@2025"); got.Status != "success" {
		t.Fatalf("reset: %d %+v", resp.StatusCode, got)
	}
	if n := a.count(`SELECT COUNT(*) FROM credentials WHERE token_hash = ?`, sha256Hex(mine)); n != 1 {
		t.Error("the session that made the reset ended")
	}
	if n := a.count(`SELECT COUNT(*) FROM credentials WHERE token_hash = ?`, sha256Hex(other)); n != 0 {
		t.Error("another session survived the reset")
	}
}

// TestResetTokenIsSingleUseUnderRace: two requests with one link at once;
// exactly one succeeds.
func TestResetTokenIsSingleUseUnderRace(t *testing.T) {
	a := newAccountsAPI(t)
	a.register("ravi@carriers.example", "Cargo#777")
	a.forgot("ravi@carriers.example", "")
	_, token := a.lastResetLink("ravi@carriers.example")
	xsrf := a.token()
	var wg sync.WaitGroup
	statuses := make([]string, 4)
	for i := range statuses {
		wg.Go(func() {
			body, _ := json.Marshal(map[string]string{"token": token, "newPassword": fmt.Sprintf("Race@%d000", i), "confirmPassword": fmt.Sprintf("Race@%d000", i)})
			resp := a.do(http.MethodPost, "/api/reset_password", "application/json", strings.NewReader(string(body)), http.Header{xsrfHeader: {xsrf}})
			statuses[i] = decode[statusAnswer](t, resp).Status
		})
	}
	wg.Wait()
	slices.Sort(statuses)
	if !slices.Equal(statuses, []string{"success", "tokenExpired", "tokenExpired", "tokenExpired"}) {
		t.Errorf("statuses %v, want one success", statuses)
	}
}
