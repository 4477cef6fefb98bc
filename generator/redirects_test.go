package generator

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"freightsite/data"
)

// netlify answers a path the way Netlify reads _redirects: a file that
// exists (x, x.html or x/index.html) shadows the rules; otherwise the
// first rule whose source matches (":name" one segment, a trailing "*"
// the rest) rewrites (200), proxies (an absolute target) or answers a
// page with its status (404).
func netlify(t *testing.T, dist, rules, p string) (target string, status int) {
	t.Helper()
	if f := existing(dist, p); f != "" {
		return f, 200
	}
	for _, line := range strings.Split(rules, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) != 3 {
			t.Fatalf("_redirects line %q: want source, target and status", line)
		}
		src, dst, code := fields[0], fields[1], fields[2]
		splat, ok := matchRule(src, p)
		if !ok {
			continue
		}
		dst = strings.ReplaceAll(dst, ":splat", splat)
		if strings.HasPrefix(dst, "https://") {
			return dst, 200
		}
		f := existing(dist, dst)
		if f == "" {
			t.Errorf("rule %q for %s points at %s, which is no file", line, p, dst)
		}
		if code == "404" {
			return f, 404
		}
		return f, 200
	}
	return "404.html", 404
}

func matchRule(src, p string) (splat string, ok bool) {
	if pre, found := strings.CutSuffix(src, "*"); found {
		return strings.TrimPrefix(p, pre), strings.HasPrefix(p, pre)
	}
	ss, ps := strings.Split(src, "/"), strings.Split(p, "/")
	if len(ss) != len(ps) {
		return "", false
	}
	for i := range ss {
		if ss[i] != ps[i] && !(strings.HasPrefix(ss[i], ":") && ps[i] != "") {
			return "", false
		}
	}
	return "", true
}

// existing is the file a static host serves for p, "" if none.
func existing(dist, p string) string {
	name := strings.Trim(p, "/")
	for _, f := range []string{name, name + ".html", path.Join(name, "index.html")} {
		if info, err := os.Stat(filepath.Join(dist, filepath.FromSlash(f))); err == nil && !info.IsDir() {
			return f
		}
	}
	return ""
}

// TestRedirectsForStaticHosts: on a host reading _redirects (Netlify),
// an unknown news item answers its language's 404 page, a missing Hindi or
// Marathi page that language's 404 page, existing pages themselves, and
// the API's paths go to the API when the build names its origin.
func TestRedirectsForStaticHosts(t *testing.T) {
	rules := readDist(t, redirectsFile)
	for _, c := range []struct {
		path, want string
		status     int
	}{
		{"/news-feed/news/12", "404.html", 404},
		{"/hi/news-feed/news/12", "hi/404.html", 404},
		{"/ma/news-feed/news/abc", "ma/404.html", 404},
		{"/hi/faq", "hi/faq/index.html", 200},
		{"/hi/no-such-page", "hi/404.html", 404},
		{"/ma/no/such/page", "ma/404.html", 404},
		{"/no-such-page", "404.html", 404},
		{"/news-feed/news/12/more", "404.html", 404},
		{"/api/news", "404.html", 404}, // no --api-origin: no proxy rules
	} {
		got, status := netlify(t, testDist, rules, c.path)
		if got != c.want || status != c.status {
			t.Errorf("%s: %s %d, want %s %d", c.path, got, status, c.want, c.status)
		}
	}

	langs := data.Site().Languages
	withAPI := string(redirects(langs, "https://api.freight.example/", []string{"/api/", "/countries"}))
	for p, want := range map[string]string{
		"/api/news":              "https://api.freight.example/api/news",
		"/api/captcha/challenge": "https://api.freight.example/api/captcha/challenge",
		"/countries":             "https://api.freight.example/countries",
	} {
		if got, status := netlify(t, testDist, withAPI, p); got != want || status != 200 {
			t.Errorf("%s with an API origin: %s %d, want a proxy to %s", p, got, status, want)
		}
	}
	if n := strings.Count(withAPI, "\n"); n > 100 {
		t.Errorf("%d rules: Cloudflare takes at most 100 dynamic ones", n)
	}
}

func TestBuildRefusesAnAPIOriginWithAPath(t *testing.T) {
	_, err := Build(Options{Root: "..", Out: filepath.Join(t.TempDir(), "d"), APIOrigin: "https://api.example.com/v1"})
	if err == nil || !strings.Contains(err.Error(), "API origin") {
		t.Errorf("err = %v", err)
	}
}
