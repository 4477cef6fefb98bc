package e2e

import (
	"bytes"
	"fmt"
	"freightsite/internal/store"
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

// requested counts the requests the page made whose URL contains part.
func requested(p *page, part string) int {
	return eval[int](p, fmt.Sprintf(`performance.getEntriesByType('resource').filter(e => e.name.includes(%q)).length`, part))
}

// brand is what the navigation's brand link shows, and the logo's alt
// text (its accessible name, and the link's).
type brand struct {
	Text, Alt string
}

func brandOf(p *page) brand {
	return eval[brand](p, `({Text: `+brandLink+`.textContent, Alt: byRole('img', undefined, `+brandLink+`)?.alt ?? ''})`)
}

// The brand as a visitor meets it: the first link of the page's banner
// (its header), and the logo image of the banner, which only a tenant's
// host shows (the network's mark is decoration, hidden from assistive
// technology).
const (
	brandLink = `byRole('link', undefined, byRole('banner'))`
	brandLogo = `byRole('img', undefined, byRole('banner'))`
)

// TestTenantLogo: on a tenant's subdomain the boot script loads the client,
// the nav's TenantLogo island shows the tenant's logo, named by the
// tenant's name in place of the network's, applies its theme and caches it
// all in session storage (SPEC §3); the next page uses the cache.
func TestTenantLogo(t *testing.T) {
	addTenant(t, "acme", "--name", "Acme Roadways", "--theme", "green")
	addTenant(t, "plainco", "--name", "Plain Co", "--default")

	p := newPage(t)
	p.do(chromedp.Navigate(tenantURL("acme.freight.test", "/faq")))
	p.waitFor(`document.querySelector('[data-lazy-island=TenantLogo]').contains(` + brandLogo + `)`)
	if got := eval[string](p, brandLogo+`.src`); !strings.HasPrefix(got, "data:image/png;base64,") {
		t.Errorf("logo src %q", got)
	}
	if got := brandOf(p); got.Text != "Acme Roadways" || got.Alt != "Acme Roadways" {
		t.Errorf("brand on a tenant's host: %+v, want the tenant's name as text and as the logo's accessible name", got)
	}
	cache := eval[map[string]string](p, `({logo: sessionStorage.getItem('Logoacme'), theme: sessionStorage.getItem('Themeacme'), def: sessionStorage.getItem('Defaultacme')})`)
	if !strings.HasPrefix(cache["logo"], "image/png:") || cache["theme"] != "green" || cache["def"] != "N" {
		t.Errorf("session storage %v", cache)
	}
	p.expectAccessible()
	// Chromium warns that it ignores COOP on plain-HTTP test hosts.
	p.expectNoConsoleErrorsExcept("Cross-Origin-Opener-Policy")

	// The next page takes the logo from session storage, not the API.
	p.do(chromedp.Navigate(tenantURL("acme.freight.test", "/values")))
	p.waitFor(brandLogo + ` !== null`)
	if n := requested(p, "/api/logo"); n != 0 {
		t.Errorf("%d logo calls with the logo cached", n)
	}
	if got := brandOf(p); got.Alt != "Acme Roadways" {
		t.Errorf("brand from the cache: %+v", got)
	}

	// A tenant whose default flag is Y keeps the network's brand.
	q := newPage(t)
	q.do(chromedp.Navigate(tenantURL("plainco.freight.test", "/faq")))
	q.waitFor(`sessionStorage.getItem('Defaultplainco') === 'Y'`)
	if eval[bool](q, brandLogo+` !== null`) {
		t.Error("a default-flagged tenant's logo replaced the network's")
	}

	// An unknown subdomain keeps the brand and logs no error.
	r := newPage(t)
	r.do(chromedp.Navigate(tenantURL("nobody.freight.test", "/faq")))
	r.waitFor(`sessionStorage.getItem('Logonobody') === ''`)
	if eval[bool](r, brandLogo+` !== null`) {
		t.Error("an unknown tenant changed the logo")
	}
	r.expectNoConsoleErrorsExcept("Cross-Origin-Opener-Policy")
}

// TestTenantThemes: every theme visibly changes the header (the current
// language's chip, the header's fill of the brand colour) and the
// buttons, measured as computed colours once the colours' transitions
// have ended (a theme that sets data-theme and leaves the colours as
// they were fails).
func TestTenantThemes(t *testing.T) {
	// The current language's link of the header's language selector, and
	// the FAQ's Unsubscribe button.
	colours := `[getComputedStyle(allByRole('link', undefined, ` + byRole("navigation", text(t, "en", "nav.language")) + `).find(a => a.hasAttribute('aria-current'))).backgroundColor, getComputedStyle(` + byRole("button", text(t, "en", "faq.unsubscribe")) + `).backgroundColor]`
	d := newPage(t)
	d.open("/faq")
	def := eval[[]string](d, colours)
	// seen[i] maps a colour of the header (0) or the buttons (1) to the
	// theme that had it.
	seen := []map[string]string{{def[0]: "the default"}, {def[1]: "the default"}}
	for _, theme := range store.Themes[1:] {
		label := "theme-" + theme
		addTenant(t, label, "--name", "Theme "+theme, "--theme", theme)
		p := newPage(t)
		p.do(chromedp.Navigate(tenantURL(label+".freight.test", "/faq")))
		p.waitFor(brandLogo + ` !== null && document.getAnimations().length === 0`)
		got := eval[[]string](p, colours)
		for i, what := range []string{"header", "button"} {
			if other, ok := seen[i][got[i]]; ok {
				t.Errorf("theme %s: %s background %s, the same as %s", theme, what, got[i], other)
			}
			seen[i][got[i]] = "theme " + theme
		}
		p.expectAccessible() // white text on every theme's brand colour keeps its contrast
	}
}

// TestTenantOnTheNetworksOwnHost: a host with fewer than three labels, and
// www, look the alias up as www (SPEC §1). Without a www tenant the first
// page asks once, loads no React, and the next page loads no script at
// all; with one, its name and logo show, the logo from the tenant of the
// first label (the logo call's label).
func TestTenantOnTheNetworksOwnHost(t *testing.T) {
	for _, host := range []string{"www.freight.test", "freight.test"} {
		p := newPage(t)
		p.do(chromedp.Navigate(tenantURL(host, "/faq")))
		p.waitFor(`sessionStorage.getItem('Logowww') === ''`)
		if n := requested(p, "/rest/creditor/alias/www"); n != 1 {
			t.Errorf("%s: %d alias lookups for www, want 1", host, n)
		}
		if n := requested(p, "/TenantLogo-"); n != 0 {
			t.Errorf("%s: React loaded on a host without a tenant", host)
		}
		p.expectNoConsoleErrorsExcept("Cross-Origin-Opener-Policy")
		p.do(chromedp.Navigate(tenantURL(host, "/values")))
		p.waitLoaded()
		if n := eval[int](p, scriptsLoaded); n != 0 {
			t.Errorf("%s/values loaded %d scripts once the tab knew the host has no tenant", host, n)
		}
	}

	addTenant(t, "www", "--name", "Main Street Haulage", "--theme", "teal")
	addTenant(t, "freight", "--name", "Freight Test Carriers", "--theme", "maroon")
	for host, theme := range map[string]string{"www.freight.test": "teal", "freight.test": "maroon"} {
		p := newPage(t)
		p.do(chromedp.Navigate(tenantURL(host, "/faq")))
		p.waitFor(brandLogo + ` !== null`)
		if got := brandOf(p); got.Text != "Main Street Haulage" || got.Alt != "Main Street Haulage" {
			t.Errorf("%s: brand %+v, want the www tenant's name", host, got)
		}
		if got := eval[string](p, `document.documentElement.dataset.theme`); got != theme {
			t.Errorf("%s: theme %q, want %q (the logo call's tenant)", host, got, theme)
		}
	}
}
