package formapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// syncLog is a log the server writes to from many requests.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestQueryAndFormTextIsCheckedBeforeTheStore: bytes that are not UTF-8
// and control characters (NUL above all, which PostgreSQL refuses with an
// error) in a query parameter, in its name, or in a form-encoded field
// are refused with 400 naming the parameter or field, before any
// database call, on SQLite and PostgreSQL alike; nothing answers 500.
func TestQueryAndFormTextIsCheckedBeforeTheStore(t *testing.T) {
	var logs syncLog
	a := newAccountsAPI(t, func(cfg *Config) { cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	for _, c := range []struct{ path, want string }{
		{"/api/news?search=%ff", `query parameter "search" is not valid UTF-8`},
		{"/api/news?search=Pune%00", `query parameter "search" contains a control character (U+0000)`},
		{"/api/news?search=%c3", `query parameter "search" is not valid UTF-8`},
		{"/api/news?search=%ed%a0%80", `query parameter "search" is not valid UTF-8`},
		{"/api/news?search=a%1bb", `query parameter "search" contains a control character (U+001B)`},
		{"/api/news?lang=%ff", `query parameter "lang" is not valid UTF-8`},
		{"/api/news?s%ffarch=x", `query parameter name "s\xffarch" is not valid UTF-8`},
		{"/api/news/1?lang=hi%00", `query parameter "lang" contains a control character`},
		{"/states?country_id=IN&lang=%ff", `query parameter "lang" is not valid UTF-8`},
		{"/api/logo?domain=acme%00", `query parameter "domain" contains a control character`},
		{"/api/publicTruckingAuctionForm/fetchData?mcNumber=12345%00", `query parameter "mcNumber" contains a control character`},
		{"/api/publicTruckingAuctionForm/confirm?token=%ff", `query parameter "token" is not valid UTF-8`},
	} {
		expectJSONError(t, a.get(c.path), http.StatusBadRequest, c.want)
	}
	expectStatus(t, a.get("/api/news?search=%E0%A4%AA%E0%A5%81%E0%A4%A3%E0%A5%87"), http.StatusOK)

	signIn := func(body string) *http.Response {
		return a.do(http.MethodPost, "/auth", "application/x-www-form-urlencoded", strings.NewReader(body),
			http.Header{xsrfHeader: {a.token()}, ajaxHeader: {ajaxMarker}})
	}
	for body, want := range map[string]string{
		"username=a%00b@x.in&password=Guess%231":              `field "username" contains a control character (U+0000)`,
		"username=a%ffb@x.in&password=Guess%231":              `field "username" is not valid UTF-8`,
		"username=ravi@x.in&password=Gue%00ss":                `field "password" contains a control character (U+0000)`,
		"username=ravi@x.in&password=%ff":                     `field "password" is not valid UTF-8`,
		"username=ravi@x.in&password=x&recaptchaResponse=%00": `field "recaptchaResponse" contains a control character`,
	} {
		expectJSONError(t, signIn(body), http.StatusBadRequest, want)
	}
	for _, body := range []string{`{"username":"a\u0000b@x.in","password":"Guess#1"}`, `{"username":"a@x.in","password":"Gue\u0000ss"}`} {
		expectJSONError(t, a.post("/token/generate-token", "application/json", []byte(body)), http.StatusBadRequest, "contains a control character (U+0000)")
	}
	if n := a.count(`SELECT COUNT(*) FROM sign_in_failures`); n != 0 {
		t.Errorf("refused sign-ins counted %d failures", n)
	}
	if log := logs.String(); strings.Contains(log, "status=500") || strings.Contains(log, "level=ERROR") {
		t.Errorf("a refusal was logged as a server error:\n%s", log)
	}
}

// TestServerErrorsAreLoggedAsErrors: the request line of a 5xx answer is
// an ERROR, any other an INFO.
func TestServerErrorsAreLoggedAsErrors(t *testing.T) {
	for status, level := range map[int]string{200: "INFO", 400: "INFO", 429: "INFO", 500: "ERROR", 503: "ERROR"} {
		var log strings.Builder
		handler := logRequests(slog.New(slog.NewTextHandler(&log, nil)), nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
		}))
		handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/news", nil))
		if !strings.Contains(log.String(), "level="+level+" msg=request") {
			t.Errorf("status %d logged as %q, want level %s", status, log.String(), level)
		}
	}
}
