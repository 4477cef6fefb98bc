package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// addTenant registers a tenant in the running server's database with the
// real command.
func addTenant(t *testing.T, args ...string) {
	t.Helper()
	var img bytes.Buffer
	m := image.NewRGBA(image.Rect(0, 0, 24, 24))
	for i := range 24 {
		m.Set(i, i, color.RGBA{200, 30, 30, 255})
	}
	png.Encode(&img, m)
	logo := writeFile(t, "logo.png", img.Bytes())
	cmd := exec.Command(binary, append([]string{"tenant", "add", "--db", work + "/site.db", "--logo", logo}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tenant add: %v\n%s", err, out)
	}
}

// tenantURL is a path of the test server on a host name of the
// .freight.test zone (Chromium resolves it to the server, see harness).
func tenantURL(host, path string) string {
	u, _ := url.Parse(baseURL)
	return "http://" + host + ":" + u.Port() + path
}

const scriptsLoaded = `performance.getEntriesByType('resource').filter(e => e.name.endsWith('.js')).length`

// TestTenantLogo: on a tenant's subdomain the boot script loads the client,
// the nav's TenantLogo island shows the tenant's logo and theme and caches
// them in session storage (SPEC §3); the next page uses the cache. Hosts
// without a tenant subdomain load no script at all on static pages.
func TestTenantLogo(t *testing.T) {
	addTenant(t, "acme", "--name", "Acme Roadways", "--theme", "green")
	addTenant(t, "plainco", "--name", "Plain Co", "--default")

	p := newPage(t)
	p.do(chromedp.Navigate(tenantURL("acme.freight.test", "/faq")))
	p.waitFor(`document.querySelector('[data-lazy-island=TenantLogo] img.brand-logo') !== null`)
	if got := eval[string](p, `document.querySelector('.brand-logo').src`); !strings.HasPrefix(got, "data:image/png;base64,") {
		t.Errorf("logo src %q", got)
	}
	cache := eval[map[string]string](p, `({logo: sessionStorage.getItem('Logoacme'), theme: sessionStorage.getItem('Themeacme'), def: sessionStorage.getItem('Defaultacme')})`)
	if !strings.HasPrefix(cache["logo"], "image/png:") || cache["theme"] != "green" || cache["def"] != "N" {
		t.Errorf("session storage %v", cache)
	}
	if got := eval[string](p, `document.documentElement.dataset.theme`); got != "green" {
		t.Errorf("theme %q", got)
	}
	p.expectAccessible()
	// Chromium warns that it ignores COOP on plain-HTTP test hosts.
	p.expectNoConsoleErrorsExcept("Cross-Origin-Opener-Policy")

	// The next page takes the logo from session storage, not the API.
	p.do(chromedp.Navigate(tenantURL("acme.freight.test", "/values")))
	p.waitFor(`document.querySelector('.brand-logo') !== null`)
	if n := eval[int](p, `performance.getEntriesByType('resource').filter(e => e.name.includes('/api/logo')).length`); n != 0 {
		t.Errorf("%d logo calls with the logo cached", n)
	}

	// A tenant whose default flag is Y keeps the network's brand.
	q := newPage(t)
	q.do(chromedp.Navigate(tenantURL("plainco.freight.test", "/faq")))
	q.waitFor(`sessionStorage.getItem('Defaultplainco') === 'Y'`)
	if eval[bool](q, `document.querySelector('.brand-logo') !== null`) {
		t.Error("a default-flagged tenant's logo replaced the network's")
	}

	// An unknown subdomain keeps the brand and logs no error.
	r := newPage(t)
	r.do(chromedp.Navigate(tenantURL("nobody.freight.test", "/faq")))
	r.waitFor(`sessionStorage.getItem('Logonobody') === ''`)
	if eval[bool](r, `document.querySelector('.brand-logo') !== null`) {
		t.Error("an unknown tenant changed the logo")
	}

	// www and two-label hosts are the network itself: no script at all.
	for _, host := range []string{"www.freight.test", "freight.test"} {
		w := newPage(t)
		w.do(chromedp.Navigate(tenantURL(host, "/faq")))
		w.waitLoaded()
		if n := eval[int](w, scriptsLoaded); n != 0 {
			t.Errorf("%s/faq loaded %d scripts", host, n)
		}
	}
}
