package formapi

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"freightsite/internal/store"
	"freightsite/internal/testkit"
)

// withMetrics turns the metrics on; *m is set to them.
func withMetrics(m **Metrics) apiOption {
	return func(c *Config) {
		c.Metrics = NewMetrics(c.Store)
		*m = c.Metrics
	}
}

// countRequests counts the requests a client sends.
type countRequests struct{ n *atomic.Int64 }

func (c countRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMetricsCountWhatHappened scrapes the metrics over HTTP after real
// requests: requests by route template and status, latency, the group
// commit's batches, the outbox, rate-limit refusals, sign-in lockouts and
// captcha step-ups all moved by what was done.
func TestMetricsCountWhatHappened(t *testing.T) {
	var m *Metrics
	oneContact := func(c *Config) {
		c.Rates = maps.Clone(c.Rates)
		c.Rates["contact"] = Rate{N: 1, Per: time.Hour}
	}
	a := newAccountsAPI(t, withTrustedProxy(), oneContact, withMetrics(&m))
	var sent atomic.Int64
	a.client.Transport = countRequests{&sent}
	metrics := httptest.NewServer(m.Handler())
	defer metrics.Close()
	before := testkit.Metrics(t, metrics.URL)
	requests := func(samples map[string]float64) (n float64) {
		for k, v := range samples {
			if strings.HasPrefix(k, "freightsite_http_requests_total{") {
				n += v
			}
		}
		return n
	}

	for range 3 {
		a.get("/countries").Body.Close()
	}
	a.get("/api/news/1").Body.Close()
	a.get("/api/news/999999").Body.Close()
	a.get("/api/no-such-call").Body.Close()
	expectStatus(t, a.postJSON("/api/contact_us", validContact()), http.StatusOK)
	expectStatus(t, a.postJSON("/api/contact_us", validContact()), http.StatusTooManyRequests)
	a.register("ravi@carriers.example", "Cargo#777")
	attackers := []string{"198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"}
	a.attack("ravi@carriers.example", attackers...)
	a.signInFrom("203.0.113.7", "ravi@carriers.example", "Cargo#777", "")              // step-up
	a.signInFrom(attackers[0], "ravi@carriers.example", "Cargo#777", a.solveCaptcha()) // locked
	a.signInFrom(attackers[1], "ravi@carriers.example", "Cargo#777", a.solveCaptcha()) // locked

	// A request is counted when its handler returns, which may be just
	// after the client has the whole answer: scrape until every one is.
	after := testkit.Metrics(t, metrics.URL)
	for deadline := time.Now().Add(10 * time.Second); requests(after)-requests(before) < float64(sent.Load()) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		after = testkit.Metrics(t, metrics.URL)
	}
	if got := requests(after) - requests(before); got != float64(sent.Load()) {
		t.Errorf("%v requests counted, %d sent", got, sent.Load())
	}
	moved := func(series string) float64 { return after[series] - before[series] }
	byRoute := func(prefix string) (n float64) {
		for k, v := range after {
			if strings.HasPrefix(k, prefix) {
				n += v - before[k]
			}
		}
		return n
	}
	for _, c := range []struct {
		what string
		got  float64
		want float64
	}{
		{"GET /countries answered 200", moved(`freightsite_http_requests_total{method="GET",route="/countries",status="200"}`), 3},
		{"GET /countries timed", moved(`freightsite_http_request_duration_seconds_count{route="/countries"}`), 3},
		{"GET /api/news/{id}, both ids under the template", byRoute(`freightsite_http_requests_total{method="GET",route="/api/news/{id}"`), 2},
		{"GET of no route", moved(`freightsite_http_requests_total{method="GET",route="other",status="404"}`), 1},
		{"contact posts acknowledged", moved(`freightsite_http_requests_total{method="POST",route="/api/contact_us",status="200"}`), 1},
		{"contact posts refused", moved(`freightsite_http_requests_total{method="POST",route="/api/contact_us",status="429"}`), 1},
		{"contact rate-limit refusals", moved(`freightsite_rate_limited_total{limit="contact"}`), 1},
		{"outbox sent", after[`freightsite_outbox_messages{state="sent"}`], 0},
		{"sign-ins refused by a lockout", moved(`freightsite_signin_locked_total`), 2},
		{"sign-ins stepped up to a captcha", moved(`freightsite_signin_captcha_stepups_total`), 1},
		{"write queue depth, idle", after[`freightsite_store_write_queue_depth`], 0},
	} {
		if c.got != c.want {
			t.Errorf("%s: moved by %v, want %v", c.what, c.got, c.want)
		}
	}
	if n, sum := moved(`freightsite_store_commit_batch_size_count`), moved(`freightsite_store_commit_batch_size_sum`); n < 2 || sum < n {
		t.Errorf("commit batches: %v batches of %v writes; want the contact post's and the registration's at least", n, sum)
	}
	if n := moved(`freightsite_outbox_messages{state="pending"}`); n < 1 {
		t.Errorf("outbox pending moved by %v; the contact post queued a notification", n)
	}
	if _, ok := after[`go_goroutines`]; !ok {
		t.Error("no Go runtime metrics")
	}
}

// TestMetricsMethodsAreBounded: a client's made-up methods are counted
// under method="other", not as a series each (which a client could
// grow without end).
func TestMetricsMethodsAreBounded(t *testing.T) {
	var m *Metrics
	a := newTestAPI(t, withMetrics(&m))
	metrics := httptest.NewServer(m.Handler())
	defer metrics.Close()
	for i := range 3 {
		a.do("BREW"+strconv.Itoa(i), "/api/news", "", nil, nil).Body.Close()
	}
	a.do(http.MethodDelete, "/api/news", "", nil, nil).Body.Close()
	var other, del float64
	for deadline := time.Now().Add(10 * time.Second); other+del < 4 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		other, del = 0, 0
		for k, v := range testkit.Metrics(t, metrics.URL) {
			if strings.Contains(k, "BREW") {
				t.Fatalf("a made-up method has a series of its own: %s", k)
			}
			if strings.HasPrefix(k, `freightsite_http_requests_total{method="other"`) {
				other += v
			}
			if strings.HasPrefix(k, `freightsite_http_requests_total{method="DELETE"`) {
				del += v
			}
		}
	}
	if other != 3 || del != 1 {
		t.Errorf("counted %v requests of made-up methods as \"other\" (want 3) and %v DELETE (want 1)", other, del)
	}
}

// withStaticSite serves a folder of files as the site beside the API (a
// page without an extension, as the build writes them, and a file).
func withStaticSite(t *testing.T) apiOption {
	dir := t.TempDir()
	for _, name := range []string{"faq", "hi/faq", "favicon.svg"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("<!doctype html>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return func(c *Config) { c.Site = http.FileServer(http.Dir(dir)) }
}

// TestMetricsAreThereFromTheStart: the first scrape, before any request,
// has every series a dashboard draws at 0 (each route with its methods
// and statuses 200, 500 and 503, pages and assets, each rate limit, each
// kind of database error); then the site's answers are counted under
// route="page" or route="asset", never under their paths.
func TestMetricsAreThereFromTheStart(t *testing.T) {
	var m *Metrics
	a := newTestAPI(t, withStaticSite(t), withMetrics(&m))
	metrics := httptest.NewServer(m.Handler())
	defer metrics.Close()
	first := testkit.Metrics(t, metrics.URL)
	var want []string
	for name := range DefaultRates {
		want = append(want, `freightsite_rate_limited_total{limit="`+name+`"}`)
	}
	for _, kind := range store.ErrorKinds {
		want = append(want, `freightsite_database_errors_total{kind="`+kind+`"}`)
	}
	for _, status := range []string{"200", "500", "503"} {
		want = append(want, `freightsite_http_requests_total{method="POST",route="/api/contact_us",status="`+status+`"}`,
			`freightsite_http_requests_total{method="GET",route="/api/news/{id}",status="`+status+`"}`,
			`freightsite_http_requests_total{method="GET",route="page",status="`+status+`"}`,
			`freightsite_http_requests_total{method="HEAD",route="asset",status="`+status+`"}`)
	}
	want = append(want, `freightsite_http_request_duration_seconds_count{route="/auth"}`, `freightsite_http_request_duration_seconds_count{route="page"}`,
		`freightsite_signin_locked_total`, `freightsite_signin_captcha_stepups_total`)
	for _, series := range want {
		if v, ok := first[series]; !ok || v != 0 {
			t.Errorf("first scrape: %s is %v (there: %v), want 0", series, v, ok)
		}
	}

	for _, path := range []string{"/faq", "/hi/faq", "/no-such-page", "/favicon.svg", "/assets/gone.js"} {
		a.get(path).Body.Close()
	}
	page := func(route, status string) string {
		return `freightsite_http_requests_total{method="GET",route="` + route + `",status="` + status + `"}`
	}
	moved := map[string]float64{page("page", "200"): 2, page("page", "404"): 1, page("asset", "200"): 1, page("asset", "404"): 1}
	var after map[string]float64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		after = testkit.Metrics(t, metrics.URL)
		if after[page("asset", "404")] == 1 || time.Now().After(deadline) {
			break
		}
	}
	for series, n := range moved {
		if got := after[series] - first[series]; got != n {
			t.Errorf("%s moved by %v, want %v", series, got, n)
		}
	}
	for series := range after {
		if strings.Contains(series, "faq") || strings.Contains(series, "favicon") || strings.Contains(series, "gone") {
			t.Errorf("a path has a series of its own: %s", series)
		}
	}
}

// TestMetricsCountDatabaseErrorsByKind: a write the database refuses
// for want of room (SQLite's page limit, as a full disk; PostgreSQL
// read-only, as a standby or a full disk) is counted under
// kind="storage", and nothing else moves.
func TestMetricsCountDatabaseErrorsByKind(t *testing.T) {
	var m *Metrics
	a := newTestAPI(t, unlimited(), withMetrics(&m))
	metrics := httptest.NewServer(m.Handler())
	defer metrics.Close()
	expectStatus(t, a.postJSON("/api/contact_us", validContact()), http.StatusOK)
	before := testkit.Metrics(t, metrics.URL)
	a.refuseWrites()
	msg := validContact()
	msg["message"] = strings.Repeat("x", 4000)
	expectStatus(t, a.postJSON("/api/contact_us", msg), http.StatusServiceUnavailable)
	after := testkit.Metrics(t, metrics.URL)
	for _, kind := range store.ErrorKinds {
		series := `freightsite_database_errors_total{kind="` + kind + `"}`
		if got, want := after[series]-before[series], map[bool]float64{true: 1}[kind == "storage"]; got != want {
			t.Errorf("%s moved by %v, want %v", series, got, want)
		}
	}
}
