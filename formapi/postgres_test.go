package formapi

import "testing"

func TestRebind(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`INSERT INTO t (a, b) VALUES (?, ?)`, `INSERT INTO t (a, b) VALUES ($1, $2)`},
		{`SELECT ?1 WHERE a = ?2 OR b = ?2 LIMIT ?3`, `SELECT $1 WHERE a = $2 OR b = $2 LIMIT $3`},
		{`SELECT ?2, ?`, `SELECT $2, $3`}, // SQLite: a bare ? follows the highest number so far
		{`SELECT '?', "a?" FROM t WHERE x = ? AND y LIKE 'it''s ?'`, `SELECT '?', "a?" FROM t WHERE x = $1 AND y LIKE 'it''s ?'`},
		{"-- who's there?\nSELECT ? - 1", "-- who's there?\nSELECT $1 - 1"},
		{`SELECT 'unterminated ?`, `SELECT 'unterminated ?`},
	} {
		if got := rebind(c.in); got != c.want {
			t.Errorf("rebind(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDisplayNameHidesThePassword(t *testing.T) {
	if got := DisplayName("postgres://app:s3cret@db.internal:5432/freight?sslmode=require"); got != "postgres://app:xxxxx@db.internal:5432/freight?sslmode=require" {
		t.Errorf("DisplayName: %q", got)
	}
	if got := DisplayName("/srv/freightsite/freightsite.db"); got != "/srv/freightsite/freightsite.db" {
		t.Errorf("DisplayName of a file: %q", got)
	}
}
