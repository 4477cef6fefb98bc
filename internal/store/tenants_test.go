package store

import (
	"context"
	"strings"
	"testing"

	"freightsite/internal/pgtest"
)

var (
	pngBytes = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 64)...)
	exeBytes = append([]byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff"), make([]byte, 64)...)
)

func TestAddTenantRefusesBadInput(t *testing.T) {
	s := openTest(t, pgtest.TestDB(t, "api.db"))
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
		if err := s.AddTenant(context.Background(), c.tenant); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	if n := count(t, s, `SELECT COUNT(*) FROM tenants`); n != 0 {
		t.Errorf("%d tenants stored", n)
	}
}
