package formapi

import (
	"context"
	"encoding/base64"
	"freightsite/internal/store"
	"net/http"
	"strings"
	"testing"
)

func TestTenantLogoAndAlias(t *testing.T) {
	a := newTestAPI(t)
	ctx := context.Background()
	if err := a.store.AddTenant(ctx, store.Tenant{Label: "Acme", Name: "Acme Roadways", Logo: pngBytes, Theme: "green"}); err != nil {
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
	if err := a.store.AddTenant(ctx, store.Tenant{Label: "acme", Name: "Acme Roadways", Logo: gifBytes, Default: true}); err != nil {
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
	if err := a.store.AddTenant(context.Background(), store.Tenant{Label: "www", Name: "Main Street Haulage", Logo: pngBytes}); err != nil {
		t.Fatal(err)
	}
	if body := bodyText(a.get("/rest/creditor/alias/www")); body != "Main Street Haulage" {
		t.Errorf("alias www: %q", body)
	}
}
