// Package testkit holds what the tests of several packages share: a
// handler served on loopback, a GET that takes an answer as it comes, a
// clock a test moves, and a store opened for a test. Only tests import it.
package testkit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
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

// SmallDisk mounts a 4 MB tmpfs, a disk that can really fill up, and
// returns its path; it is unmounted when the test ends. Where mounting is
// impossible (not root, no CAP_SYS_ADMIN) the test is skipped, unless CI
// is set: CI runs the tests as root and must run this one.
func SmallDisk(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=4m"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("mounting a tmpfs for a full-disk test: %v (CI must run it: as root, or with CAP_SYS_ADMIN)", err)
		}
		t.Skipf("cannot mount a tmpfs here (%v); the full-disk tests run as root, and always in CI", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}

// FillDisk writes a file in dir until its disk is full and returns the
// file's path (removing it frees the disk again).
func FillDisk(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			return path
		}
	}
}

// ReadFile is the file at name (a slash path) under dir, as a string.
func ReadFile(t testing.TB, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Metrics reads a Prometheus metrics address: each sample's value by its
// name and labels as the text format writes them.
func Metrics(t testing.TB, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	samples := map[string]float64{}
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		line := lines.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		samples[line[:i]] = v
	}
	return samples
}

// ByteRanges is a Range header asking for n one-byte ranges, two bytes
// apart: "bytes=0-0,2-2,...".
func ByteRanges(n int) string {
	specs := make([]string, n)
	for i := range n {
		specs[i] = fmt.Sprintf("%d-%d", 2*i, 2*i)
	}
	return "bytes=" + strings.Join(specs, ",")
}
