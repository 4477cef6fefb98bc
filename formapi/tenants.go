package formapi

import (
	"encoding/base64"
	"fmt"
	"freightsite/internal/store"
	"net/http"

	"github.com/gorilla/mux"
)

// Tenants brand the site per host label (SPEC §1): a tenant has a name, a
// logo, a theme and a default flag. The site's own branding is
// prerendered; on a host with a name the site asks the alias lookup with
// the subdomain (acme for acme.example.com, www for example.com) and, when
// that names a tenant, the logo call with the host's first label, and
// swaps in the tenant's name, logo and theme (pages/lib/tenant.ts).

// logoAnswer is GET /api/logo's answer; logo is "media-type:base64", the
// form SPEC's session storage keeps.
type logoAnswer struct {
	Label   string `json:"label"`
	Name    string `json:"name"`
	Logo    string `json:"logo"`
	Theme   string `json:"theme"`
	Default string `json:"default"` // Y or N
}

// noTenant is the answer for a label no tenant has.
func noTenant(label string) error {
	return &httpError{http.StatusNotFound, fmt.Sprintf("no tenant %q", label), "api.errors.notFound"}
}

func checkLabel(label string) error {
	if !store.IsTenantLabel(label) {
		return badRequest("a tenant is named by one host label: letters, digits and hyphens")
	}
	return nil
}

// handleLogo answers GET /api/logo?domain=LABEL.
func handleLogo(s *store.Store) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		q, err := query(r)
		if err != nil {
			return err
		}
		label := q.Get("domain")
		if err := checkLabel(label); err != nil {
			return err
		}
		t, found, err := s.TenantByLabel(r.Context(), label)
		if err != nil {
			return err
		}
		if !found {
			return noTenant(label)
		}
		flag := "N"
		if t.Default {
			flag = "Y"
		}
		cacheable(w, "300")
		writeJSON(w, http.StatusOK, logoAnswer{Label: t.Label, Name: t.Name, Logo: t.LogoType + ":" + base64.StdEncoding.EncodeToString(t.Logo), Theme: t.Theme, Default: flag})
		return nil
	})
}

// handleCreditorAlias answers GET /rest/creditor/alias/{alias} with the
// tenant's name as text: the site reads it to know the host is a tenant's
// before it asks for the logo. An alias without a tenant is the usual
// answer (the first page of a visit to the network's own www host asks),
// so it is an empty 204, not an error a browser would log, and not cached:
// a tenant added later counts at once.
func handleCreditorAlias(s *store.Store) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		alias := mux.Vars(r)["alias"]
		if err := checkLabel(alias); err != nil {
			return err
		}
		t, found, err := s.TenantByLabel(r.Context(), alias)
		if err != nil {
			return err
		}
		if !found {
			w.WriteHeader(http.StatusNoContent)
			return nil
		}
		cacheable(w, "300")
		writeText(w, http.StatusOK, t.Name)
		return nil
	})
}
