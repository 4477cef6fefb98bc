package generator

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Build tests of the account pages: the captcha is loaded lazily and
// reported in its own column, the CSP stays strict without reCAPTCHA and
// opens to Google's origins only with a site key, and the API's members'
// page finds the stylesheet under a stable name.

func pageWeight(t *testing.T, url string) PageWeight {
	t.Helper()
	i := slices.IndexFunc(testReport.Pages, func(p PageWeight) bool { return p.URL == url })
	if i < 0 {
		t.Fatalf("no page %s in the report", url)
	}
	return testReport.Pages[i]
}

// TestCaptchaIsLoadedLazily: registration, forgot password and login
// (which shows the check only when sign-in steps up) load the widget on
// first use, never with the page.
func TestCaptchaIsLoadedLazily(t *testing.T) {
	for _, url := range []string{"/registration", "/hi/forget-password", "/ma/login"} {
		p := pageWeight(t, url)
		if p.Lazy < 10*1024 {
			t.Errorf("%s: %d bytes of lazily loaded code, want the captcha widget (over 10 KB)", url, p.Lazy)
		}
		for _, s := range p.scripts {
			if strings.Contains(s, "altcha") || strings.Contains(s, "worker") {
				t.Errorf("%s loads %s at once", url, s)
			}
		}
		for _, want := range []string{"altcha-", "worker-"} {
			if !slices.ContainsFunc(p.lazy, func(s string) bool { return strings.Contains(s, want) && strings.HasSuffix(s, ".js") }) {
				t.Errorf("%s: lazy files %v lack %s*.js", url, p.lazy, want)
			}
		}
		if !slices.ContainsFunc(p.lazy, func(s string) bool { return strings.HasSuffix(s, ".css") }) {
			t.Errorf("%s: lazy files %v lack the widget's stylesheet", url, p.lazy)
		}
	}
	if p := pageWeight(t, "/login"); len(p.Islands) != 1 || p.Islands[0] != "Login" {
		t.Errorf("/login: islands %v, want the Login island alone", p.Islands)
	}
	var buf bytes.Buffer
	testReport.Print(&buf)
	if !regexp.MustCompile(`(?m)^/registration\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[1-9][\d.]+\s+[\d.]+\s+Registration$`).MatchString(buf.String()) || !strings.Contains(buf.String(), "lazy KB") {
		t.Errorf("the report does not show the lazy column:\n%s", buf.String())
	}
}

// TestCaptchaWidgetFilesAreServed: the widget's chunk points its Worker
// and its stylesheet at files of this site (so the CSP needs no blob: or
// inline styles).
func TestCaptchaWidgetFilesAreServed(t *testing.T) {
	p := pageWeight(t, "/registration")
	var chunk string
	for _, f := range p.lazy {
		if strings.Contains(f, "/altcha-") && strings.HasSuffix(f, ".js") {
			chunk = readDist(t, strings.TrimPrefix(f, "/"))
		}
	}
	for _, f := range p.lazy {
		if (strings.Contains(f, "worker-") || strings.HasSuffix(f, ".css")) && !strings.Contains(chunk, `"`+f+`"`) {
			t.Errorf("the widget chunk does not refer to %s", f)
		}
		if _, err := os.Stat(filepath.Join(testDist, filepath.FromSlash(f))); err != nil {
			t.Error(err)
		}
	}
	if strings.Contains(chunk, "<style") {
		t.Error("the widget chunk injects a <style> element, which the CSP blocks")
	}
}

func TestStableStylesheetForTheAPIPages(t *testing.T) {
	css := pageWeight(t, "/").css
	if readDist(t, stableStylesheet) != readDist(t, strings.TrimPrefix(css, "/")) {
		t.Errorf("%s differs from %s", stableStylesheet, css)
	}
}

func TestCSPWithoutRecaptcha(t *testing.T) {
	h := readDist(t, headersFile)
	if strings.Contains(h, "google") || strings.Contains(h, "gstatic") || strings.Contains(h, "blob:") || strings.Contains(h, "unsafe") {
		t.Errorf("the CSP of a build without reCAPTCHA allows more than this site:\n%s", h)
	}
}

// TestRecaptchaBuild: a site key switches the captcha to reCAPTCHA and
// opens the CSP to Google's script and frame origins.
func TestRecaptchaBuild(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	if _, err := Build(Options{Root: "..", Out: out, BaseURL: testBase, Year: 2030, RecaptchaSiteKey: "6LcTESTKEY-site_key"}); err != nil {
		t.Fatal(err)
	}
	h, err := os.ReadFile(filepath.Join(out, headersFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"script-src 'self' 'sha256-", " https://www.google.com/recaptcha/ https://www.gstatic.com/recaptcha/", "frame-src https://www.google.com/recaptcha/ https://recaptcha.google.com/recaptcha/", "style-src 'self';"} {
		if !strings.Contains(string(h), want) {
			t.Errorf("reCAPTCHA build's CSP lacks %q:\n%s", want, h)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(out, "assets", "build", "*.js"))
	found := false
	for _, m := range matches {
		b, _ := os.ReadFile(m)
		found = found || bytes.Contains(b, []byte("6LcTESTKEY-site_key"))
	}
	if !found {
		t.Error("no client script carries the site key")
	}
}
