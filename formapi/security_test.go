package formapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"freightsite/data"
	"freightsite/internal/store"
)

// routeUnderTest is one path and method of the router NewServer builds.
type routeUnderTest struct {
	path, method string
}

// everyRoute walks the router of a real server and lists each route with
// each method it takes (template variables filled with "1"), plus paths
// the router does not own, which go to the static site.
func everyRoute(t *testing.T) (*httptest.Server, []routeUnderTest) {
	t.Helper()
	st, err := store.Open(testDB(t, "routes.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	secret, err := st.Secret(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "the static site") })
	cfg := Config{Store: st, Secret: secret, Site: site, Provider: data.Provider{Name: "P", Email: "p@example.com"}, Accounts: AccountOptions{BaseURL: data.Site().BaseURL}}
	withSite(&cfg)
	handler, router := newServer(cfg)
	srv := httptest.NewServer(handler)
	t.Cleanup(func() {
		srv.Close()
		st.Close()
	})
	routes := walkRoutes(t, router)
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		routes = append(routes, routeUnderTest{"/faq", m})
	}
	return srv, routes
}

// walkRoutes lists each route of router with each method it takes.
func walkRoutes(t *testing.T, router *mux.Router) []routeUnderTest {
	t.Helper()
	vars := regexp.MustCompile(`\{[^}]+\}`)
	var routes []routeUnderTest
	err := router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, err := route.GetPathTemplate()
		if err != nil {
			return err
		}
		methods, err := route.GetMethods()
		if err != nil {
			// No method matcher: the route takes any method.
			methods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
		}
		for _, m := range methods {
			routes = append(routes, routeUnderTest{vars.ReplaceAllString(tpl, "1"), m})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return routes
}

// issuedToken is the anti-forgery token the server sets with a GET.
func issuedToken(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	resp, err := http.Get(srv.URL + "/api/xsrf-token")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == xsrfCookie {
			return c.Value
		}
	}
	t.Fatal("no XSRF-TOKEN cookie")
	return ""
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// TestEveryWriteNeedsTheAntiForgeryToken: every route of the router that
// takes a method other than GET, HEAD or OPTIONS (found by walking it, so
// a route added later cannot forget) and any path the router leaves to
// the static site answers 403 without a valid anti-forgery token: none at
// all, the cookie without the header, a header that does not match, a
// forged token, or a valid token from another site. With the token the
// same request gets past the check.
func TestEveryWriteNeedsTheAntiForgeryToken(t *testing.T) {
	srv, routes := everyRoute(t)
	token := issuedToken(t, srv)
	forged := xsrfTokens{secret: []byte("another secret, 32 characters or more")}.issue()
	nonce, _, _ := strings.Cut(token, ".")
	cases := []struct {
		name           string
		cookie, header string
		extra          http.Header
	}{
		{"no token", "", "", nil},
		{"cookie without header", token, "", nil},
		{"header without cookie", "", token, nil},
		{"header not matching the cookie", token, nonce + ".AAAA", nil},
		{"token signed with another secret", forged, forged, nil},
		{"valid token, cross-site request", token, token, http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}}},
	}
	send := func(r routeUnderTest, cookie, header string, extra http.Header) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(r.method, srv.URL+r.path, strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: xsrfCookie, Value: cookie})
		}
		if header != "" {
			req.Header.Set(xsrfHeader, header)
		}
		for k, v := range extra {
			req.Header[k] = v
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var writes []string
	for _, r := range routes {
		if safeMethod(r.method) {
			continue
		}
		writes = append(writes, r.method+" "+r.path)
		for _, c := range cases {
			resp := send(r, c.cookie, c.header, c.extra)
			var body errorBody
			json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden || body.Message != msgXSRF {
				t.Errorf("%s %s, %s: %d %+v, want 403 %s", r.method, r.path, c.name, resp.StatusCode, body, msgXSRF)
			}
		}
		resp := send(r, token, token, nil)
		resp.Body.Close()
		if resp.StatusCode == http.StatusForbidden {
			t.Errorf("%s %s with a valid token: 403", r.method, r.path)
		}
	}
	for _, must := range []string{"POST /api/contact_us", "POST /auth", "POST /api/error_feedback", "POST /api/registration", "POST /api/reset_password", "POST /faq"} {
		if !slices.Contains(writes, must) {
			t.Errorf("the walk did not find %s among %v", must, writes)
		}
	}
	t.Logf("%d writing routes checked: %s", len(writes), strings.Join(writes, ", "))
}

// TestSecurityHeadersOnEveryRoute: every answer of every route carries
// the security headers, whatever its status and whichever layer answers:
// the handler, the anti-forgery check (403), the router (404 for an
// unknown call, 405 for a method a route does not take) and the body
// checks (400, 413). The API's answers are marked as data nothing may run,
// frame or cache (unless the route says how long it may be cached).
func TestSecurityHeadersOnEveryRoute(t *testing.T) {
	srv, routes := everyRoute(t)
	token := issuedToken(t, srv)
	type variant struct {
		name         string
		method, path string
		token        bool
		body         string
	}
	var variants []variant
	for _, r := range routes {
		variants = append(variants,
			variant{"valid token", r.method, r.path, true, "{}"},
			variant{"no token", r.method, r.path, false, "{}"},
			variant{"a method the route does not take", http.MethodPatch, r.path, true, "{}"},
			variant{"a body over the limit", r.method, r.path, true, strings.Repeat("x", formBodyLimit+1)})
	}
	for _, p := range []string{"/api/no-such-call", "/api/contact_us/", "/api/news/1/2", "/rest/creditor/alias/"} {
		variants = append(variants, variant{"no such call", http.MethodGet, p, true, ""}, variant{"no such call", http.MethodPost, p, true, "{}"})
	}
	statuses := map[int]bool{}
	for _, v := range variants {
		req, _ := http.NewRequest(v.method, srv.URL+v.path, strings.NewReader(v.body))
		req.Header.Set("Content-Type", "application/json")
		if v.token {
			req.AddCookie(&http.Cookie{Name: xsrfCookie, Value: token})
			req.Header.Set(xsrfHeader, token)
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		statuses[resp.StatusCode] = true
		h := resp.Header
		where := fmt.Sprintf("%s %s, %s", v.method, v.path, v.name)
		for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "strict-origin-when-cross-origin"} {
			if got := h.Get(k); got != want {
				t.Errorf("%s (%d): %s %q, want %q", where, resp.StatusCode, k, got, want)
			}
		}
		if v.path == "/faq" && resp.StatusCode != http.StatusForbidden {
			continue // the static site sends its own headers (generator and e2e tests)
		}
		csp := h.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s (%d): Content-Security-Policy %q", where, resp.StatusCode, csp)
		}
		if got := h.Get("Cross-Origin-Resource-Policy"); got != "same-origin" {
			t.Errorf("%s (%d): Cross-Origin-Resource-Policy %q", where, resp.StatusCode, got)
		}
		if cc := h.Get("Cache-Control"); cc != "no-store" && !(strings.HasPrefix(cc, "public, max-age=") && safeMethod(v.method) && resp.StatusCode == http.StatusOK) {
			t.Errorf("%s (%d): Cache-Control %q", where, resp.StatusCode, cc)
		}
		if resp.Header.Get("Strict-Transport-Security") != "" {
			t.Errorf("%s: HSTS over plain HTTP", where)
		}
	}
	for _, s := range []int{http.StatusOK, http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusRequestEntityTooLarge} {
		if !statuses[s] {
			t.Errorf("no answer had status %d: the variants did not reach that layer", s)
		}
	}
}

// TestPagesGoStraightToTheSite: a GET or HEAD of a path the API does not
// own reaches the static site with the security headers and a request
// id, but no anti-forgery cookie (a page's script asks
// /api/xsrf-token for one, as it must behind nginx); the API's own
// paths, unknown calls under /api/ among them, stay the API's.
func TestPagesGoStraightToTheSite(t *testing.T) {
	srv, _ := everyRoute(t)
	for _, c := range []struct {
		method, path string
		site, cookie bool
	}{
		{http.MethodGet, "/faq", true, false},
		{http.MethodHead, "/hi/faq", true, false},
		{http.MethodGet, "/api", true, false},
		{http.MethodGet, "/countries", false, true},
		{http.MethodGet, "/api/no-such-call", false, true},
		{http.MethodGet, "/rest/creditor/alias/1", false, true},
		{http.MethodGet, "/hi/secure/entry", false, true},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		name := c.method + " " + c.path
		if c.method == http.MethodGet && (string(body) == "the static site") != c.site {
			t.Errorf("%s: answered by the site %v, want %v (%d %.80s)", name, !c.site, c.site, resp.StatusCode, body)
		}
		cookie := false
		for _, k := range resp.Cookies() {
			cookie = cookie || k.Name == xsrfCookie
		}
		if cookie != c.cookie {
			t.Errorf("%s: XSRF-TOKEN cookie set %v, want %v", name, cookie, c.cookie)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("X-Request-Id") == "" {
			t.Errorf("%s: security headers or request id missing: %v", name, resp.Header)
		}
	}
}

// TestValidTokensAreRemembered: a token found valid is remembered (its
// signature is not checked again), a forged one never is, and the memory
// starts again empty when full.
func TestValidTokensAreRemembered(t *testing.T) {
	x := xsrfTokens{[]byte("a secret of 32 characters or more!"), &validTokens{tokens: map[string]bool{}}}
	token := x.issue()
	nonce, _, _ := strings.Cut(token, ".")
	forged := nonce + "." + strings.Repeat("A", 43)
	for range 2 {
		if !x.valid(token) {
			t.Fatal("an issued token is not valid")
		}
		if x.valid(forged) || x.valid(nonce) || x.valid("") {
			t.Fatal("a forged token is valid")
		}
	}
	if len(x.seen.tokens) != 1 || !x.seen.tokens[token] {
		t.Errorf("remembered %v, want only the issued token", x.seen.tokens)
	}
	for range maxValidTokens {
		x.valid(x.issue())
	}
	if n := len(x.seen.tokens); n > maxValidTokens {
		t.Errorf("%d tokens remembered, at most %d", n, maxValidTokens)
	}
	if !x.valid(token) {
		t.Error("a token is no longer valid once forgotten")
	}
}
