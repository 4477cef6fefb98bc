package formapi

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestXSRF(t *testing.T) {
	a := newTestAPI(t, unlimited())
	valid := map[string]string{"name": "Asha", "email": "asha@example.com", "subject": "Hello"}
	body := `{"name":"Asha","email":"asha@example.com","subject":"Hello"}`
	forged := "bm9uY2U." + strings.Repeat("A", 43) // right shape, wrong signature

	t.Run("a GET sets a signed, script-readable cookie", func(t *testing.T) {
		resp := newTestAPI(t).get("/countries")
		var c *http.Cookie
		for _, k := range resp.Cookies() {
			if k.Name == xsrfCookie {
				c = k
			}
		}
		if c == nil {
			t.Fatal("no XSRF-TOKEN cookie on a GET")
		}
		if c.HttpOnly || c.Path != "/" || c.SameSite != http.SameSiteStrictMode {
			t.Errorf("cookie %+v: want Path=/, SameSite=Strict, readable by script", c)
		}
		if !strings.Contains(c.Value, ".") {
			t.Errorf("token %q is not nonce.signature", c.Value)
		}
	})
	t.Run("no header", func(t *testing.T) {
		a.token()
		resp := a.do(http.MethodPost, "/api/contact_us", "application/json", strings.NewReader(body), nil)
		expectJSONError(t, resp, http.StatusForbidden, "X-XSRF-TOKEN")
	})
	t.Run("header differs from cookie", func(t *testing.T) {
		a.token()
		resp := a.do(http.MethodPost, "/api/contact_us", "application/json", strings.NewReader(body), http.Header{xsrfHeader: {forged}})
		expectJSONError(t, resp, http.StatusForbidden, "does not match")
	})
	t.Run("forged cookie and matching header", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/api/contact_us", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(xsrfHeader, forged)
		req.AddCookie(&http.Cookie{Name: xsrfCookie, Value: forged})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		expectJSONError(t, resp, http.StatusForbidden, "invalid anti-forgery token")
	})
	t.Run("cross-origin request", func(t *testing.T) {
		resp := a.do(http.MethodPost, "/api/contact_us", "application/json", strings.NewReader(body), http.Header{xsrfHeader: {a.token()}, "Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}})
		expectJSONError(t, resp, http.StatusForbidden, "cross-origin")
	})
	if n := a.count(`SELECT COUNT(*) FROM contact_messages`); n != 0 {
		t.Fatalf("refused requests wrote %d rows", n)
	}
	t.Run("valid token", func(t *testing.T) {
		expectStatus(t, a.postJSON("/api/contact_us", valid), http.StatusOK)
	})
}

func TestSecurityHeaders(t *testing.T) {
	a := newTestAPI(t)
	resp := a.get("/healthz")
	resp.Body.Close()
	for k, v := range map[string]string{
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Referrer-Policy":         "strict-origin-when-cross-origin",
		"Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
		"Cache-Control":           "no-store",
	} {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
}

func TestUnknownCallsAndMethods(t *testing.T) {
	a := newTestAPI(t)
	expectJSONError(t, a.get("/api/no-such-call"), http.StatusNotFound, "no such call")
	expectJSONError(t, a.get("/api/contact_us"), http.StatusMethodNotAllowed, "GET is not allowed")
}

func TestRateLimitAnswers429WithRetryAfter(t *testing.T) {
	a := newTestAPI(t, withRates(map[string]Rate{"contact": {2, time.Minute}}))
	msg := map[string]string{"name": "Asha", "email": "asha@example.com", "subject": "Hi"}
	for i := 0; i < 2; i++ {
		expectStatus(t, a.postJSON("/api/contact_us", msg), http.StatusOK)
	}
	resp := a.postJSON("/api/contact_us", msg)
	if ra := resp.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("Retry-After %q", ra)
	}
	expectJSONError(t, resp, http.StatusTooManyRequests, "too many requests")
	if n := a.count(`SELECT COUNT(*) FROM contact_messages`); n != 2 {
		t.Errorf("%d rows, want the 2 allowed", n)
	}
}

func TestLimiterRefillsAndSeparatesClients(t *testing.T) {
	now := time.Unix(0, 0)
	l := newLimiter(Rate{N: 2, Per: time.Minute}, func() time.Time { return now })
	l.allow("a")
	l.allow("a")
	if ok, wait := l.allow("a"); ok || wait != 30*time.Second {
		t.Errorf("third request: ok=%v wait=%v, want refused for 30s", ok, wait)
	}
	if ok, _ := l.allow("b"); !ok {
		t.Error("another client was refused")
	}
	now = now.Add(30 * time.Second)
	if ok, _ := l.allow("a"); !ok {
		t.Error("no token after 30 s at 2/min")
	}
}

func TestClientIPBehindTrustedProxy(t *testing.T) {
	trusted, _ := ParseTrustedProxies([]string{"127.0.0.1", "10.0.0.0/8"})
	ip := clientIPFunc(trusted)
	req := func(remote, xff string) *http.Request {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = remote
		if xff != "" {
			r.Header.Set("X-Forwarded-For", xff)
		}
		return r
	}
	for _, c := range []struct{ remote, xff, want string }{
		{"203.0.113.9:5000", "198.51.100.1", "203.0.113.9"},                   // untrusted peer: its header is ignored
		{"127.0.0.1:5000", "198.51.100.1", "198.51.100.1"},                    // nginx on the same host
		{"127.0.0.1:5000", "1.2.3.4, 198.51.100.1, 10.0.0.3", "198.51.100.1"}, // a spoofed left-most entry is skipped
		{"127.0.0.1:5000", "", "127.0.0.1"},
	} {
		if got := ip(req(c.remote, c.xff)); got != c.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %s, want %s", c.remote, c.xff, got, c.want)
		}
	}
}

func TestParseRates(t *testing.T) {
	r, err := ParseRates([]string{"contact=2000/1s", "feedback=off"})
	if err != nil || r["contact"] != (Rate{2000, time.Second}) || r["feedback"].N != 0 || r["unsubscribe"] != DefaultRates["unsubscribe"] {
		t.Errorf("ParseRates: %v, %v", r, err)
	}
	for _, bad := range []string{"contact", "nosuch=1/1m", "contact=0/1m", "contact=5/soon"} {
		if _, err := ParseRates([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestFullDiskAnswers503AndRecovers fills the database (SQLite's page
// limit gives the same SQLITE_FULL a full disk does; PostgreSQL is made
// read-only for the writer's connection): the post is refused
// with 503 and Retry-After, nothing is half-written, and the next post
// after the condition clears is stored.
func TestFullDiskAnswers503AndRecovers(t *testing.T) {
	a := newTestAPI(t, unlimited())
	msg := map[string]string{"name": "Asha", "email": "asha@example.com", "subject": "Hi", "message": strings.Repeat("x", 4000)}
	expectStatus(t, a.postJSON("/api/contact_us", msg), http.StatusOK)
	a.refuseWrites()
	resp := a.postJSON("/api/contact_us", msg)
	if resp.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	expectJSONError(t, resp, http.StatusServiceUnavailable, "cannot store data")
	if n, m := a.count(`SELECT COUNT(*) FROM contact_messages`), a.count(`SELECT COUNT(*) FROM outbox`); n != 1 || m != 1 {
		t.Fatalf("after the refused post: %d messages, %d outbox rows; want 1 and 1", n, m)
	}
	// The writer reopened the file after the failure, which lifts the
	// per-connection page limit: the store works again.
	expectStatus(t, a.postJSON("/api/contact_us", msg), http.StatusOK)
	if n := a.count(`SELECT COUNT(*) FROM contact_messages`); n != 2 {
		t.Errorf("after recovery: %d messages, want 2", n)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestSecureCookiesBehindATLSProxy: behind nginx holding the TLS, a trusted
// proxy's X-Forwarded-Proto: https gives Secure cookies and HSTS; the same
// header from anyone else changes nothing.
func TestSecureCookiesBehindATLSProxy(t *testing.T) {
	trusted, _ := ParseTrustedProxies([]string{"127.0.0.1"})
	a := newTestAPI(t, func(c *Config) { c.TrustedProxies = trusted })
	untrusted := newTestAPI(t)
	for _, c := range []struct {
		api    *testAPI
		proto  string
		secure bool
	}{
		{a, "https", true},
		{a, "http", false},
		{a, "", false},
		{untrusted, "https", false},
	} {
		req, _ := http.NewRequest(http.MethodGet, c.api.srv.URL+"/api/xsrf-token", nil)
		req.Header.Set("X-Forwarded-Proto", c.proto)
		resp, err := http.DefaultClient.Do(req) // no cookie jar: a new visitor each time
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var xsrf *http.Cookie
		for _, ck := range resp.Cookies() {
			if ck.Name == xsrfCookie {
				xsrf = ck
			}
		}
		if xsrf == nil {
			t.Fatalf("proto %q: no XSRF cookie", c.proto)
		}
		if xsrf.Secure != c.secure {
			t.Errorf("proto %q (trusted proxy %v): Secure = %v", c.proto, c.api == a, xsrf.Secure)
		}
		if hsts := resp.Header.Get("Strict-Transport-Security") != ""; hsts != c.secure {
			t.Errorf("proto %q (trusted proxy %v): HSTS sent = %v", c.proto, c.api == a, hsts)
		}
	}
}
