package formapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"freightsite/data"
	"freightsite/internal/store"
)

// The API tests run the real handler over real HTTP on loopback against a
// real SQLite file in a temporary folder.

type testAPI struct {
	t      testing.TB
	srv    *httptest.Server
	store  *store.Store
	client *http.Client
	db     string
}

type apiOption func(*Config)

func withRates(rates map[string]Rate) apiOption { return func(c *Config) { c.Rates = rates } }

// unlimited turns every rate limit off, for tests that post a lot.
func unlimited() apiOption {
	rates := map[string]Rate{}
	for k := range DefaultRates {
		rates[k] = Rate{}
	}
	return withRates(rates)
}

func newTestAPI(t testing.TB, opts ...apiOption) *testAPI {
	t.Helper()
	return newTestAPIOn(t, testDB(t, "api.db"), opts...)
}

// newTestAPIOn is newTestAPI on the database db, which another test API
// may be using too (as two instances of the server share one).
func newTestAPIOn(t testing.TB, db string, opts ...apiOption) *testAPI {
	t.Helper()
	return newTestAPIAt(t, db, "", opts...)
}

// newTestAPIAt is newTestAPIOn listening on addr (host:port; "" for a
// loopback port of httptest's choosing).
func newTestAPIAt(t testing.TB, db, addr string, opts ...apiOption) *testAPI {
	t.Helper()
	cfg := Config{Provider: data.Provider{Name: "Test Provider", Email: "provider@example.com"}}
	withSite(&cfg)
	// The store logs where the server does, on the server's clock: both
	// are known once the options have run, and an option may need the
	// store (withMetrics).
	st, err := store.Open(db, store.Options{Log: slog.New(serverLog{&cfg}), Now: func() time.Time {
		if cfg.Now != nil {
			return cfg.Now()
		}
		return time.Now()
	}})
	if err != nil {
		t.Fatal(err)
	}
	secret, err := st.Secret(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store, cfg.Secret = st, secret
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.Accounts.BaseURL == "" {
		cfg.Accounts.BaseURL = data.Site().BaseURL
	}
	srv := httptest.NewUnstartedServer(NewServer(cfg))
	if addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			st.Close()
			t.Fatal(err)
		}
		srv.Listener.Close()
		srv.Listener = ln
	}
	srv.Start()
	jar, _ := cookiejar.New(nil)
	a := &testAPI{t: t, srv: srv, store: st, client: &http.Client{Jar: jar, Timeout: 30 * time.Second}, db: db}
	t.Cleanup(func() {
		srv.Close()
		st.Close()
	})
	return a
}

// serverLog is the handler of the Config's Logger, whenever it is set
// (none while it is not).
type serverLog struct{ cfg *Config }

func (l serverLog) handler() slog.Handler {
	if l.cfg.Logger == nil {
		return slog.DiscardHandler
	}
	return l.cfg.Logger.Handler()
}

func (l serverLog) Enabled(ctx context.Context, level slog.Level) bool {
	return l.handler().Enabled(ctx, level)
}
func (l serverLog) Handle(ctx context.Context, r slog.Record) error {
	return l.handler().Handle(ctx, r)
}
func (l serverLog) WithAttrs(attrs []slog.Attr) slog.Handler { return l.handler().WithAttrs(attrs) }
func (l serverLog) WithGroup(name string) slog.Handler       { return l.handler().WithGroup(name) }

// withSite gives a test's Config the site's name and languages, as
// internal/server does from data/site.json.
func withSite(cfg *Config) {
	site := data.Site()
	cfg.SiteName, cfg.Languages = site.Name, site.Languages
}

// Tests check what was stored, and set up rows, as the store keeps them.

// sha256Hex is how the store keeps a secret token.
func sha256Hex(s string) string { return store.TokenHash(s) }

// timestamp is how the store keeps a time.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// token gets an XSRF cookie from GET /api/xsrf-token, as the site's pages do, and
// returns its value.
func (a *testAPI) token() string {
	a.t.Helper()
	u, _ := url.Parse(a.srv.URL)
	for _, c := range a.client.Jar.Cookies(u) {
		if c.Name == xsrfCookie {
			return c.Value
		}
	}
	resp := a.do(http.MethodGet, "/api/xsrf-token", "", nil, nil)
	resp.Body.Close()
	for _, c := range a.client.Jar.Cookies(u) {
		if c.Name == xsrfCookie {
			return c.Value
		}
	}
	a.t.Fatal("GET /api/xsrf-token set no XSRF-TOKEN cookie")
	return ""
}

// do sends a request as is (no token added).
func (a *testAPI) do(method, path, contentType string, body io.Reader, header http.Header) *http.Response {
	a.t.Helper()
	req, err := http.NewRequest(method, a.srv.URL+path, body)
	if err != nil {
		a.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := a.client.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	return resp
}

// post sends a body with the XSRF header, as pages/lib/api.ts does.
func (a *testAPI) post(path, contentType string, body []byte) *http.Response {
	a.t.Helper()
	return a.do(http.MethodPost, path, contentType, bytes.NewReader(body), http.Header{xsrfHeader: {a.token()}})
}

func (a *testAPI) postJSON(path string, v any) *http.Response {
	a.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		a.t.Fatal(err)
	}
	return a.post(path, "application/json", b)
}

func (a *testAPI) get(path string) *http.Response {
	a.t.Helper()
	return a.do(http.MethodGet, path, "", nil, nil)
}

// count returns a number from the database.
func (a *testAPI) count(query string, args ...any) int {
	a.t.Helper()
	var n int
	if err := a.store.TestQueryRow(query, args...).Scan(&n); err != nil {
		a.t.Fatal(err)
	}
	return n
}

// exec changes the database directly (test set-up).
func (a *testAPI) exec(query string, args ...any) {
	a.t.Helper()
	if err := a.store.TestExec(context.Background(), query, args...); err != nil {
		a.t.Fatal(err)
	}
}

// refuseWrites makes the database refuse every further write, as a full
// disk does: PostgreSQL read-only for the writer's session (as on a full
// disk or a standby), SQLite capped at the pages it has.
func (a *testAPI) refuseWrites() {
	a.t.Helper()
	if a.store.Postgres() {
		a.exec(`SET default_transaction_read_only = on`)
		return
	}
	var pages int
	a.store.TestQueryRow(`PRAGMA page_count`).Scan(&pages)
	a.exec(`PRAGMA max_page_count = ` + itoa(pages))
}

// decode reads a JSON body and closes it.
func decode[T any](t *testing.T, resp *http.Response) T {
	t.Helper()
	defer resp.Body.Close()
	var v T
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decoding %s: %v\n%s", resp.Request.URL.Path, err, raw)
	}
	return v
}

func bodyText(resp *http.Response) string {
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func expectStatus(t *testing.T, resp *http.Response, want int) {
	t.Helper()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d: %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, want, bodyText(resp))
	}
}

// expectJSONError checks an error answer: status, JSON content type, an
// English error mentioning want, and no internals.
func expectJSONError(t *testing.T, resp *http.Response, status int, want string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d: %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, status, bodyText(resp))
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error answer has Content-Type %q", ct)
	}
	body := decode[errorBody](t, resp)
	if !strings.Contains(body.Error, want) {
		t.Errorf("error %q does not mention %q", body.Error, want)
	}
	for _, leak := range []string{"sqlite", "goroutine", ".go:", "SQL"} {
		if strings.Contains(body.Error, leak) {
			t.Errorf("error %q leaks internals (%s)", body.Error, leak)
		}
	}
}

func urlQuery(s string) string { return url.QueryEscape(s) }
