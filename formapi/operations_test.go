package formapi

import (
	"context"
	"encoding/json"
	"freightsite/data"
	"freightsite/internal/mail"
	"freightsite/internal/store"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"
)

// testLog is a log file the server writes to; a test reads it whole.
type testLog struct{ f *os.File }

func newTestLog(t *testing.T) *testLog {
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &testLog{f}
}

func (l *testLog) option() apiOption {
	return func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(l.f, nil)) }
}

func (l *testLog) String() string {
	b, _ := os.ReadFile(l.f.Name())
	return string(b)
}

// has waits up to 5 s for the log to contain s: a request's line is
// written when its handler returns, which a client that has read the
// answer can overtake.
func (l *testLog) has(s string) bool {
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if strings.Contains(l.String(), s) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// TestRequestLinesNameTheClientAndAnID: each request line carries the
// client's address (the forwarded one only from a trusted proxy) and a
// request id, which the answer carries too; a trusted proxy's id is kept.
func TestRequestLinesNameTheClientAndAnID(t *testing.T) {
	log := newTestLog(t)
	a := newTestAPI(t, log.option(), func(c *Config) { c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")} })
	get := func(header ...string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, a.srv.URL+"/countries", nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	first, second := get(), get()
	id1, id2 := first.Header.Get("X-Request-Id"), second.Header.Get("X-Request-Id")
	if id1 == "" || id1 == id2 {
		t.Errorf("request ids %q and %q, want two different ones", id1, id2)
	}
	if !log.has("client=127.0.0.1 id=" + id1) {
		t.Errorf("the log does not name the client and id %s:\n%s", id1, log.String())
	}
	proxied := get("X-Forwarded-For", "203.0.113.9", "X-Request-Id", "0123456789abcdef0123456789abcdef")
	if got := proxied.Header.Get("X-Request-Id"); got != "0123456789abcdef0123456789abcdef" {
		t.Errorf("the proxy's request id became %q", got)
	}
	if !log.has("client=203.0.113.9 id=0123456789abcdef0123456789abcdef") {
		t.Errorf("the log does not name the forwarded client and the proxy's id:\n%s", log.String())
	}
	if bad := get("X-Request-Id", "two words"); strings.Contains(bad.Header.Get("X-Request-Id"), " ") {
		t.Errorf("a request id with spaces was kept: %q", bad.Header.Get("X-Request-Id"))
	}
}

// TestProbesSetNoCookieAndLogNoLine: load balancers poll /healthz and
// /readyz every few seconds; they get no cookie and write no log line,
// and /healthz names the version.
func TestProbesSetNoCookieAndLogNoLine(t *testing.T) {
	log := newTestLog(t)
	a := newTestAPI(t, log.option(), func(c *Config) { c.Version = "v1.2.3 (abc123)" })
	for _, p := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(a.srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || len(resp.Cookies()) > 0 {
			t.Errorf("%s: %d with cookies %v, want 200 and none", p, resp.StatusCode, resp.Cookies())
		}
		if p == "/healthz" && !strings.Contains(string(body), `"version":"v1.2.3 (abc123)"`) {
			t.Errorf("/healthz: %s, want the version", body)
		}
	}
	if strings.Contains(log.String(), "healthz") || strings.Contains(log.String(), "readyz") {
		t.Errorf("probes wrote log lines:\n%s", log.String())
	}
}

// TestReadiness: ready while the database takes writes and the outbox
// moves; not ready when a message has waited far past its time (the
// sender stopped).
func TestReadiness(t *testing.T) {
	a := newTestAPI(t)
	ready := func() (int, readiness) {
		resp := a.get("/readyz")
		defer resp.Body.Close()
		var r readiness
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, r
	}
	queue := func(due time.Time) {
		err := a.store.Write(context.Background(), func(tx *store.Tx) error {
			return mail.Queue(tx, mail.Outgoing{Kind: mail.Notification, To: "p@example.com", Subject: "s", Body: "b"}, due)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	queue(time.Now())
	if status, r := ready(); status != http.StatusOK || r.Status != "ready" || r.Outbox.Pending != 1 || r.Outbox.Overdue != 0 {
		t.Errorf("with a message just queued: %d %+v, want ready", status, r)
	}
	queue(time.Now().Add(-outboxStuckAfter - time.Minute))
	if status, r := ready(); status != http.StatusServiceUnavailable || r.Outbox.Overdue != 1 || !strings.Contains(r.Error, "mail sender") {
		t.Errorf("with a message overdue: %d %+v, want not ready naming the sender", status, r)
	}
	// A full disk (not writable) is e2e/disk_test.go's.
}

// TestPathsCoverEveryRoute keeps Paths (what nginx and _redirects send to
// the API) in step with the router.
func TestPathsCoverEveryRoute(t *testing.T) {
	cfg := Config{Store: newTestAPI(t).store, Secret: []byte("0123456789abcdef0123456789abcdef"), Accounts: AccountOptions{BaseURL: data.Site().BaseURL}}
	withSite(&cfg)
	_, router := newServer(cfg)
	used := map[string]bool{}
	router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, _ := route.GetPathTemplate()
		covered := false
		for _, p := range Paths {
			if tpl == p || (strings.HasSuffix(p, "/") && strings.HasPrefix(tpl, p)) {
				covered, used[p] = true, true
			}
		}
		if !covered {
			t.Errorf("route %s is not in formapi.Paths", tpl)
		}
		return nil
	})
	for _, p := range Paths {
		if !used[p] {
			t.Errorf("formapi.Paths lists %s, which no route answers", p)
		}
	}
}
