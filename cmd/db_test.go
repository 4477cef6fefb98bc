package cmd

import (
	"freightsite/internal/store"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDBBackup: db backup copies the database and says the copy passed
// the integrity check; the refusals name what is wrong.
func TestDBBackup(t *testing.T) {
	dir := t.TempDir()
	db, backup := filepath.Join(dir, "live.db"), filepath.Join(dir, "backup.db")
	s, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	code, stdout, stderr := execute(t, nil, "db", "backup", backup, "--db", db)
	if code != 0 || !strings.Contains(stdout, "integrity check: ok") {
		t.Fatalf("db backup: exit %d, %q %q", code, stdout, stderr)
	}
	if _, err := os.Stat(backup); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  map[string]string
		args []string
		code int
		want string
	}{
		{nil, []string{backup, "--db", db}, 1, "already exists"},
		{nil, []string{filepath.Join(dir, "b.db"), "--db", "postgres://site:secret@db.example/freight"}, 2, "--db names a PostgreSQL database: back it up with pg_dump"},
		{map[string]string{"FREIGHTSITE_DB": "postgresql://db.example/freight"}, []string{filepath.Join(dir, "b.db")}, 2, "FREIGHTSITE_DB names a PostgreSQL database"},
	} {
		code, _, stderr := execute(t, c.env, append([]string{"db", "backup"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "secret") {
			t.Errorf("db backup %v: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}
