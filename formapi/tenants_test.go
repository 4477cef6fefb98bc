package formapi

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

func TestTenantLogoAndAlias(t *testing.T) {
	a := newTestAPI(t)
	ctx := context.Background()
	if err := a.store.AddTenant(ctx, Tenant{Label: "Acme", Name: "Acme Roadways", Logo: pngBytes, Theme: "green"}); err != nil {
		t.Fatal(err)
	}
	got := decode[logoAnswer](t, a.get("/api/logo?domain=acme"))
	if got.Label != "acme" || got.Name != "Acme Roadways" || got.Theme != "green" || got.Default != "N" || got.Logo != "image/png:"+base64.StdEncoding.EncodeToString(pngBytes) {
		t.Errorf("logo answer %+v", got)
	}
	resp := a.get("/rest/creditor/alias/acme")
	expectStatus(t, resp, http.StatusOK)
	if ct, body := resp.Header.Get("Content-Type"), bodyText(resp); !strings.HasPrefix(ct, "text/plain") || body != "Acme Roadways" {
		t.Errorf("alias: %s %q", ct, body)
	}
	// Replacing keeps one row and changes the flag.
	if err := a.store.AddTenant(ctx, Tenant{Label: "acme", Name: "Acme Roadways", Logo: gifBytes, Default: true}); err != nil {
		t.Fatal(err)
	}
	if got := decode[logoAnswer](t, a.get("/api/logo?domain=acme")); got.Default != "Y" || !strings.HasPrefix(got.Logo, "image/gif:") {
		t.Errorf("after replacing: %+v", got)
	}
	expectJSONError(t, a.get("/api/logo?domain=nobody"), http.StatusNotFound, `no tenant "nobody"`)
	// An alias without a tenant is an empty answer, not an error: every
	// visit to the network's own host asks for www.
	resp = a.get("/rest/creditor/alias/nobody")
	expectStatus(t, resp, http.StatusNoContent)
	if body := bodyText(resp); body != "" {
		t.Errorf("alias without a tenant answered %q", body)
	}
	expectJSONError(t, a.get("/rest/creditor/alias/a_b"), http.StatusBadRequest, "one host label")
	expectJSONError(t, a.get("/api/logo?domain=a.b"), http.StatusBadRequest, "one host label")
	expectJSONError(t, a.get("/api/logo"), http.StatusBadRequest, "one host label")
}

// TestWwwTenant: www is a label like any other, the one the alias lookup
// uses on www.example.com and on hosts with fewer than three labels.
func TestWwwTenant(t *testing.T) {
	a := newTestAPI(t)
	if err := a.store.AddTenant(context.Background(), Tenant{Label: "www", Name: "Main Street Haulage", Logo: pngBytes}); err != nil {
		t.Fatal(err)
	}
	if body := bodyText(a.get("/rest/creditor/alias/www")); body != "Main Street Haulage" {
		t.Errorf("alias www: %q", body)
	}
}

func TestAddTenantRefusesBadInput(t *testing.T) {
	a := newTestAPI(t)
	for _, c := range []struct {
		name   string
		tenant Tenant
		want   string
	}{
		{"two labels", Tenant{Label: "a.b", Name: "x", Logo: pngBytes}, "one host label"},
		{"no name", Tenant{Label: "acme", Logo: pngBytes}, "name"},
		{"unknown theme", Tenant{Label: "acme", Name: "x", Logo: pngBytes, Theme: "neon"}, "theme"},
		{"an SVG logo", Tenant{Label: "acme", Name: "x", Logo: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)}, "want PNG"},
		{"a program as logo", Tenant{Label: "acme", Name: "x", Logo: exeBytes}, "want PNG"},
		{"a huge logo", Tenant{Label: "acme", Name: "x", Logo: append(pngBytes, make([]byte, maxLogo)...)}, "at most"},
	} {
		if err := a.store.AddTenant(context.Background(), c.tenant); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	if n := a.count(`SELECT COUNT(*) FROM tenants`); n != 0 {
		t.Errorf("%d tenants stored", n)
	}
}
