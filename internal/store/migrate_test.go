package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"freightsite/internal/pgtest"
)

// testdata/legacy holds the migrations as they were when each engine
// had a history of its own (SQLite's in legacy/, PostgreSQL's, whose 001
// made everything up to 900 at once, in legacy/postgres/): databases made
// by them must open with the one list and keep what they have.
//
//go:embed testdata/legacy/*.sql testdata/legacy/postgres/*.sql
var legacyFiles embed.FS

// legacyAppliedAt marks the rows of schema_migrations a legacy database
// recorded, so a test can tell them from rows the store adds.
const legacyAppliedAt = "2020-01-01T00:00:00.000Z"

// legacyDatabase makes a database with the legacy migrations of its
// engine up to version upTo, as the store applied them then (each file
// in order, its version recorded), with a row in some tables, its seed
// loaded once and its news deleted since.
func legacyDatabase(t *testing.T, db string, upTo int) []int {
	t.Helper()
	w, err := openWriter(db)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	dir := "testdata/legacy"
	if IsPostgres(db) {
		dir += "/postgres"
	}
	names, _ := fs.Glob(legacyFiles, dir+"/*.sql")
	slices.Sort(names)
	if _, err := w.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	var versions []int
	for _, name := range names {
		version, _ := strconv.Atoi(strings.SplitN(filepath.Base(name), "_", 2)[0])
		if version > upTo {
			continue
		}
		body, _ := legacyFiles.ReadFile(name)
		if _, err := w.Exec(string(body)); err != nil {
			t.Fatalf("legacy %s: %v", name, err)
		}
		if _, err := w.Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, version, legacyAppliedAt); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, version)
	}
	for _, q := range []string{
		`INSERT INTO contact_messages (created_at, name, email, phone, subject, message) VALUES ('2020-01-01T00:00:00.000Z', 'Asha', 'asha@example.in', '', 'Kept', 'From before')`,
		`INSERT INTO settings (key, value) VALUES ('xsrf_secret', 'a secret kept from before, 32+ characters long')`,
		`INSERT INTO settings (key, value) VALUES ('news_seeded', '2020-01-01T00:00:00.000Z')`, // its news were deleted since
		`INSERT INTO users (email, created_at) VALUES ('ravi@carriers.example', '2020-01-01T00:00:00.000Z')`,
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return versions
}

// schema describes a database's tables, columns, indexes, triggers and
// constraints, for comparing two databases.
func schema(t *testing.T, s *Store) string {
	t.Helper()
	queries := []string{`SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`}
	if s.pg {
		queries = []string{
			`SELECT table_name, column_name, data_type, is_nullable, COALESCE(column_default, ''), COALESCE(collation_name, ''), is_identity FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2`,
			`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1`,
			`SELECT trigger_name, event_manipulation, event_object_table, action_statement FROM information_schema.triggers ORDER BY 1, 2, 3`,
			`SELECT conrelid::regclass::text, pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`,
			`SELECT collname, collprovider::text, collisdeterministic::text FROM pg_collation WHERE collnamespace = 'public'::regnamespace ORDER BY 1`,
		}
	}
	var b strings.Builder
	for _, q := range queries {
		rows, err := s.read.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			values := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range values {
				ptrs[i] = &values[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range values {
				b.WriteString(v.String + " | ")
			}
			b.WriteString("\n")
		}
		rows.Close()
		b.WriteString("--\n")
	}
	return b.String()
}

// TestLegacyDatabasesJoinTheOneList: a database made by the migrations of
// either engine's own history, whole or up to an older version, opens
// with the one list: the versions it recorded run no more (their rows
// keep their time), the rest are applied, its rows are kept, and its
// schema is a new database's.
func TestLegacyDatabasesJoinTheOneList(t *testing.T) {
	list, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	fresh := schema(t, openTest(t, pgtest.TestDB(t, "fresh.db")))
	for _, upTo := range []int{976, 960} {
		t.Run(fmt.Sprintf("up to %d", upTo), func(t *testing.T) {
			db := pgtest.TestDB(t, "legacy.db")
			had := legacyDatabase(t, db, upTo)
			s := openTest(t, db)
			recorded := map[int]string{}
			rows, err := s.read.Query(`SELECT version, applied_at FROM schema_migrations`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var v int
				var at string
				rows.Scan(&v, &at)
				recorded[v] = at
			}
			rows.Close()
			for _, v := range had {
				if recorded[v] != legacyAppliedAt {
					t.Errorf("version %d, recorded before, has applied_at %q: it ran again", v, recorded[v])
				}
			}
			for _, m := range list {
				if recorded[m.version] == "" {
					t.Errorf("migration %s is not recorded", m.name)
				}
			}
			if len(recorded) != len(list) {
				t.Errorf("%d versions recorded, the list has %d", len(recorded), len(list))
			}
			if got := schema(t, s); got != fresh {
				t.Errorf("the schema differs from a new database's:\n%s\nwant\n%s", got, fresh)
			}
			if n := count(t, s, `SELECT COUNT(*) FROM contact_messages WHERE subject = 'Kept'`); n != 1 {
				t.Errorf("%d of the contact messages kept from before", n)
			}
			if secret, err := s.Secret(context.Background(), ""); err != nil || string(secret) != "a secret kept from before, 32+ characters long" {
				t.Errorf("the secret kept from before became %q (%v)", secret, err)
			}
			if taken, err := s.LoginTaken(context.Background(), "ravi@carriers.example"); err != nil || !taken {
				t.Errorf("the account kept from before: taken %v, %v", taken, err)
			}
			if n := count(t, s, `SELECT COUNT(*) FROM news`); n != 0 {
				t.Errorf("%d news items: the seed came back to a database that had it once", n)
			}
		})
	}
}

// TestMigrationListRules: how migrations/ names its files.
func TestMigrationListRules(t *testing.T) {
	file := func(body string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(body)} }
	list, err := migrationList(fstest.MapFS{
		"002_both.sql":           file("CREATE TABLE b (x);"),
		"001_first.sqlite.sql":   file("CREATE TABLE a (x BLOB);"),
		"001_first.postgres.sql": file("CREATE TABLE a (x BYTEA);"),
		"010_lite.sqlite.sql":    file("ALTER TABLE a RENAME TO c;"),
		"010_lite.postgres.sql":  file("-- Nothing to do on PostgreSQL.\n"),
		"notes.txt":              file("not a migration"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range list {
		got = append(got, fmt.Sprintf("%d %s %q %q %v", m.version, m.name, m.sqlite, m.postgres, hasStatements(m.postgres)))
	}
	want := []string{
		`1 001_first "CREATE TABLE a (x BLOB);" "CREATE TABLE a (x BYTEA);" true`,
		`2 002_both "CREATE TABLE b (x);" "CREATE TABLE b (x);" true`,
		`10 010_lite "ALTER TABLE a RENAME TO c;" "-- Nothing to do on PostgreSQL.\n" false`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("list:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for name, bad := range map[string]fstest.MapFS{
		"no number":              {"first.sql": file("x")},
		"one engine only":        {"001_a.sqlite.sql": file("x")},
		"two names, one version": {"001_a.sql": file("x"), "001_b.sql": file("y")},
		"both and one engine":    {"001_a.sql": file("x"), "001_a.sqlite.sql": file("y")},
	} {
		if _, err := migrationList(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// The list itself keeps the rules, and every engine's SQL is there.
	if _, err := migrations(); err != nil {
		t.Error(err)
	}
}

// TestOutboxKindsMigration: a database from before message kinds gets
// them (notifications carry the visitor's Reply-To, the rest was reset
// mail), "logged" becomes "held", and a notification an opt-out
// suppressed is queued again, since the provider never got it.
func TestOutboxKindsMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := openWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	list, _ := migrations()
	for _, m := range list {
		if m.version > 600 {
			break
		}
		if _, err := old.Exec(m.sqlite); err != nil {
			t.Fatal(err)
		}
		old.Exec(`INSERT INTO schema_migrations VALUES (?, '2026-01-01T00:00:00.000Z')`, m.version)
	}
	at := "2026-01-01T00:00:00.000Z"
	for _, row := range [][]string{
		{"provider@example.com", "ravi@example.in", "Contact form: loads", "suppressed"},
		{"provider@example.com", "sunita@example.in", "Feedback from Sunita", "logged"},
		{"member@example.in", "", "Reset your password", "suppressed"},
		{"member@example.in", "", "Reset your password", "sent"},
	} {
		if _, err := old.Exec(`INSERT INTO outbox (created_at, recipient, reply_to, subject, body, state, attempts, next_attempt_at, done_at) VALUES (?, ?, ?, ?, 'b', ?, 1, ?, ?)`,
			at, row[0], row[1], row[2], row[3], at, at); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	s := openTest(t, path)
	entries, err := s.Outbox(context.Background(), "", 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range entries {
		got = append(got, fmt.Sprintf("%d %s %s", m.ID, m.Kind, m.State))
	}
	want := []string{"4 account sent", "3 account suppressed", "2 notification held", "1 notification pending"}
	if !slices.Equal(got, want) {
		t.Errorf("after the migration: %v, want %v", got, want)
	}
	var done sql.NullString
	s.read.QueryRow(`SELECT done_at FROM outbox WHERE id = 1`).Scan(&done)
	if done.Valid {
		t.Errorf("the re-queued notification keeps done_at %q", done.String)
	}
}
