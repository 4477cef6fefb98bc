package e2e

import (
	"bufio"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecurityHeadersOnEveryPage asks the running `freightsite serve` for
// every route in every language, the not-found page in each, and the
// other files the build writes (scripts, styles, translations, sitemap,
// robots.txt, icon): each answer carries the security headers of the
// build's _headers, the CSP with the boot script's hash among them, and
// the caching its kind of file needs. (formapi/security_test.go checks
// the API's routes the same way.)
func TestSecurityHeadersOnEveryPage(t *testing.T) {
	want := buildHeaders(t)
	if !strings.Contains(want.Get("Content-Security-Policy"), "script-src 'self' 'sha256-") || want.Get("X-Frame-Options") != "DENY" {
		t.Fatalf("_headers lacks the CSP or X-Frame-Options: %v", want)
	}
	pages, notFound := sitePages(t)
	assets, err := filepath.Glob(filepath.Join(work, "dist", "assets", "build", "*"))
	if err != nil || len(assets) == 0 {
		t.Fatalf("no built assets: %v", err)
	}
	var files []string
	for _, a := range assets {
		if !strings.HasSuffix(a, ".gz") {
			files = append(files, "/assets/build/"+filepath.Base(a))
		}
	}
	files = append(files, "/assets/i18n/hi.json", "/sitemap.xml", "/robots.txt", "/favicon.svg", "/assets/site.css")

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	check := func(path string, status int, cache string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, baseURL+path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != status {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, status)
		}
		for name := range want {
			if got := resp.Header.Get(name); got != want.Get(name) {
				t.Errorf("GET %s: %s %q, want %q", path, name, got, want.Get(name))
			}
		}
		if got := resp.Header.Get("Cache-Control"); got != cache {
			t.Errorf("GET %s: Cache-Control %q, want %q", path, got, cache)
		}
		if resp.Header.Get("Strict-Transport-Security") != "" {
			t.Errorf("GET %s: HSTS over plain HTTP", path)
		}
	}
	for _, p := range pages {
		check(p, http.StatusOK, "no-cache")
	}
	for _, p := range notFound {
		check(p, http.StatusNotFound, "no-cache")
	}
	for _, f := range files {
		cache := "public, max-age=3600"
		switch {
		case strings.HasPrefix(f, "/assets/build/"):
			cache = "public, max-age=31536000, immutable"
		case strings.HasSuffix(f, ".json"):
			cache = "no-cache"
		}
		check(f, http.StatusOK, cache)
	}
	t.Logf("%d pages, %d not-found pages and %d files checked", len(pages), len(notFound), len(files))
}

// buildHeaders reads the headers the build's _headers sets on every path.
func buildHeaders(t *testing.T) http.Header {
	t.Helper()
	f, err := os.Open(filepath.Join(work, "dist", "_headers"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := http.Header{}
	all := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		if line[0] != ' ' && line[0] != '\t' {
			all = strings.TrimSpace(line) == "/*"
			continue
		}
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && all {
			h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	return h
}
