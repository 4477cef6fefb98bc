package e2e

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"freightsite/formapi"
)

// siteHost is the host name the nginx tests serve the site under;
// Chromium resolves it to 127.0.0.1 (harness_test.go).
const siteHost = "freight.test"

// TestNginx installs deploy/nginx.conf as a site of a copy of Debian's
// own nginx configuration, step by step as docs/operations.md's "Running in
// production" says (default site kept, snippets, TLS with a certificate,
// the API on a socket handed over as systemd does), starts nginx before
// the first build, and checks pages, 404s per language, the news items'
// pages, caching, compression, headers, certificate challenges, body
// limits and API calls; then it rebuilds the site and restarts the API
// under load (nginx_load_test.go).
func TestNginx(t *testing.T) {
	nginx := tool(t, "nginx", "apt-get install -y nginx")
	n := installNginx(t, nginx)
	api := startSocketAPI(t, n.dir)
	n.db = api.db // builds read the news from it: a page per item
	n.start(t, api.addr)

	t.Run("nginx starts before the first build", func(t *testing.T) {
		if resp, _ := n.get(t, "/"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("/ before any build: %d, want nginx's 404", resp.StatusCode)
		}
		if log, _ := os.ReadFile(filepath.Join(n.dir, "log", "error.log")); bytes.Contains(log, []byte("[emerg]")) {
			t.Errorf("nginx logged an emergency:\n%s", log)
		}
	})

	// An archive of three pages of the feed.
	total := archiveItems(t, n.db, 40)
	// The first build, then the one reload that makes nginx read its CSP.
	n.build(t, root)
	if resp, _ := n.get(t, "/faq"); strings.Contains(resp.Header.Get("Content-Security-Policy"), "sha256-") {
		t.Error("nginx serves the build's CSP before it reloaded")
	}
	n.reload(t)

	get := func(path string, header ...string) (*http.Response, string) {
		t.Helper()
		return n.get(t, path, header...)
	}
	t.Run("Debian's default site keeps the other host names", func(t *testing.T) {
		resp, body := n.getHTTP(t, "127.0.0.1", "/")
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Welcome to nginx") {
			t.Errorf("another host name: %d, want Debian's default page", resp.StatusCode)
		}
		resp, _ = n.getHTTP(t, siteHost, "/faq?x=1")
		if resp.StatusCode != http.StatusMovedPermanently || !strings.HasPrefix(resp.Header.Get("Location"), "https://"+siteHost) || !strings.HasSuffix(resp.Header.Get("Location"), "/faq?x=1") {
			t.Errorf("http://%s/faq: %d to %q, want a redirect to HTTPS", siteHost, resp.StatusCode, resp.Header.Get("Location"))
		}
	})

	t.Run("pages over HTTP/2 with the build's headers and HSTS", func(t *testing.T) {
		rules := readHeaders(t, filepath.Join(n.dir, "dist", "_headers"))
		for path, lang := range map[string]string{"/": "en", "/faq": "en", "/hi": "hi", "/ma/contact-us": "mr", "/news-feed": "en", "/no-such-page": "en"} {
			resp, body := get(path)
			if resp.ProtoMajor != 2 || !strings.Contains(body, `<html lang="`+lang+`"`) {
				t.Errorf("%s: %s, lang %s expected", path, resp.Proto, lang)
			}
			for name, want := range rules["/*"] {
				if got := resp.Header.Values(name); len(got) != 1 || got[0] != want {
					t.Errorf("%s: %s %q, want %q as in _headers", path, name, got, want)
				}
			}
			if resp.Header.Get("Strict-Transport-Security") == "" || resp.Header.Get("Cache-Control") != "no-cache" {
				t.Errorf("%s: HSTS %q, Cache-Control %q", path, resp.Header.Get("Strict-Transport-Security"), resp.Header.Get("Cache-Control"))
			}
		}
		if resp, _ := get("/faq/?x=1"); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/faq?x=1" || resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("/faq/: %d to %q, headers %v", resp.StatusCode, resp.Header.Get("Location"), resp.Header)
		}
	})

	t.Run("redirects stay on the site", func(t *testing.T) {
		// nginx refuses a path that decodes to NUL or climbs above the
		// root with 400 while parsing the request line.
		checkRedirects(t, n.rawSite(t), "/%00/evil.example/", "/.%2E/.%2E/faq/")
	})

	t.Run("refusals carry the build's headers", func(t *testing.T) {
		want := n.rawSite(t).headers
		c := n.client(false)
		for _, path := range []string{"/", "/faq", "/hi/contact-us", "/ma/news-feed/news/1", "/favicon.svg", "/no-such-page"} {
			for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
				req, _ := http.NewRequest(method, n.url(path), strings.NewReader("x=1"))
				resp, err := c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if method == http.MethodPost && path != "/no-such-page" {
					// A form posted to a page goes to the API (the next
					// subtests): without Origin or a token, its refusal.
					if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Content-Security-Policy") != "default-src 'none'; frame-ancestors 'none'" {
						t.Errorf("%s %s: %d %q, want the API's 403", method, path, resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
					}
					continue
				}
				if resp.StatusCode != http.StatusMethodNotAllowed && resp.StatusCode != http.StatusNotFound {
					t.Errorf("%s %s: %d, want 405 (or 404)", method, path, resp.StatusCode)
				}
				for name := range want {
					if got := resp.Header.Get(name); got != want.Get(name) {
						t.Errorf("%s %s (%d): %s %q, want the build's %q", method, path, resp.StatusCode, name, got, want.Get(name))
					}
				}
			}
		}
	})

	t.Run("range requests are capped", func(t *testing.T) {
		checkRanges(t, n.rawSite(t))
	})

	t.Run("404 per language", func(t *testing.T) {
		for path, heading := range map[string]string{"/no-such-page": "Page Not Found", "/hi/no-such-page": "पृष्ठ नहीं मिला", "/ma/no/such": "पान सापडले नाही", "/index.html": "Page Not Found", "/routes.json": "Page Not Found", "/_redirects": "Page Not Found", "/.freightsite-build": "Page Not Found", "/faq/index.html": "Page Not Found", "/hi/faq/index.html.gz": "पृष्ठ नहीं मिला"} {
			resp, body := get(path)
			if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, heading) {
				t.Errorf("%s: status %d, want 404 with %q", path, resp.StatusCode, heading)
			}
			if resp.Header.Get("Content-Security-Policy") == "" {
				t.Errorf("%s: the 404 page has no CSP", path)
			}
		}
	})

	t.Run("files: types, caching and compression as serve sends them", func(t *testing.T) {
		_, home := get("/")
		css := regexp.MustCompile(`href="(/assets/build/[^"]+\.css)"`).FindStringSubmatch(home)
		if css == nil {
			t.Fatal("no stylesheet on /")
		}
		resp, body := get(css[1], "Accept-Encoding", "gzip")
		if resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(body, "--brand") {
			t.Errorf("%s: %v", css[1], resp.Header)
		}
		if !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s: Vary %q: a shared cache could hand gzip to a client that cannot take it", css[1], resp.Header.Get("Vary"))
		}
		for path, want := range map[string][2]string{
			css[1]:                                  {"text/css", "public, max-age=31536000, immutable"},
			"/assets/i18n/hi.json":                  {"application/json", "no-cache"},
			"/favicon.svg":                          {"image/svg+xml", "public, max-age=3600"},
			"/robots.txt":                           {"text/plain", "public, max-age=3600"},
			"/sitemap.xml":                          {"text/xml", "public, max-age=3600"},
			"/assets/site.css":                      {"text/css", "public, max-age=3600"},
			"/assets/receivables-import-sample.csv": {"text/csv", "public, max-age=3600"},
			"/hi/manifest.webmanifest":              {"application/manifest+json", "public, max-age=3600"},
		} {
			resp, _ := get(path)
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), want[0]) || resp.Header.Get("Cache-Control") != want[1] {
				t.Errorf("%s: %d %q %q, want %q %q", path, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"), want[0], want[1])
			}
			if served, _ := http.Get(baseURL + path); served != nil {
				served.Body.Close()
				if served.Header.Get("Cache-Control") != resp.Header.Get("Cache-Control") {
					t.Errorf("%s: nginx says %q, serve %q", path, resp.Header.Get("Cache-Control"), served.Header.Get("Cache-Control"))
				}
			}
		}
	})

	t.Run("a static host's export holds exactly the files nginx serves", func(t *testing.T) {
		nginxServesTheExport(t, n)
	})

	t.Run("certificate challenges come from a folder outside dist", func(t *testing.T) {
		token := filepath.Join(n.dir, "acme", ".well-known", "acme-challenge", "Tok3n")
		os.MkdirAll(filepath.Dir(token), 0o755)
		os.WriteFile(token, []byte("Tok3n.key-authorization"), 0o644)
		resp, body := n.getHTTP(t, siteHost, "/.well-known/acme-challenge/Tok3n")
		if resp.StatusCode != http.StatusOK || body != "Tok3n.key-authorization" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
			t.Errorf("challenge over HTTP: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	})

	t.Run("API calls with anti-forgery tokens, the port in Origin, request ids", func(t *testing.T) {
		c := n.client(true)
		token := n.xsrfToken(t, c)
		post := func(origin string, withToken bool) *http.Response {
			req, _ := http.NewRequest(http.MethodPost, n.url("/api/contact_us"), strings.NewReader(`{"name":"Nginx Test","email":"n@example.in","subject":"via nginx"}`))
			req.Header.Set("Content-Type", "application/json")
			if withToken {
				req.Header.Set("X-XSRF-TOKEN", token)
			}
			if origin != "" {
				req.Header.Set("Origin", origin)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp
		}
		if resp := post("", false); resp.StatusCode != http.StatusForbidden {
			t.Errorf("without the header: %d, want 403", resp.StatusCode)
		}
		// A browser that sends no Sec-Fetch-Site: the API compares Origin,
		// port included, with the Host nginx passes on.
		resp := post(n.origin(), true)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("with the token and Origin %s: %d, want 200", n.origin(), resp.StatusCode)
		}
		if id := resp.Header.Get("X-Request-Id"); !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(id) {
			t.Errorf("X-Request-Id %q, want nginx's $request_id", id)
		} else if !api.logged("client=127.0.0.1 id=" + id) {
			t.Errorf("the API's log does not name request %s and its client:\n%s", id, api.log(t))
		}
		if resp := post("https://evil.example", true); resp.StatusCode != http.StatusForbidden {
			t.Errorf("from another origin: %d, want 403", resp.StatusCode)
		}
		if resp, body := get("/states?country_id=IN"); resp.StatusCode != 200 || !strings.Contains(body, "Maharashtra") {
			t.Errorf("/states: %d", resp.StatusCode)
		}
		if resp, body := get("/readyz"); resp.StatusCode != 200 || !strings.Contains(body, `"status":"ready"`) || len(resp.Cookies()) > 0 {
			t.Errorf("/readyz: %d %s %v", resp.StatusCode, body, resp.Cookies())
		}
	})

	t.Run("each API call takes the body the API takes", func(t *testing.T) {
		if got := nginxBodyLimits(t, n.site); fmt.Sprint(got) != fmt.Sprint(formapi.BodyLimits) {
			t.Errorf("deploy/nginx.conf's body limits %v, the API's %v", got, formapi.BodyLimits)
		}
		c := n.client(true)
		token := n.xsrfToken(t, c)
		upload := func(size int) (*http.Response, string) {
			var b bytes.Buffer
			mw := multipart.NewWriter(&b)
			fw, _ := mw.CreateFormFile("file", "big.csv")
			fw.Write(bigImport(size))
			mw.Close()
			req, _ := http.NewRequest(http.MethodPost, n.url("/api/import/validate"), &b)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			req.Header.Set("X-XSRF-TOKEN", token)
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return resp, string(body)
		}
		if resp, body := upload(20 << 20); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"valid":true`) {
			t.Errorf("a 20 MB import file: %d %.200s", resp.StatusCode, body)
		}
		resp, body := upload(60 << 20)
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !strings.Contains(body, "api.errors.tooLarge") || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("a 60 MB import file: %d %q %.200s, want the API's kind of JSON 413", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	})

	t.Run("the import fix reaches the API through its upload upstream", func(t *testing.T) {
		c := n.client(true)
		token := n.xsrfToken(t, c)
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		fw, _ := mw.CreateFormFile("file", "small.csv")
		fw.Write(bigImport(2000))
		mw.Close()
		req, _ := http.NewRequest(http.MethodPost, n.url("/api/import/fix"), &b)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("X-XSRF-TOKEN", token)
		resp, body := do(t, c, req)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") || !strings.HasPrefix(body, "Account Number,") {
			t.Errorf("POST /api/import/fix through nginx: %d %q %.200s, want the API's corrected copy", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	})

	t.Run("no log keeps a reset or confirmation token", func(t *testing.T) {
		const secret = "S3cretT0ken"
		for i, path := range []string{"/reset-password?token=" + secret + "1", "/hi/reset-password?token=" + secret + "2", "/api/publicTruckingAuctionForm/confirm?token=" + secret + "3"} {
			resp, _ := get(path)
			if i < 2 && (resp.StatusCode != http.StatusOK || resp.Header.Get("Referrer-Policy") != "no-referrer") {
				t.Errorf("%s: %d, Referrer-Policy %q, want the page with no-referrer", path, resp.StatusCode, resp.Header.Get("Referrer-Policy"))
			}
		}
		if resp, _ := get("/faq"); resp.Header.Get("Referrer-Policy") != "strict-origin-when-cross-origin" {
			t.Errorf("/faq: Referrer-Policy %q, want the build's", resp.Header.Get("Referrer-Policy"))
		}
		// A browser that sent a Referer anyway, an API call from the page,
		// the plain-HTTP redirect.
		get("/favicon.svg", "Referer", n.url("/reset-password?token="+secret+"4"))
		get("/api/news", "Referer", n.url("/reset-password?token="+secret+"5"))
		n.getHTTP(t, siteHost, "/reset-password?token="+secret+"6")
		n.getHTTP(t, siteHost, "/ma/reset-password?token="+secret+"7")
		// nginx logs a request once it has answered it, so the last
		// request's line may come a moment after its answer: wait for it.
		accessLog := filepath.Join(n.dir, "log", "freightsite.access.log")
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if text, _ := os.ReadFile(accessLog); strings.Contains(string(text), `"GET /ma/reset-password HTTP/1.1" 301`) {
				break
			}
		}
		logs, _ := filepath.Glob(filepath.Join(n.dir, "log", "*"))
		logs = append(logs, api.logs...)
		access := ""
		for _, f := range logs {
			text := string(must(os.ReadFile(f)))
			if strings.Contains(text, secret) {
				t.Errorf("%s keeps a token:\n%s", filepath.Base(f), regexp.MustCompile(`(?m)^.*`+secret+`.*$`).FindAllString(text, -1))
			}
			if filepath.Base(f) == "freightsite.access.log" {
				access = text
			}
		}
		for _, want := range []string{`"GET /reset-password HTTP/2.0" 200`, `"GET /hi/reset-password HTTP/2.0" 200`, `"GET /api/publicTruckingAuctionForm/confirm HTTP/2.0"`,
			`"GET /favicon.svg HTTP/2.0" 200 `, `"` + n.url("/reset-password") + `"`, `"GET /ma/reset-password HTTP/1.1" 301`} {
			if !strings.Contains(access, want) {
				t.Errorf("the site's access log has no line with %s:\n%s", want, access)
			}
		}
	})

	t.Run("news items: the build's pages, 404 for any other id", func(t *testing.T) {
		resp, body := get("/hi/news-feed/news/1")
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "<title>"+queryString(t, `SELECT title FROM news_translations WHERE news_id = 1 AND lang = 'hi'`)+" | ") {
			t.Errorf("/hi/news-feed/news/1: %d, want the item's own page", resp.StatusCode)
		}
		for path, heading := range map[string]string{"/news-feed/news/999999": "Page Not Found", "/hi/news-feed/news/abc": "पृष्ठ नहीं मिला", "/ma/news-feed/news/_": "पान सापडले नाही", "/news-feed/news/01": "Page Not Found"} {
			if resp, body := get(path); resp.StatusCode != http.StatusNotFound || !strings.Contains(body, heading) {
				t.Errorf("%s: %d, want 404 with %q", path, resp.StatusCode, heading)
			}
		}
	})

	t.Run("every news item reached by links without JavaScript", func(t *testing.T) {
		nginxCrawl(t, n, total)
	})

	t.Run("news detail and the contact form in the browser", func(t *testing.T) {
		p := newPage(t)
		p.do(chromedp.Navigate(n.url("/hi/news-feed/news/2")))
		p.waitFor(articleShown)
		if got, want := eval[string](p, `byRole('heading', undefined, `+newsArticle+`).textContent`), queryString(t, `SELECT title FROM news_translations WHERE news_id = 2 AND lang = 'hi'`); got != want {
			t.Errorf("news detail through nginx: heading %q, want %q", got, want)
		}
		// A static page gets no cookie from nginx: the cookie comes from
		// the API (on a named host the tenant lookup's call brings it
		// before the form's first post would).
		if resp, _ := get("/contact-us"); len(resp.Cookies()) > 0 {
			t.Errorf("nginx set cookies on a static page: %v", resp.Cookies())
		}
		p = newPage(t)
		p.do(chromedp.Navigate(n.url("/contact-us")))
		p.waitLoaded()
		p.fill("Name", "Browser Via Nginx")
		p.fill("Email", "b@example.in")
		p.fill("Subject", "through nginx")
		p.click(byRole("button", text(t, "en", "contact.send")))
		p.waitNotice("ok")
		p.expectNoConsoleErrors()
	})

	t.Run("forms posted without JavaScript reach the API, never a 405", func(t *testing.T) {
		p := newPage(t, withoutJavaScript)
		p.do(chromedp.Navigate(n.url("/hi/contact-us")))
		p.waitFor(`document.readyState === 'complete'`)
		p.fill(text(t, "hi", "contact.name"), "Nginx Without Script")
		p.fill(text(t, "hi", "contact.email"), "nginx-no-js@example.in")
		p.fill(text(t, "hi", "contact.subject"), "nginx no-js")
		p.click(byRole("button", text(t, "hi", "contact.send")))
		p.answered(text(t, "hi", "contact.sentTitle")) // said once stored
		post := func(path, contentType string, body []byte) (*http.Response, string) {
			req, _ := http.NewRequest(http.MethodPost, n.url(path), bytes.NewReader(body))
			req.Header.Set("Content-Type", contentType)
			req.Header.Set("Origin", n.origin())
			return do(t, n.client(false), req)
		}
		// A page without a form of its own, the home page, a sign-in.
		for _, path := range []string{"/", "/ma", "/login", "/hi/about-us"} {
			resp, body := post(path, "application/x-www-form-urlencoded", []byte("password=secret"))
			lang := map[string]string{"/ma": "ma", "/hi/about-us": "hi"}[path]
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(body, text(t, cmp.Or(lang, "en"), "forms.post.needsScriptTitle")) {
				t.Errorf("POST %s through nginx: %d %s, want the API's page saying the form needs JavaScript:\n%s", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
		}
		// The longest Devanagari message, 45 KB form-encoded.
		long := url.Values{"name": {"Nginx Long"}, "email": {"long@example.in"}, "subject": {"nginx long"}, "message": {strings.Repeat("ह", 5000)}}
		if resp, body := post("/hi/contact-us", "application/x-www-form-urlencoded", []byte(long.Encode())); resp.StatusCode != http.StatusOK || !strings.Contains(body, text(t, "hi", "contact.sentTitle")) {
			t.Errorf("a 5000-character Hindi message through nginx: %d\n%s", resp.StatusCode, body)
		}
		// The feedback page takes a post with an attachment past the 96 KB
		// of other pages.
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		_ = mw.WriteField("feedback", "sent through nginx without a script")
		_ = mw.WriteField("name", "Nginx Feedback")
		_ = mw.WriteField("email", "nginx-feedback@example.in")
		fw, _ := mw.CreateFormFile("attachment", "big.png")
		_, _ = fw.Write(append(append([]byte{}, pngFile...), make([]byte, 200<<10)...))
		_ = mw.Close()
		resp, body := post("/ma/feedback-form", mw.FormDataContentType(), b.Bytes())
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, text(t, "ma", "feedback.success")) {
			t.Errorf("feedback with a 200 KB file through nginx: %d\n%s", resp.StatusCode, body)
		}
		if resp, _ := get("/ma/feedback-form"); resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("GET /ma/feedback-form: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
		if resp, _ := get("/feedback-form/nope"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET /feedback-form/nope: %d", resp.StatusCode)
		}
	})

	t.Run("sign-in calls and the members' page reach the API", func(t *testing.T) {
		for path, login := range map[string]string{"/secure/entry": "/login", "/hi/secure/entry": "/hi/login", "/ma/secure/entry": "/ma/login"} {
			if resp, _ := get(path); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != login {
				t.Errorf("%s without a session: %d to %q, want the API's redirect to %s", path, resp.StatusCode, resp.Header.Get("Location"), login)
			}
		}
		for _, path := range []string{"/auth", "/token/generate-token"} {
			resp, err := n.client(false).Post(n.url(path), "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Errorf("POST %s without a token: %d %q, want the API's 403", path, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		}
	})

	t.Run("stalled uploads: cut after 10 s, at most 4 from one client, others still served", func(t *testing.T) {
		token := n.xsrfToken(t, n.client(true))
		// One client's 4 stalled uploads (2 of each kind: the API itself
		// checks 2 files of a client at once) hold what nginx allows it.
		var held []*stalledUpload
		for i := range 4 {
			held = append(held, n.stallUpload(t, "127.0.0.1", []string{"/api/import/validate", "/api/error_feedback"}[i%2], token))
		}
		time.Sleep(300 * time.Millisecond) // nginx counts them in
		for _, path := range []string{"/api/import/validate", "/api/error_feedback"} {
			u := n.stallUpload(t, "127.0.0.1", path, token)
			resp, body, took := u.answer(t)
			if resp == nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "10" || !strings.Contains(body, `"message":"api.errors.tooManyRequests"`) ||
				!strings.Contains(body, "too many uploads from this address") || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || resp.Header.Get("X-Content-Type-Options") != "nosniff" || took > 5*time.Second {
				t.Errorf("a 5th stalled upload (%s) from the same client: %v %s after %v, want nginx's JSON 429 at once", path, resp, body, took)
			}
		}
		// Another client uploads and reads the news meanwhile.
		other := n.stallUpload(t, "127.0.0.2", "/api/error_feedback", token)
		start := time.Now()
		c := n.clientFrom("127.0.0.2")
		if resp, body := do(t, c, must(http.NewRequest(http.MethodGet, n.url("/api/news"), nil))); resp.StatusCode != http.StatusOK || !strings.HasPrefix(body, "[") || time.Since(start) > 5*time.Second {
			t.Errorf("another client's GET /api/news while one client's uploads stall: %d after %v", resp.StatusCode, time.Since(start))
		}
		// Each stalled upload is cut once its body stops for 10 s: nginx
		// closes the connection without an answer.
		for _, u := range append(held, other) {
			resp, body, took := u.answer(t)
			if resp != nil || took < 9*time.Second || took > 30*time.Second {
				t.Errorf("a stalled upload (%s): %v %s after %v, want the connection closed after 10 s", u.path, resp, body, took)
			}
		}
	})

	t.Run("uploads past their share of the API's connections get JSON 503, other calls still go through", func(t *testing.T) {
		// The test's upstream names the one API twice: 2 x 32 connections
		// for imports. 34 clients, 2 stalled imports each (the API checks
		// 2 files of a client at once), is 68.
		token := n.xsrfToken(t, n.client(true))
		var held []*stalledUpload
		for i := range 68 {
			held = append(held, n.stallUpload(t, fmt.Sprintf("127.0.1.%d", 1+i/2), "/api/import/validate", token))
		}
		start := time.Now()
		if resp, _ := do(t, n.clientFrom("127.0.2.1"), must(http.NewRequest(http.MethodGet, n.url("/api/news"), nil))); resp.StatusCode != http.StatusOK || time.Since(start) > 5*time.Second {
			t.Errorf("GET /api/news while imports hold their share: %d after %v", resp.StatusCode, time.Since(start))
		}
		refused := 0
		for _, u := range held {
			resp, body, _ := u.answer(t)
			switch {
			case resp == nil: // held, then cut after 10 s
			case resp.StatusCode == http.StatusServiceUnavailable && strings.Contains(body, `"message":"api.errors.unavailable"`) && resp.Header.Get("Retry-After") != "" &&
				strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && resp.Header.Get("Content-Security-Policy") != "":
				refused++
			default:
				t.Errorf("a stalled import: %d %s", resp.StatusCode, body)
			}
		}
		if refused < 68-64 {
			t.Errorf("%d of 68 stalled imports were refused, want at least %d past the 64 connections", refused, 68-64)
		}
	})

	t.Run("nginx's own 400 on an API call is JSON", func(t *testing.T) {
		u := n.rawPost(t, "127.0.0.1", "/api/contact_us", "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n", "zz\r\nnot a chunk\r\n0\r\n\r\n")
		resp, body, _ := u.answer(t)
		if resp == nil || resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !strings.Contains(body, `"message":"api.errors.badRequest"`) || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("a malformed chunked body: %v %s, want nginx's JSON 400", resp, body)
		}
	})

	t.Run("a rebuild and an API restart under load fail no request", func(t *testing.T) {
		rebuildAndRestartUnderLoad(t, n, api)
	})

	t.Run("the API down: a JSON 503 with the API's headers", func(t *testing.T) {
		// Stopped with its socket (systemctl stop freightsite-api@1.socket):
		// nginx finds nothing listening.
		api.stop(t)
		api.file.Close()
		resp, body := get("/api/news")
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !strings.Contains(body, "api.errors.unavailable") {
			t.Errorf("/api/news with the API down: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		for _, h := range []string{"Retry-After", "X-Content-Type-Options", "Content-Security-Policy", "Strict-Transport-Security"} {
			if resp.Header.Get(h) == "" {
				t.Errorf("the 503 has no %s", h)
			}
		}
	})

	if t.Failed() {
		log, _ := os.ReadFile(filepath.Join(n.dir, "log", "error.log"))
		t.Logf("nginx error log:\n%s", log)
	}
}

// nginxSite is a copy of Debian's /etc/nginx with freightsite installed
// as a site, listening on free loopback ports.
type nginxSite struct {
	bin       string
	dir       string // prefix: etc/nginx, log, dist, acme, certificate
	conf      string // etc/nginx/nginx.conf
	site      string // the installed sites-available/freightsite
	httpAddr  string
	httpsAddr string
	cert      *x509.Certificate
	cmd       *exec.Cmd
	db        string // the API's database, which builds read (--db)
}

// installNginx follows docs/operations.md's steps in a copy of Debian's nginx
// configuration: the site file with its ADAPT lines set, the snippets,
// the link in sites-enabled, a certificate.
func installNginx(t *testing.T, bin string) *nginxSite {
	t.Helper()
	dir := t.TempDir()
	n := &nginxSite{bin: bin, dir: dir, httpAddr: freeAddr(t), httpsAddr: freeAddr(t)}
	etc := filepath.Join(dir, "etc", "nginx")
	for _, d := range []string{"sites-available", "sites-enabled", "snippets", "conf.d", "modules-enabled", "../../log", "../../acme", "../../tmp"} {
		if err := os.MkdirAll(filepath.Join(etc, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Debian's main file: paths moved into the copy; the workers run as
	// root, to read the test's private folders.
	main := rewrite(t, "/etc/nginx/nginx.conf", map[string]string{
		"user www-data;":      "user root;\ndaemon off;",
		"pid /run/nginx.pid;": "pid " + filepath.Join(dir, "nginx.pid") + ";",
		"/var/log/nginx/":     filepath.Join(dir, "log") + "/",
		"include /etc/nginx/": "include " + etc + "/",
		"http {":              "http {\n\tclient_body_temp_path " + filepath.Join(dir, "tmp") + ";\n\tproxy_temp_path " + filepath.Join(dir, "tmp") + ";",
	})
	n.conf = filepath.Join(etc, "nginx.conf")
	write(t, n.conf, main)
	if err := exec.Command("cp", "/etc/nginx/mime.types", etc).Run(); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(etc, "sites-available", "default"), rewrite(t, "/etc/nginx/sites-available/default", map[string]string{
		"listen 80 default_server;":      "listen " + n.httpAddr + " default_server;",
		"listen [::]:80 default_server;": "",
	}))
	os.Symlink("../sites-available/default", filepath.Join(etc, "sites-enabled", "default"))

	// docs/operations.md: the certificate (here a self-signed one for siteHost).
	n.cert = selfSignedCert(t, filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"))
	// docs/operations.md: the snippets, the site with its ADAPT lines, the link.
	for _, f := range []string{"headers", "api-headers", "proxy"} {
		if err := exec.Command("cp", filepath.Join(root, "deploy", "nginx-"+f+".conf"), filepath.Join(etc, "snippets", "freightsite-"+f+".conf")).Run(); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(root, "deploy", "nginx.conf"))
	marks := strings.Count(string(raw), "# ADAPT")
	if said := regexp.MustCompile(`the (\d+) lines marked ADAPT`).FindStringSubmatch(string(raw)); said == nil || said[1] != strconv.Itoa(marks) {
		t.Errorf("deploy/nginx.conf says %v lines are marked ADAPT; %d are", said, marks)
	}
	adapt := map[string]string{
		"server 127.0.0.1:8081 ":                                  "server API_ADDR ",
		"server 127.0.0.1:8082 ":                                  "server API_ADDR ", // one API here, twice in each upstream
		"listen 80;":                                              "listen " + n.httpAddr + ";",
		"server_name freight.example.com;":                        "server_name " + siteHost + ";",
		"root /srv/freightsite/acme;":                             "root " + filepath.Join(dir, "acme") + ";",
		"listen 443 ssl http2;":                                   "listen " + n.httpsAddr + " ssl http2;",
		"/etc/letsencrypt/live/freight.example.com/fullchain.pem": filepath.Join(dir, "cert.pem"),
		"/etc/letsencrypt/live/freight.example.com/privkey.pem":   filepath.Join(dir, "key.pem"),
		"root /srv/freightsite/dist;":                             "root " + filepath.Join(dir, "dist") + ";",
		"/srv/freightsite/dist.releases/nginx-csp.con[f]":         filepath.Join(dir, "dist.releases", "nginx-csp.con[f]"),
	}
	site := string(raw)
	adapted := 0
	for _, line := range strings.Split(site, "\n") {
		if !strings.Contains(line, "# ADAPT") {
			continue
		}
		for old := range adapt {
			if strings.Contains(line, old) {
				adapted++
			}
		}
	}
	if adapted != marks {
		t.Fatalf("this test sets %d of the %d ADAPT lines of deploy/nginx.conf: update it", adapted, marks)
	}
	for old, repl := range adapt {
		site = strings.ReplaceAll(site, old, repl)
	}
	// Debian's log folder, as in the main file.
	site = strings.ReplaceAll(site, "/var/log/nginx/", filepath.Join(dir, "log")+"/")
	n.site = filepath.Join(etc, "sites-available", "freightsite")
	write(t, n.site, site)
	os.Symlink("../sites-available/freightsite", filepath.Join(etc, "sites-enabled", "freightsite"))
	return n
}

// rewrite returns a file with each old string replaced, failing when one
// is not there (Debian's file changed: update the test).
func rewrite(t *testing.T, file string, repl map[string]string) string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	for old, new := range repl {
		if !strings.Contains(s, old) {
			t.Fatalf("%s no longer contains %q: update this test", file, old)
		}
		s = strings.ReplaceAll(s, old, new)
	}
	return s
}

func write(t *testing.T, file, content string) {
	t.Helper()
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// start checks the configuration (nginx -t) and runs nginx.
func (n *nginxSite) start(t *testing.T, apiAddr string) {
	t.Helper()
	write(t, n.site, strings.Replace(string(must(os.ReadFile(n.site))), "server API_ADDR ", "server "+apiAddr+" ", -1))
	errLog := filepath.Join(n.dir, "log", "error.log")
	if out, err := exec.Command(n.bin, "-t", "-c", n.conf, "-e", errLog).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	n.cmd = exec.Command(n.bin, "-c", n.conf, "-e", errLog)
	out, _ := os.Create(filepath.Join(n.dir, "log", "nginx.out"))
	n.cmd.Stdout, n.cmd.Stderr = out, out
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.cmd.Process.Signal(syscall.SIGQUIT); n.cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", n.httpsAddr); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("nginx did not listen within 20 s")
}

// reload makes nginx read its configuration again (nginx -s reload) and
// waits until the new workers serve the build's CSP.
func (n *nginxSite) reload(t *testing.T) {
	t.Helper()
	n.cmd.Process.Signal(syscall.SIGHUP)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, _ := n.get(t, "/faq"); strings.Contains(resp.Header.Get("Content-Security-Policy"), "sha256-") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("after a reload nginx does not serve the build's CSP")
}

// build runs freightsite build from the source tree src into the
// folder nginx serves, and returns what it printed.
func (n *nginxSite) build(t *testing.T, src string, args ...string) string {
	t.Helper()
	args = append([]string{"build", "--root", src, "--out", filepath.Join(n.dir, "dist"), "--base-url", n.origin(), "--db", n.db}, args...)
	out, err := exec.Command(binary, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("freightsite build: %v\n%s", err, out)
	}
	return string(out)
}

// release runs freightsite release with args on the site's releases.
func (n *nginxSite) release(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command(binary, append(append([]string{"release"}, args...), "--out", filepath.Join(n.dir, "dist"))...).CombinedOutput(); err != nil {
		t.Fatalf("freightsite release %v: %v\n%s", args, err, out)
	}
}

// published is the release the site's link names.
func (n *nginxSite) published(t *testing.T) string {
	t.Helper()
	return filepath.Base(must(os.Readlink(filepath.Join(n.dir, "dist"))))
}

func (n *nginxSite) origin() string {
	_, port, _ := net.SplitHostPort(n.httpsAddr)
	return "https://" + siteHost + ":" + port
}

func (n *nginxSite) url(path string) string { return n.origin() + path }

// rawSite is nginx over HTTPS for the raw checks (redirect_test.go),
// whose answers carry the page headers of the build it serves.
func (n *nginxSite) rawSite(t *testing.T) rawSite {
	pool := x509.NewCertPool()
	pool.AddCert(n.cert)
	headers := http.Header{}
	for k, v := range readHeaders(t, filepath.Join(n.dir, "dist", "_headers"))["/*"] {
		headers.Set(k, v)
	}
	return rawSite{addr: n.httpsAddr, host: strings.TrimPrefix(n.origin(), "https://"), tls: &tls.Config{RootCAs: pool, ServerName: siteHost},
		headers: headers, dist: filepath.Join(n.dir, "dist")}
}

// client speaks HTTPS (HTTP/2) to nginx under siteHost, trusting its
// certificate; with a cookie jar if asked.
func (n *nginxSite) client(jar bool) *http.Client {
	pool := x509.NewCertPool()
	pool.AddCert(n.cert)
	dialer := &net.Dialer{}
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool},
		ForceAttemptHTTP2: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if host, port, _ := net.SplitHostPort(addr); host == siteHost {
				addr = net.JoinHostPort("127.0.0.1", port)
			}
			return dialer.DialContext(ctx, network, addr)
		},
	}
	c := &http.Client{Transport: tr, Timeout: 60 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if jar {
		c.Jar, _ = cookiejar.New(nil)
	}
	return c
}

// get fetches path over HTTPS, unzipping a gzip answer.
func (n *nginxSite) get(t *testing.T, path string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, n.url(path), nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(t, n.client(false), req)
}

// getHTTP fetches path over plain HTTP with the given Host.
func (n *nginxSite) getHTTP(t *testing.T, host, path string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+n.httpAddr+path, nil)
	req.Host = host
	return do(t, &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, req)
}

func do(t *testing.T, c *http.Client, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		if r, err = gzip.NewReader(resp.Body); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := io.ReadAll(r)
	return resp, string(b)
}

// xsrfToken gets the anti-forgery cookie into c's jar, as a page on the
// static host does, and returns its value.
func (n *nginxSite) xsrfToken(t *testing.T, c *http.Client) string {
	t.Helper()
	resp, err := c.Get(n.url("/api/xsrf-token"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	u, _ := url.Parse(n.origin())
	for _, k := range c.Jar.Cookies(u) {
		if k.Name == "XSRF-TOKEN" {
			return k.Value
		}
	}
	t.Fatal("no XSRF-TOKEN cookie through nginx")
	return ""
}

// nginxBodyLimits reads the client_max_body_size of the API's locations
// in the installed site, by the API path ("" for the rest).
func nginxBodyLimits(t *testing.T, site string) map[string]int64 {
	t.Helper()
	raw := string(must(os.ReadFile(site)))
	out := map[string]int64{}
	server := regexp.MustCompile(`(?m)^    client_max_body_size (\d+)k;`).FindStringSubmatch(raw)
	if server == nil {
		t.Fatal("no server-wide client_max_body_size in KB")
	}
	kb, _ := strconv.ParseInt(server[1], 10, 64)
	out[""] = kb << 10
	for _, m := range regexp.MustCompile(`location = (\S+) \{\n\s+client_max_body_size (\d+);`).FindAllStringSubmatch(raw, -1) {
		out[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
	}
	return out
}

// readHeaders reads a _headers file into pattern -> header -> value.
func readHeaders(t *testing.T, file string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	var current map[string]string
	for _, line := range strings.Split(string(must(os.ReadFile(file))), "\n") {
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		case line[0] != ' ':
			current = map[string]string{}
			out[strings.TrimSpace(line)] = current
		default:
			k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
			current[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// bigImport is a valid receivables import file of about size bytes.
func bigImport(size int) []byte {
	var b bytes.Buffer
	b.WriteString("Account Number,Company Name,MC Number,Phone,Fax,Address Line 1,Address Line 2,City,State,Postal Code,Country,Attention,Mailing Address 1,Mailing Address 2,Mailing City,Mailing State,Mailing Postal Code,Mailing Country,Days 1-15,Days 16-30,Days 31-45,Days 46-60,Days 61-75,Days 76-90,Over 91 Days\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "ACC%d,Sahyadri Roadlines,123456,9820012345,,Plot 7,,Pune,MH,411026,IN,,,,,,,,100.00,0,0,0,0,0,0\n", i)
	}
	return b.Bytes()
}

// selfSignedCert writes a certificate for siteHost and its key.
func selfSignedCert(t *testing.T, certFile, keyFile string) *x509.Certificate {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: siteHost},
		DNSNames:              []string{siteHost},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	write(t, certFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	write(t, keyFile, string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})))
	cert, _ := x509.ParseCertificate(der)
	return cert
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitHealthy(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not answer 200 within 20 s", url)
}

// stalledUpload is a request over its own TLS connection (HTTP/1.1) from
// a client address of the loopback network, whose body stops coming.
type stalledUpload struct {
	path  string
	start time.Time
	done  chan stallEnd
}

type stallEnd struct {
	resp *http.Response // nil: the connection closed without an answer
	body string
	at   time.Time
}

// stallUpload sends an upload's head and the first bytes of its body
// from the address from, then nothing more.
func (n *nginxSite) stallUpload(t *testing.T, from, path, token string) *stalledUpload {
	t.Helper()
	field := map[string]string{"/api/import/validate": "file", "/api/error_feedback": "attachment"}[path]
	head := fmt.Sprintf("Cookie: XSRF-TOKEN=%s\r\nX-XSRF-TOKEN: %s\r\nContent-Type: multipart/form-data; boundary=XYZ\r\nContent-Length: 200000\r\n", token, token)
	return n.rawPost(t, from, path, head, "--XYZ\r\nContent-Disposition: form-data; name=\""+field+"\"; filename=\"a.csv\"\r\n\r\nAccount Number,Company Name")
}

// rawPost sends a POST's head (Host and the extra lines of head) and
// body from the address from, and waits for what comes back.
func (n *nginxSite) rawPost(t *testing.T, from, path, head, body string) *stalledUpload {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(n.cert)
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	conn, err := tls.DialWithDialer(dialer, "tcp", n.httpsAddr, &tls.Config{RootCAs: pool, ServerName: siteHost, NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatalf("connecting from %s: %v", from, err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\n%s\r\n%s", path, strings.TrimPrefix(n.origin(), "https://"), head, body)
	u := &stalledUpload{path: path, start: time.Now(), done: make(chan stallEnd, 1)}
	go func() {
		conn.SetReadDeadline(time.Now().Add(60 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			u.done <- stallEnd{at: time.Now()}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		u.done <- stallEnd{resp: resp, body: string(b), at: time.Now()}
	}()
	return u
}

// answer waits for the end of a stalled request: its answer (nil when
// nginx closed the connection without one) and when, after it was sent.
func (u *stalledUpload) answer(t *testing.T) (*http.Response, string, time.Duration) {
	t.Helper()
	e := <-u.done
	return e.resp, e.body, e.at.Sub(u.start)
}

// clientFrom is client(false) connecting from another loopback address:
// another client to nginx.
func (n *nginxSite) clientFrom(from string) *http.Client {
	c := n.client(false)
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c.Transport.(*http.Transport).DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, port, _ := net.SplitHostPort(addr); host == siteHost {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
		return dialer.DialContext(ctx, network, addr)
	}
	return c
}

// nginxServesTheExport exports the published release for a plain static
// host (`freightsite release export`, as docs/build-and-hosting.md says)
// and asks nginx for every file of the release at its address (a page
// at its route, a language's 404 page as the answer to a missing page):
// nginx serves each exported file and refuses each other one.
func nginxServesTheExport(t *testing.T, n *nginxSite) {
	t.Helper()
	export := filepath.Join(t.TempDir(), "public")
	if out, err := exec.Command(binary, "release", "export", export, "--out", filepath.Join(n.dir, "dist")).CombinedOutput(); err != nil {
		t.Fatalf("release export: %v\n%s", err, out)
	}
	release := must(filepath.EvalSymlinks(filepath.Join(n.dir, "dist")))
	c := n.client(false)
	files, exported := 0, 0
	filepath.WalkDir(release, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		name := filepath.ToSlash(must(filepath.Rel(release, p)))
		_, statErr := os.Stat(filepath.Join(export, filepath.FromSlash(name)))
		public := statErr == nil
		if public {
			exported++
		}
		addr, status := "/"+name, http.StatusOK
		switch {
		case path.Base(name) == "404.html":
			addr, status = "/"+path.Dir(name)+"/no-such-page", http.StatusNotFound
			addr = strings.Replace(addr, "/./", "/", 1)
		case path.Base(name) == "index.html":
			addr = strings.TrimSuffix("/"+path.Dir(name), "/.")
			if addr == "" {
				addr = "/"
			}
		}
		resp, body := do(t, c, must(http.NewRequest(http.MethodGet, n.url(addr), nil)))
		served := resp.StatusCode == status && (status == http.StatusOK || body == string(must(os.ReadFile(p))))
		switch {
		case public && !served:
			t.Errorf("%s is exported, but nginx answers %s with %d", name, addr, resp.StatusCode)
		case !public && resp.StatusCode == http.StatusOK:
			t.Errorf("nginx serves %s at %s, but the export leaves it out", name, addr)
		}
		return nil
	})
	if exported == 0 || exported == files {
		t.Errorf("%d of the release's %d files exported", exported, files)
	}
	t.Logf("%d of the release's %d files exported, each served by nginx; the others refused", exported, files)
}
