package generator

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func siteServer(t *testing.T) *httptest.Server {
	t.Helper()
	h, err := Site(testDist, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// httptestServer serves h on loopback until the test ends; it returns the URL.
func httptestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func get(t *testing.T, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept-Encoding", "identity")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// A bare transport: no redirects followed, no transparent gzip.
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func TestServeExactRoutes(t *testing.T) {
	srv := siteServer(t)
	cases := []struct {
		path   string
		status int
		lang   string
		has    string
	}{
		{"/", 200, "en", "<h1"},
		{"/home", 200, "en", "<h1"},
		{"/faq", 200, "en", "Frequently asked questions"},
		{"/hi", 200, "hi", "<h1"},
		{"/hi/faq", 200, "hi", "अक्सर पूछे जाने वाले प्रश्न"},
		{"/ma/values", 200, "mr", "<h1"},
		{"/member-details-sharma-roadlines", 200, "en", "Sharma Roadlines"},
		{"/news-feed/news/17", 404, "en", "Page Not Found"}, // the build has no news (news_test.go)
		{"/ma/news-feed/news/abc", 404, "mr", "पान सापडले नाही"},
		{"/faqs", 404, "en", "Page Not Found"},
		{"/FAQ", 404, "en", "Page Not Found"},
		{"/faq/extra", 404, "en", "Page Not Found"},
		{"/hi/nope", 404, "hi", "पृष्ठ नहीं मिला"},
		{"/ma/nope/deeper", 404, "mr", "पान सापडले नाही"},
		{"/news-feed/news", 404, "en", "Page Not Found"}, // the list is /news-feed
		{"/news-feed/news/1/2", 404, "en", "Page Not Found"},
		{"/404.html", 404, "en", "Page Not Found"},
		{"/routes.json", 404, "en", "Page Not Found"},
		{"/_headers", 404, "en", "Page Not Found"},
		{"/faq/index.html", 404, "en", "Page Not Found"},
		{"/.freightsite-build", 404, "en", "Page Not Found"},
		{"/hindi", 404, "en", "Page Not Found"},
	}
	for _, c := range cases {
		resp, body := get(t, srv.URL+c.path)
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.path, resp.StatusCode, c.status)
		}
		if !strings.Contains(body, `<html lang="`+c.lang+`"`) || !strings.Contains(body, c.has) {
			t.Errorf("%s: want lang %s page with %q", c.path, c.lang, c.has)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("%s: Content-Type %q", c.path, ct)
		}
	}
}

func TestServeRedirectsTrailingSlash(t *testing.T) {
	srv := siteServer(t)
	for from, to := range map[string]string{"/faq/": "/faq", "/hi/": "/hi", "/ma/faq//": "/ma/faq", "/about-us/?x=1": "/about-us?x=1"} {
		resp, _ := get(t, srv.URL+from)
		if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != to {
			t.Errorf("%s: %d to %q, want 301 to %q", from, resp.StatusCode, resp.Header.Get("Location"), to)
		}
	}
}

func TestServeCaching(t *testing.T) {
	srv := siteServer(t)
	html := readDist(t, "404.html")
	i := strings.Index(html, `src="/assets/build/`)
	asset := html[i+5 : i+5+strings.Index(html[i+5:], `"`)]
	resp, _ := get(t, srv.URL+asset)
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("%s: %d, Cache-Control %q", asset, resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("%s: Content-Type %q", asset, ct)
	}
	for _, p := range []string{"/faq", "/assets/i18n/hi.json"} {
		resp, _ := get(t, srv.URL+p)
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: %d, Cache-Control %q, want no-cache", p, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
	}
	resp, _ = get(t, srv.URL+"/assets/build/missing-ABCDEF.js")
	if resp.StatusCode != 404 || strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("missing asset: %d, Cache-Control %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	// Conditional requests are answered 304.
	resp, _ = get(t, srv.URL+asset)
	resp2, _ := get(t, srv.URL+asset, "If-Modified-Since", resp.Header.Get("Last-Modified"))
	if resp2.StatusCode != http.StatusNotModified {
		t.Errorf("conditional GET: %d, want 304", resp2.StatusCode)
	}
}

func TestServePrecompressed(t *testing.T) {
	srv := siteServer(t)
	resp, body := get(t, srv.URL+"/faq", "Accept-Encoding", "gzip, deflate, br")
	if resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("Content-Encoding %q, Vary %q", resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
	}
	zr, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	if string(plain) != readDist(t, "faq/index.html") {
		t.Error("gzip body differs from the page")
	}
	for _, ae := range []string{"identity", "gzip;q=0", ""} {
		resp, body = get(t, srv.URL+"/faq", "Accept-Encoding", ae)
		if resp.Header.Get("Content-Encoding") != "" || !strings.HasPrefix(body, "<!doctype html>") {
			t.Errorf("Accept-Encoding %q: got Content-Encoding %q", ae, resp.Header.Get("Content-Encoding"))
		}
	}
	resp, body = get(t, srv.URL+"/nope", "Accept-Encoding", "gzip")
	if resp.StatusCode != 404 || resp.Header.Get("Content-Encoding") != "gzip" || len(body) == 0 {
		t.Errorf("404 with gzip: %d %q %d bytes", resp.StatusCode, resp.Header.Get("Content-Encoding"), len(body))
	}
}

func TestServeSecurityHeaders(t *testing.T) {
	srv := siteServer(t)
	for _, p := range []string{"/", "/hi/faq", "/nope", "/robots.txt", "/assets/i18n/en.json"} {
		resp, _ := get(t, srv.URL+p)
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "'sha256-") {
			t.Errorf("%s: CSP %q", p, csp)
		}
		for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "strict-origin-when-cross-origin", "X-Frame-Options": "DENY"} {
			if resp.Header.Get(k) != v {
				t.Errorf("%s: %s = %q, want %q", p, k, resp.Header.Get(k), v)
			}
		}
	}
}

func TestServeMethods(t *testing.T) {
	srv := siteServer(t)
	req, _ := http.NewRequest(http.MethodHead, srv.URL+"/faq", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("HEAD /faq: %v %v", resp, err)
	}
	resp, err = http.Post(srv.URL+"/faq", "text/plain", strings.NewReader("x"))
	if err != nil || resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /faq: %v %v", resp, err)
	}
}

func TestSiteNeedsABuild(t *testing.T) {
	_, err := Site(t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), "freightsite build") {
		t.Errorf("err = %v", err)
	}
}
