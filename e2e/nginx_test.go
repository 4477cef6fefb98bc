package e2e

import (
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestNginx runs real nginx with deploy/nginx.conf in front of the built
// site and a `freightsite api` process, as README's static-host set-up
// describes, and checks pages, 404s per language, the news items' pages,
// caching, compression, headers and API calls with anti-forgery tokens.
func TestNginx(t *testing.T) {
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("nginx is missing and CI is set (apt-get install -y nginx)")
		}
		t.Skip("nginx is missing (apt-get install -y nginx)")
	}
	dir := t.TempDir()
	apiAddr, siteAddr := freeAddr(t), freeAddr(t)

	api := exec.Command(binary, "api", "--addr", apiAddr, "--db", filepath.Join(dir, "api.db"), "--trusted-proxy", "127.0.0.1")
	apiLog, _ := os.Create(filepath.Join(dir, "api.log"))
	api.Stdout, api.Stderr = apiLog, apiLog
	if err := api.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Process.Signal(os.Interrupt); api.Wait() })
	waitHealthy(t, "http://"+apiAddr+"/healthz")

	conf := nginxConfig(t, dir, apiAddr, siteAddr)
	cmd := exec.Command(nginx, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	out, _ := os.Create(filepath.Join(dir, "nginx.out"))
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	site := "http://" + siteAddr
	waitHealthy(t, site+"/healthz")

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string, header ...string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, site+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
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

	t.Run("pages", func(t *testing.T) {
		for path, lang := range map[string]string{"/": "en", "/faq": "en", "/hi": "hi", "/ma/contact-us": "mr", "/news-feed": "en"} {
			resp, body := get(path)
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<html lang="`+lang+`"`) {
				t.Errorf("%s: %d, lang %s expected", path, resp.StatusCode, lang)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self' 'sha256-") {
				t.Errorf("%s: CSP %q", path, csp)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") != "no-cache" {
				t.Errorf("%s: headers %v", path, resp.Header)
			}
		}
		if resp, _ := get("/faq/?x=1"); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/faq?x=1" {
			t.Errorf("/faq/: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
	})

	t.Run("redirects stay on the site", func(t *testing.T) {
		// nginx refuses a path that decodes to NUL or climbs above the
		// root with 400 while parsing the request line.
		checkRedirects(t, siteAddr, "/%00/evil.example/", "/.%2E/.%2E/faq/")
	})

	t.Run("refusals carry the build's headers", func(t *testing.T) {
		want := buildHeaders(t)
		for _, path := range []string{"/", "/faq", "/hi/contact-us", "/ma/news-feed/news/1", "/favicon.svg", "/no-such-page"} {
			for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
				req, _ := http.NewRequest(method, site+path, strings.NewReader("x=1"))
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
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
		checkRanges(t, site)
	})

	t.Run("404 per language", func(t *testing.T) {
		for path, heading := range map[string]string{"/no-such-page": "Page Not Found", "/hi/no-such-page": "पृष्ठ नहीं मिला", "/ma/no/such": "पान सापडले नाही", "/index.html": "Page Not Found", "/routes.json": "Page Not Found", "/.nginx-headers.conf": "Page Not Found", "/faq/index.html": "Page Not Found", "/hi/faq/index.html.gz": "पृष्ठ नहीं मिला"} {
			resp, body := get(path)
			if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, heading) {
				t.Errorf("%s: status %d, want 404 with %q", path, resp.StatusCode, heading)
			}
			if resp.Header.Get("Content-Security-Policy") == "" {
				t.Errorf("%s: the 404 page has no CSP", path)
			}
		}
	})

	t.Run("assets: immutable and precompressed", func(t *testing.T) {
		_, home := get("/")
		css := regexp.MustCompile(`href="(/assets/build/[^"]+\.css)"`).FindStringSubmatch(home)
		if css == nil {
			t.Fatal("no stylesheet on /")
		}
		resp, body := get(css[1], "Accept-Encoding", "gzip")
		if resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(body, "--brand") {
			t.Errorf("%s: %v", css[1], resp.Header)
		}
		if resp, _ := get("/assets/i18n/hi.json"); resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("translations: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
	})

	t.Run("API calls with anti-forgery tokens", func(t *testing.T) {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		resp, err := c.Get(site + "/api/xsrf-token")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var token string
		for _, k := range resp.Cookies() {
			if k.Name == "XSRF-TOKEN" {
				token = k.Value
			}
		}
		if token == "" {
			t.Fatal("no XSRF-TOKEN cookie through nginx")
		}
		post := func(withToken bool) int {
			req, _ := http.NewRequest(http.MethodPost, site+"/api/contact_us", strings.NewReader(`{"name":"Nginx Test","email":"n@example.in","subject":"via nginx"}`))
			req.Header.Set("Content-Type", "application/json")
			if withToken {
				req.Header.Set("X-XSRF-TOKEN", token)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		if s := post(false); s != http.StatusForbidden {
			t.Errorf("without the header: %d, want 403", s)
		}
		if s := post(true); s != http.StatusOK {
			t.Errorf("with the token: %d, want 200", s)
		}
		if resp, body := get("/states?country_id=IN"); resp.StatusCode != 200 || !strings.Contains(body, "Maharashtra") {
			t.Errorf("/states: %d", resp.StatusCode)
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

	t.Run("news detail and the contact form in the browser", func(t *testing.T) {
		p := newPage(t)
		p.do(chromedp.Navigate(site + "/hi/news-feed/news/2"))
		p.waitFor(`document.querySelector('.news-article[aria-busy=false]') !== null`)
		if got := eval[string](p, `document.querySelector('h1').textContent`); !strings.Contains(got, "E-way bill") {
			t.Errorf("news detail through nginx: heading %q", got)
		}
		// A static page gets no cookie from nginx: the form's first post
		// fetches it from the API.
		p = newPage(t)
		p.do(chromedp.Navigate(site + "/contact-us"))
		p.waitLoaded()
		if eval[bool](p, `document.cookie.includes('XSRF-TOKEN')`) {
			t.Error("the static page already carries a cookie: the test would not show the API GET")
		}
		p.fill("Name", "Browser Via Nginx")
		p.fill("Email", "b@example.in")
		p.fill("Subject", "through nginx")
		p.click(`form button[type=submit]`)
		p.waitFor(`document.querySelector('.notice.ok') !== null`)
		p.expectNoConsoleErrors()
	})
	t.Run("sign-in calls and the members' page reach the API", func(t *testing.T) {
		for path, login := range map[string]string{"/secure/entry": "/login", "/hi/secure/entry": "/hi/login", "/ma/secure/entry": "/ma/login"} {
			if resp, _ := get(path); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != login {
				t.Errorf("%s without a session: %d to %q, want the API's redirect to %s", path, resp.StatusCode, resp.Header.Get("Location"), login)
			}
		}
		for _, path := range []string{"/auth", "/token/generate-token"} {
			resp, err := client.Post(site+path, "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Errorf("POST %s without a token: %d %q, want the API's 403", path, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		}
		if resp, body := get("/assets/site.css"); resp.StatusCode != http.StatusOK || !strings.Contains(body, "--brand") {
			t.Errorf("/assets/site.css for the members' page: %d", resp.StatusCode)
		}
	})
	if t.Failed() {
		log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		t.Logf("nginx error log:\n%s", log)
	}
}

// nginxConfig writes a main nginx.conf running deploy/nginx.conf with its
// ADAPT lines pointed at this test's folders and ports.
func nginxConfig(t *testing.T, dir, apiAddr, siteAddr string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "deploy", "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	server := string(raw)
	for old, repl := range map[string]string{
		"server 127.0.0.1:8081;":                    "server " + apiAddr + ";",
		"listen 80;":                                "listen " + siteAddr + ";",
		"root /srv/freightsite/dist;":               "root " + filepath.Join(work, "dist") + ";",
		"/srv/freightsite/dist/.nginx-headers.conf": filepath.Join(work, "dist", ".nginx-headers.conf"),
		"/srv/freightsite/deploy/nginx-proxy.conf":  filepath.Join(root, "deploy", "nginx-proxy.conf"),
	} {
		if !strings.Contains(server, old) {
			t.Fatalf("deploy/nginx.conf no longer contains %q: update this test", old)
		}
		server = strings.ReplaceAll(server, old, repl)
	}
	for _, line := range strings.Split(server, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") && strings.Contains(line, "/srv/freightsite") {
			t.Fatalf("deploy/nginx.conf has an ADAPT path this test does not replace: %s", line)
		}
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // the workers must read the test's private folders
	}
	main := fmt.Sprintf(`%s
daemon off;
worker_processes 1;
pid %[2]s/nginx.pid;
events { worker_connections 256; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    client_body_temp_path %[2]s/body;
    proxy_temp_path %[2]s/proxy;
    fastcgi_temp_path %[2]s/fastcgi;
    uwsgi_temp_path %[2]s/uwsgi;
    scgi_temp_path %[2]s/scgi;
%[3]s
}
`, user, dir, server)
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
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
