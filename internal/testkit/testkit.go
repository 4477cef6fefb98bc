// Package testkit holds what the tests of several packages share: a
// handler served on loopback, a GET that takes an answer as it comes, a
// clock a test moves, and a store opened for a test. Only tests import it.
package testkit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"freightsite/internal/store"
)

// Serve serves h on loopback until the test ends and returns its URL.
func Serve(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Get asks url with the header pairs given (name, value, ...) and returns
// the answer as it came: no redirect followed, no gzip undone (it asks
// for identity unless the pairs ask otherwise).
func Get(t testing.TB, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// Clock is a clock the test moves forward: its Now stands in for
// time.Now (a Config's Now).
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock is a clock at the present time.
func NewClock() *Clock { return &Clock{t: time.Now()} }

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock d forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// OpenStore opens the store at path (a SQLite file, or a PostgreSQL URL)
// with the default options, failing the test if it cannot.
func OpenStore(t testing.TB, path string) *store.Store {
	t.Helper()
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
