package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"freightsite/internal/plaintext"
)

// Tenants brand the site per host label (SPEC §1): a tenant has a name, a
// logo, a theme and a default flag.

// Tenant is one tenant as `freightsite tenant add` stores it.
type Tenant struct {
	Label    string // host label: acme for acme.example.com; www for www.example.com and example.com
	Name     string
	LogoType string // media type, found from the image's content
	Logo     []byte
	Theme    string // one of Themes
	Default  bool   // Y: the tenant shows the network's default branding
}

// Themes are the colour themes a tenant may choose (CSS in
// pages/styles/tenant.css); "" is the site's own.
var Themes = []string{"", "green", "maroon", "teal", "indigo"}

// maxLogo bounds a logo: it travels in session storage as base64.
const maxLogo = 100 << 10

var labelPattern = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)

// IsTenantLabel reports whether s (any case) is a label a tenant may have:
// one host label.
func IsTenantLabel(s string) bool { return labelPattern.MatchString(strings.ToLower(s)) }

// logoTypes are the image types a logo may be (never SVG, which can carry
// script).
var logoTypes = []string{"image/png", "image/gif", "image/jpeg", "image/webp"}

// AddTenant stores a tenant, replacing one with the same label.
func (s *Store) AddTenant(ctx context.Context, t Tenant) error {
	t.Label = strings.ToLower(strings.TrimSpace(t.Label))
	t.Name = strings.TrimSpace(t.Name)
	nameErr := plaintext.CheckLine(t.Name)
	switch {
	case !labelPattern.MatchString(t.Label):
		return fmt.Errorf("label %q: want one host label (letters, digits, hyphens)", t.Label)
	case t.Name == "" || len(t.Name) > 100:
		return fmt.Errorf("name: want 1 to 100 characters")
	case nameErr != nil:
		return fmt.Errorf("name: %w", nameErr)
	case !slices.Contains(Themes, t.Theme):
		return fmt.Errorf("theme %q: want one of %s", t.Theme, strings.Join(Themes[1:], ", "))
	case len(t.Logo) == 0 || len(t.Logo) > maxLogo:
		return fmt.Errorf("logo: want an image of at most %d KB, got %d bytes", maxLogo>>10, len(t.Logo))
	}
	t.LogoType = http.DetectContentType(t.Logo)
	if !slices.Contains(logoTypes, t.LogoType) {
		return fmt.Errorf("logo: the file is %s; want PNG, GIF, JPEG or WebP", t.LogoType)
	}
	flag := "N"
	if t.Default {
		flag = "Y"
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO tenants (label, name, logo_type, logo, theme, is_default) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (label) DO UPDATE SET name = excluded.name, logo_type = excluded.logo_type, logo = excluded.logo, theme = excluded.theme, is_default = excluded.is_default`,
			t.Label, t.Name, t.LogoType, t.Logo, t.Theme, flag)
		return err
	})
}

// Tenants lists every tenant by label.
func (s *Store) Tenants(ctx context.Context) ([]Tenant, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT label, name, logo_type, logo, theme, is_default FROM tenants ORDER BY label`)
	if err != nil {
		return nil, s.fault(err)
	}
	defer rows.Close()
	var out []Tenant
	for rows.Next() {
		var t Tenant
		var flag string
		if err := rows.Scan(&t.Label, &t.Name, &t.LogoType, &t.Logo, &t.Theme, &flag); err != nil {
			return nil, err
		}
		t.Default = flag == "Y"
		out = append(out, t)
	}
	return out, s.fault(rows.Err())
}

// TenantByLabel finds the tenant of a label (any case).
func (s *Store) TenantByLabel(ctx context.Context, label string) (Tenant, bool, error) {
	var t Tenant
	var flag string
	err := s.read.QueryRowContext(ctx, `SELECT label, name, logo_type, logo, theme, is_default FROM tenants WHERE label = ?`, strings.ToLower(label)).
		Scan(&t.Label, &t.Name, &t.LogoType, &t.Logo, &t.Theme, &flag)
	if errors.Is(err, sql.ErrNoRows) {
		return t, false, nil
	}
	t.Default = flag == "Y"
	return t, err == nil, s.fault(err)
}
