package e2e

import (
	"database/sql"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"freightsite/formapi"
	"freightsite/internal/pgtest"
	"freightsite/internal/store"
	"freightsite/internal/testkit"
)

// startupLine waits for the server's "serving" line (the log holds lines
// for up to 200 ms).
func startupLine(t *testing.T, s *server) string {
	t.Helper()
	serving := regexp.MustCompile(`(?m)^.*msg=serving .*$`)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if line := serving.FindString(s.stderr.String()); line != "" || time.Now().After(deadline) {
			return line
		}
	}
}

func databaseErrors(kind string) string {
	return `freightsite_database_errors_total{kind="` + kind + `"}`
}

// postContact posts one contact message and returns the status.
func postContact(t *testing.T, base string) int {
	t.Helper()
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(contactRequest(base, xsrfToken(t, base), "Metrics"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestMetricsOfServeFromTheStart runs `freightsite serve` with
// --metrics-addr as an operator would: its start-up line names the
// database (driver and absolute path); the first scrape, before any
// request, has every rate limit's and every kind of database error's
// counter at 0 and the pages' series; pages and files are counted under
// route="page" and route="asset"; and a write that waits out the lock
// another process holds on the SQLite file is counted as kind="busy".
func TestMetricsOfServeFromTheStart(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "site.db")
	addr, metricsAddr := freeAddr(t), freeAddr(t)
	s := startProcess(t, nil, "serve", "--addr", addr, "--dist", filepath.Join(work, "dist"), "--db", db, "--metrics-addr", metricsAddr)
	base, metrics := "http://"+addr, "http://"+metricsAddr+"/metrics"
	waitHealthy(t, base+"/healthz")
	if line := startupLine(t, s); !strings.Contains(line, "db_driver=sqlite db="+db) {
		t.Errorf("the start-up line does not name the database (db_driver=sqlite db=%s): %s", db, line)
	}

	first := testkit.Metrics(t, metrics)
	want := []string{`freightsite_http_requests_total{method="GET",route="page",status="200"}`, `freightsite_http_requests_total{method="GET",route="asset",status="200"}`}
	for name := range formapi.DefaultRates {
		want = append(want, `freightsite_rate_limited_total{limit="`+name+`"}`)
	}
	for _, kind := range store.ErrorKinds {
		want = append(want, databaseErrors(kind))
	}
	for _, series := range want {
		if v, ok := first[series]; !ok || v != 0 {
			t.Errorf("first scrape: %s is %v (there: %v), want 0", series, v, ok)
		}
	}

	for _, path := range []string{"/", "/faq", "/hi/faq", "/favicon.svg", "/robots.txt"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	pages, assets := `freightsite_http_requests_total{method="GET",route="page",status="200"}`, `freightsite_http_requests_total{method="GET",route="asset",status="200"}`
	var after map[string]float64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if after = testkit.Metrics(t, metrics); after[pages]+after[assets] >= 5 || time.Now().After(deadline) {
			break
		}
	}
	if after[pages] != 3 || after[assets] != 2 {
		t.Errorf("3 pages and 2 files counted as %v pages and %v assets", after[pages], after[assets])
	}
	for series := range after {
		if strings.Contains(series, `route="other"`) && after[series] > 0 || strings.Contains(series, "faq") {
			t.Errorf("a page is counted outside route=\"page\": %s", series)
		}
	}

	// Another process holds SQLite's write lock past the API's wait (5 s).
	lock, err := sql.Open("sqlite3", "file:"+db+"?_txlock=exclusive")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	tx, err := lock.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if status := postContact(t, base); status != http.StatusServiceUnavailable {
		t.Errorf("a contact post while the file is locked: %d, want 503", status)
	}
	tx.Rollback()
	if n := testkit.Metrics(t, metrics)[databaseErrors("busy")]; n < 1 {
		t.Errorf("the locked write is not counted: %s %v", databaseErrors("busy"), n)
	}
	if status := postContact(t, base); status != http.StatusOK {
		t.Errorf("a contact post once the lock is gone: %d, want 200", status)
	}
	s.stop(t)
}

// TestMetricsOfAPIOnPostgreSQL: `freightsite api` on PostgreSQL names
// its database in its start-up line as user@host:port/database, never
// with the password of the URL; while PostgreSQL is down, reads and
// writes fail and are counted as kind="connection".
func TestMetricsOfAPIOnPostgreSQL(t *testing.T) {
	if _, err := pgtest.Bin(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	cluster, err := pgtest.Start(pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Stop()
	db, err := cluster.NewDatabase(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The cluster trusts local connections: the password is never checked,
	// only carried.
	db = strings.Replace(db, "postgres://postgres@", "postgres://postgres:hunter2@", 1)
	addr, metricsAddr := freeAddr(t), freeAddr(t)
	s := startProcess(t, nil, "api", "--addr", addr, "--db", db, "--metrics-addr", metricsAddr)
	base, metrics := "http://"+addr, "http://"+metricsAddr+"/metrics"
	waitHealthy(t, base+"/healthz")
	named := regexp.MustCompile(`db_driver=postgresql db=postgres@127\.0\.0\.1:\d+/test_\d+`)
	if line := startupLine(t, s); !named.MatchString(line) || strings.Contains(s.stderr.String(), "hunter2") {
		t.Errorf("the start-up line does not name the database as postgres@127.0.0.1:PORT/DB, or the log shows its password: %s", line)
	}
	before := testkit.Metrics(t, metrics)
	if status := postContact(t, base); status != http.StatusOK {
		t.Fatalf("a contact post: %d", status)
	}

	cluster.Halt()
	if status := postContact(t, base); status != http.StatusServiceUnavailable {
		t.Errorf("a contact post with PostgreSQL down: %d, want 503", status)
	}
	resp, err := http.Get(base + "/api/news")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	after := testkit.Metrics(t, metrics)
	if n := after[databaseErrors("connection")] - before[databaseErrors("connection")]; n < 1 {
		t.Errorf("PostgreSQL down: %s moved by %v, want 1 or more", databaseErrors("connection"), n)
	}
	for _, kind := range []string{"constraint", "other"} {
		if n := after[databaseErrors(kind)]; n != 0 {
			t.Errorf("PostgreSQL down: %s is %v, want 0", databaseErrors(kind), n)
		}
	}
}
