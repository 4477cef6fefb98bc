package e2e

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"freightsite/internal/testkit"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rawSite is a site the raw checks ask: `freightsite serve` over plain
// HTTP, or nginx over HTTPS under a host name (TestNginx). Its answers
// must carry headers (the page headers of the build it serves).
type rawSite struct {
	addr    string
	host    string      // the Host header: addr when empty
	tls     *tls.Config // nil: plain HTTP
	headers http.Header
	dist    string // the build it serves, for the largest script
}

// servedSite is `freightsite serve` of the harness.
func servedSite(t *testing.T) rawSite {
	return rawSite{addr: strings.TrimPrefix(baseURL, "http://"), headers: buildHeaders(t), dist: filepath.Join(work, "dist")}
}

// rawGet sends one GET with the request target exactly as given (no
// client library cleans or re-encodes it), and header lines if any, and
// returns the answer.
func rawGet(t *testing.T, site rawSite, target string, header ...string) (*http.Response, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", site.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if site.tls != nil {
		c = tls.Client(c, site.tls)
	}
	defer c.Close()
	host := site.host
	if host == "" {
		host = site.addr
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	extra := ""
	for _, h := range header {
		extra += h + "\r\n"
	}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept-Encoding: identity\r\nConnection: close\r\n%s\r\n", target, host, extra)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// hostileSlashPaths end in a slash (the one thing the sites redirect)
// and, once decoded, would lead a browser off the site if their target
// were sent back as it is: backslashes (read as slashes), tabs and line
// breaks (dropped, joining the slashes), doubled slashes, spaces of every
// kind (ASCII, no-break, full-width, em), separators, bidi and other
// format characters, NUL and DEL, bytes that are not UTF-8, and
// full-width solidi.
var hostileSlashPaths = []string{
	"/%5Cevil.example/",
	"/%5C%5Cevil.example/",
	"/%5C/evil.example/",
	"/\\evil.example/",
	"/\\/evil.example/",
	"/%5c%5cevil.example/",
	"/%09/evil.example/",
	"/%0D%0A/evil.example/",
	"/%0A/evil.example/",
	"//evil.example/",
	"///evil.example/",
	"/%2F%2Fevil.example/",
	"/%2Fevil.example/",
	"/%20/evil.example/",
	"/%C2%A0/evil.example/",
	"/%E3%80%80/evil.example/",
	"/%E2%80%83/evil.example/",
	"/%E2%80%A8/evil.example/",
	"/%E2%80%AE/evil.example/",
	"/%E2%80%8B/evil.example/",
	"/%E2%81%A6/evil.example/",
	"/%EF%BB%BF/evil.example/",
	"/%E1%9A%80/evil.example/",
	"/%C2%85/evil.example/",
	"/%00/evil.example/",
	"/%7F/evil.example/",
	"/%FF/evil.example/",
	"/%EF%BC%8F%EF%BC%8Fevil.example/",
	"/%EF%BC%BCevil.example/",
	"/faq%5C/",
	"/faq%09/",
	"/faq%20/",
	"/.%2E/.%2E/faq/",
	"/no-such-page/",
}

// checkRedirects asks the site for every hostile path in every
// language and for real pages with a trailing slash. A hostile path is
// the language's not-found page (nginx refuses some request lines
// outright with a bare 400, before it picks a location); a page with a slash redirects to
// itself without it, with the query kept. Every Location, whatever the
// request, is a percent-encoded path with one leading slash and no
// backslash, control character or space, and every answer carries the
// page headers of the build.
func checkRedirects(t *testing.T, site rawSite, refusedOutright ...string) {
	t.Helper()
	want := site.headers
	headed := func(where string, resp *http.Response) {
		t.Helper()
		for name := range want {
			if got := resp.Header.Get(name); got != want.Get(name) {
				t.Errorf("%s (%d): %s %q, want the build's %q", where, resp.StatusCode, name, got, want.Get(name))
			}
		}
		if loc, ok := resp.Header["Location"]; ok && !onSiteLocation(loc[0]) {
			t.Errorf("%s: Location %q can lead off the site", where, loc[0])
		}
	}
	notFound := map[string]string{"": "Page Not Found", "/hi": "पृष्ठ नहीं मिला", "/ma": "पान सापडले नाही"}
	for prefix, heading := range notFound {
		for _, p := range hostileSlashPaths {
			target := prefix + p
			resp, body := rawGet(t, site, target)
			if resp.StatusCode == http.StatusBadRequest && contains(refusedOutright, p) {
				continue
			}
			headed("GET "+target, resp)
			if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, heading) {
				t.Errorf("GET %s: %d to %q, want the %q not-found page", target, resp.StatusCode, resp.Header.Get("Location"), heading)
			}
		}
		for from, to := range map[string]string{
			"/faq/":                               "/faq",
			"/contact-us//":                       "/contact-us",
			"/about-us/?next=//evil.example":      "/about-us?next=//evil.example",
			"/values/?x=%5C%5Cevil.example&y=%09": "/values?x=%5C%5Cevil.example&y=%09",
		} {
			resp, _ := rawGet(t, site, prefix+from)
			headed("GET "+prefix+from, resp)
			if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != prefix+to {
				t.Errorf("GET %s: %d to %q, want 301 to %q", prefix+from, resp.StatusCode, resp.Header.Get("Location"), prefix+to)
			}
		}
	}
}

// onSiteLocation is the rule of every redirect: a path with one leading
// slash, percent-encoded, no backslash, control character or space.
func onSiteLocation(loc string) bool {
	if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") {
		return false
	}
	for i := 0; i < len(loc); i++ {
		if c := loc[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestServeRedirectsStayOnSite runs the redirect table against the running
// `freightsite serve` (TestNginx runs it against deploy/nginx.conf).
func TestServeRedirectsStayOnSite(t *testing.T) {
	checkRedirects(t, servedSite(t))
}

// checkRanges asks the site for the largest script of its build with
// many ranges: up to 8 are served as asked (206), more get the whole file
// once (200), and a zero-length suffix alone is 416.
func checkRanges(t *testing.T, site rawSite) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(site.dist, "assets", "build", "*.js"))
	var path string
	var size int
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil && int(info.Size()) > size {
			path, size = "/assets/build/"+filepath.Base(p), int(info.Size())
		}
	}
	for _, c := range []struct {
		header string
		status int
		length int // -1: any
	}{
		{"bytes=0-9", http.StatusPartialContent, 10},
		{testkit.ByteRanges(8), http.StatusPartialContent, -1},
		{testkit.ByteRanges(9), http.StatusOK, size},
		{testkit.ByteRanges(400), http.StatusOK, size}, // a longer header nginx refuses whole (8 KB buffers)
		{"bytes=-0", http.StatusRequestedRangeNotSatisfiable, -1},
	} {
		resp, body := rawGet(t, site, path, "Range: "+c.header)
		name := c.header
		if len(name) > 40 {
			name = name[:40] + "..."
		}
		if resp.StatusCode != c.status || (c.length >= 0 && len(body) != c.length) {
			t.Errorf("GET %s, Range %s: %d with %d bytes, want %d with %d", path, name, resp.StatusCode, len(body), c.status, c.length)
		}
	}
}

// TestServeCapsRanges runs the range checks against `freightsite serve`
// (TestNginx runs them against deploy/nginx.conf).
func TestServeCapsRanges(t *testing.T) {
	checkRanges(t, servedSite(t))
}
