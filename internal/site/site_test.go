package site_test

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"freightsite/internal/site"
	"freightsite/internal/testkit"
)

func siteServer(t *testing.T) *httptest.Server {
	t.Helper()
	h, err := site.Site(testDist, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
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
		resp, body := testkit.Get(t, srv.URL+c.path)
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

// TestServeRedirectsTrailingSlash: a page's path with a trailing slash
// redirects to the page; any other path with one is not found (e2e's
// redirect table tries hostile encodings against serve and nginx).
func TestServeRedirectsTrailingSlash(t *testing.T) {
	srv := siteServer(t)
	for from, to := range map[string]string{"/faq/": "/faq", "/hi/": "/hi", "/ma/faq//": "/ma/faq", "/about-us/?x=1": "/about-us?x=1", "/faq/?q=%E0%A4%95\\x": "/faq?q=%E0%A4%95%5Cx"} {
		resp, _ := testkit.Get(t, srv.URL+from)
		if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != to {
			t.Errorf("%s: %d to %q, want 301 to %q", from, resp.StatusCode, resp.Header.Get("Location"), to)
		}
	}
	for _, p := range []string{"/faqs/", "/news-feed/news/999/", "/assets/site.css/", "/%5Cevil.example/", "/hi/%E3%80%80/x/"} {
		if resp, body := testkit.Get(t, srv.URL+p); resp.StatusCode != http.StatusNotFound || resp.Header.Get("Location") != "" || !strings.Contains(body, "<h1") {
			t.Errorf("%s: %d to %q, want the not-found page", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

func TestOnSite(t *testing.T) {
	for p, want := range map[string]bool{
		"/faq": true, "/hi/faq": true, "/सदस्य": true, "/a%b": true, "/\uFF0F\uFF0Fevil.example": true,
		"": false, "faq": false, "//evil.example": false, "/\\evil.example": false, "/x\\": false,
		"/\tx": false, "/\r\n": false, "/\x00": false, "/\x7f": false, "/\u0085": false, "/ x": false,
		"/\u00a0": false, "/\u3000": false, "/\u2003": false, "/\u2028": false, "/\u2029": false,
		"/\u202e": false, "/\u2066": false, "/\u200b": false, "/\xff": false,
	} {
		if got := site.OnSite(p); got != want {
			t.Errorf("onSite(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestServeRefusalsCarryHeaders: the site's own refusals (405 for a
// method it does not take) and redirects carry the build's headers, as
// its pages do.
func TestServeRefusalsCarryHeaders(t *testing.T) {
	srv := siteServer(t)
	var want http.Header
	for _, rule := range site.ParseHeaders([]byte(readDist(t, site.HeadersFile))) {
		if rule.Pattern == "/*" {
			want = rule.Header
		}
	}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		req, _ := http.NewRequest(method, srv.URL+"/faq", nil)
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s /faq: %d, Allow %q", method, resp.StatusCode, resp.Header.Get("Allow"))
		}
		for name := range want {
			if resp.Header.Get(name) != want.Get(name) {
				t.Errorf("%s /faq (405): %s %q, want %q", method, name, resp.Header.Get(name), want.Get(name))
			}
		}
	}
	resp, _ := testkit.Get(t, srv.URL+"/assets/build/")
	if resp.StatusCode != http.StatusNotFound || strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("/assets/build/: %d, Cache-Control %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
}

func TestServeCaching(t *testing.T) {
	srv := siteServer(t)
	html := readDist(t, "404.html")
	i := strings.Index(html, `src="/assets/build/`)
	asset := html[i+5 : i+5+strings.Index(html[i+5:], `"`)]
	resp, _ := testkit.Get(t, srv.URL+asset)
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("%s: %d, Cache-Control %q", asset, resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("%s: Content-Type %q", asset, ct)
	}
	for _, p := range []string{"/faq", "/assets/i18n/hi.json"} {
		resp, _ := testkit.Get(t, srv.URL+p)
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: %d, Cache-Control %q, want no-cache", p, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
	}
	resp, _ = testkit.Get(t, srv.URL+"/assets/build/missing-ABCDEF.js")
	if resp.StatusCode != 404 || strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("missing asset: %d, Cache-Control %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	// Conditional requests are answered 304 by entity tag (one for the
	// file, another for its gzip file); no answer carries a date to
	// compare instead (a build writes every file anew).
	for _, p := range []string{asset, "/faq"} {
		plain, _ := testkit.Get(t, srv.URL+p)
		zipped, _ := testkit.Get(t, srv.URL+p, "Accept-Encoding", "gzip")
		tag, zippedTag := plain.Header.Get("Etag"), zipped.Header.Get("Etag")
		if lm := plain.Header.Get("Last-Modified"); lm != "" {
			t.Errorf("%s: Last-Modified %q, want none", p, lm)
		}
		if !strings.HasPrefix(tag, `"`) || !strings.HasPrefix(zippedTag, `"`) || tag == zippedTag {
			t.Errorf("%s: entity tags %q and %q (gzip), want two strong tags", p, tag, zippedTag)
		}
		for _, c := range []struct {
			name, encoding, ifNoneMatch string
			want                        int
		}{
			{"its tag", "identity", tag, http.StatusNotModified},
			{"its gzip file's tag", "gzip", zippedTag, http.StatusNotModified},
			{"one of several tags", "gzip", `"other", ` + zippedTag, http.StatusNotModified},
			{"any tag", "identity", "*", http.StatusNotModified},
			{"the other file's tag", "gzip", tag, http.StatusOK},
			{"another tag", "identity", `"other"`, http.StatusOK},
		} {
			if resp, _ := testkit.Get(t, srv.URL+p, "Accept-Encoding", c.encoding, "If-None-Match", c.ifNoneMatch); resp.StatusCode != c.want {
				t.Errorf("%s with %s: %d, want %d", p, c.name, resp.StatusCode, c.want)
			}
		}
	}
}

func TestServePrecompressed(t *testing.T) {
	srv := siteServer(t)
	resp, body := testkit.Get(t, srv.URL+"/faq", "Accept-Encoding", "gzip, deflate, br")
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
		resp, body = testkit.Get(t, srv.URL+"/faq", "Accept-Encoding", ae)
		if resp.Header.Get("Content-Encoding") != "" || !strings.HasPrefix(body, "<!doctype html>") {
			t.Errorf("Accept-Encoding %q: got Content-Encoding %q", ae, resp.Header.Get("Content-Encoding"))
		}
	}
	resp, body = testkit.Get(t, srv.URL+"/nope", "Accept-Encoding", "gzip")
	if resp.StatusCode != 404 || resp.Header.Get("Content-Encoding") != "gzip" || len(body) == 0 {
		t.Errorf("404 with gzip: %d %q %d bytes", resp.StatusCode, resp.Header.Get("Content-Encoding"), len(body))
	}
}

func TestServeSecurityHeaders(t *testing.T) {
	srv := siteServer(t)
	for _, p := range []string{"/", "/hi/faq", "/nope", "/robots.txt", "/assets/i18n/en.json"} {
		resp, _ := testkit.Get(t, srv.URL+p)
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
	_, err := site.Site(t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), "freightsite build") {
		t.Errorf("err = %v", err)
	}
}

// TestServeRangeRequests: ranges are served up to nginx's usual cap of a
// few; past it, whatever the count, the answer is the whole file once
// (200); a zero-length suffix selects nothing: alone it is 416.
func TestServeRangeRequests(t *testing.T) {
	srv := siteServer(t)
	// The largest script: big enough for a thousand distinct one-byte
	// ranges (overlapping ones ServeContent drops by itself).
	paths, _ := filepath.Glob(filepath.Join(testDist, "assets", "build", "*.js"))
	var path, file string
	for _, p := range paths {
		if b, _ := os.ReadFile(p); len(b) > len(file) {
			path, file = "/assets/build/"+filepath.Base(p), string(b)
		}
	}
	size := len(file)
	if size < 2000 {
		t.Fatalf("the largest script %s has %d bytes", path, size)
	}
	for _, c := range []struct {
		name, header string
		status       int
		body         string // "" to check the length only
		length       int
	}{
		{"one range", "bytes=0-5", http.StatusPartialContent, file[:6], 6},
		{"a suffix", "bytes=-4", http.StatusPartialContent, file[size-4:], 4},
		{"as many ranges as allowed", testkit.ByteRanges(site.MaxRanges), http.StatusPartialContent, "", -1},
		{"one more than allowed", testkit.ByteRanges(site.MaxRanges + 1), http.StatusOK, file, size},
		{"a thousand one-byte ranges", testkit.ByteRanges(1000), http.StatusOK, file, size},
		{"a zero-length suffix", "bytes=-0", http.StatusRequestedRangeNotSatisfiable, "", -1},
		{"a zero-length suffix, padded", "bytes= -000", http.StatusRequestedRangeNotSatisfiable, "", -1},
		{"only zero-length suffixes", "bytes=-0,-0", http.StatusRequestedRangeNotSatisfiable, "", -1},
		{"a range and a zero-length suffix", "bytes=0-1,-0", http.StatusPartialContent, file[:2], 2},
		{"past the end", fmt.Sprintf("bytes=%d-", size+10), http.StatusRequestedRangeNotSatisfiable, "", -1},
	} {
		resp, body := testkit.Get(t, srv.URL+path, "Range", c.header)
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d, want %d", c.name, resp.StatusCode, c.status)
			continue
		}
		if c.length >= 0 && (len(body) != c.length || body != c.body) {
			t.Errorf("%s: %d bytes %q, want %q", c.name, len(body), body, c.body)
		}
		if c.status == http.StatusRequestedRangeNotSatisfiable && resp.Header.Get("Content-Range") != fmt.Sprintf("bytes */%d", size) {
			t.Errorf("%s: Content-Range %q", c.name, resp.Header.Get("Content-Range"))
		}
		if c.name == "as many ranges as allowed" && !strings.HasPrefix(resp.Header.Get("Content-Type"), "multipart/byteranges") {
			t.Errorf("%s: Content-Type %q", c.name, resp.Header.Get("Content-Type"))
		}
	}
}

// A plain GET or HEAD of a route or file is answered from an answer
// prepared once: the same headers (but Accept-Ranges) and bytes as the
// answer worked out through http.ServeContent (which a conditional
// request still gets),
// with its Content-Length; a path written in another way (//) is served
// but not kept, so made-up spellings cannot grow what is kept.
func TestServePreparedAnswers(t *testing.T) {
	h, err := site.Site(testDist, nil)
	if err != nil {
		t.Fatal(err)
	}
	url := testkit.Serve(t, h)
	for _, c := range []struct{ path, encoding string }{{"/faq", "gzip"}, {"/faq", "identity"}, {"/hi/faq", "gzip"}, {"/assets/i18n/en.json", "gzip"}, {"/robots.txt", "identity"}} {
		first, firstBody := testkit.Get(t, url+c.path, "Accept-Encoding", c.encoding)
		kept, keptBody := testkit.Get(t, url+c.path, "Accept-Encoding", c.encoding)
		// An unknown entity tag: ServeContent checks it and sends the whole file.
		worked, workedBody := testkit.Get(t, url+c.path, "Accept-Encoding", c.encoding, "If-None-Match", `"nope"`)
		if first.StatusCode != 200 || kept.StatusCode != 200 || worked.StatusCode != 200 {
			t.Fatalf("%s: status %d, %d, %d", c.path, first.StatusCode, kept.StatusCode, worked.StatusCode)
		}
		if firstBody != workedBody || keptBody != workedBody {
			t.Errorf("%s (%s): prepared body differs from ServeContent's", c.path, c.encoding)
		}
		if got := kept.Header.Get("Content-Length"); got != fmt.Sprint(len(keptBody)) {
			t.Errorf("%s (%s): Content-Length %q for %d bytes", c.path, c.encoding, got, len(keptBody))
		}
		for _, hd := range []http.Header{first.Header, kept.Header, worked.Header} {
			hd.Del("Date")
			hd.Del("Content-Length") // ServeContent leaves it out for gzip (chunked)
		}
		if worked.Header.Get("Accept-Ranges") != "bytes" {
			t.Errorf("%s (%s): ServeContent's answer says Accept-Ranges %q", c.path, c.encoding, worked.Header.Get("Accept-Ranges"))
		}
		worked.Header.Del("Accept-Ranges") // a prepared answer leaves it out
		for _, hd := range []http.Header{first.Header, kept.Header} {
			if fmt.Sprint(hd) != fmt.Sprint(worked.Header) {
				t.Errorf("%s (%s): headers\n%v\nwant ServeContent's\n%v", c.path, c.encoding, hd, worked.Header)
			}
		}
	}
	req, _ := http.NewRequest(http.MethodHead, url+"/hi/faq", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || resp.ContentLength <= 0 {
		t.Errorf("HEAD /hi/faq: %d, Content-Encoding %q, Content-Length %d", resp.StatusCode, resp.Header.Get("Content-Encoding"), resp.ContentLength)
	}

	count := func() int { return site.AnswersKept(h) }
	before := count()
	for _, p := range []string{"/assets//i18n/en.json", "//assets/i18n/en.json", "/assets/./i18n/en.json"} {
		if resp, _ := testkit.Get(t, url+p); resp.StatusCode != 200 {
			t.Errorf("%s: status %d", p, resp.StatusCode)
		}
	}
	if after := count(); after != before {
		t.Errorf("%d answers kept before the odd spellings, %d after", before, after)
	}
}
