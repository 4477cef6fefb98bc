package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"

	"freightsite/data"
	"freightsite/internal/pgtest"
)

// The store's tests run against SQLite, and with FORMAPI_DB=postgres
// against PostgreSQL (pgtest).
func TestMain(m *testing.M) { pgtest.RunTests(m) }

func openTest(t testing.TB, db string) *Store {
	t.Helper()
	s, err := Open(db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// count returns a number from the database.
func count(t testing.TB, s *Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := s.read.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

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

// TestCommitOutcomes: which failed commits may have been applied (so the
// API answers "unknown") and which were refused (nothing saved).
func TestCommitOutcomes(t *testing.T) {
	for _, c := range []struct {
		name    string
		err     error
		unknown bool
	}{
		{"SQLite: an I/O error writing the commit", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrFsync}, true},
		{"SQLite: the disk is full", sqlite3.Error{Code: sqlite3.ErrFull}, false},
		{"SQLite: the file is read-only", sqlite3.Error{Code: sqlite3.ErrReadonly}, false},
		{"SQLite: locked too long", sqlite3.Error{Code: sqlite3.ErrBusy}, false},
		{"PostgreSQL: the session ended (terminated, shut down)", &pgconn.PgError{Severity: "FATAL", Code: "57P01"}, true},
		{"PostgreSQL: a serialization failure, answered", &pgconn.PgError{Severity: "ERROR", Code: "40001"}, false},
		{"PostgreSQL: read-only, answered", &pgconn.PgError{Severity: "ERROR", Code: "25006"}, false},
		{"the connection lost after COMMIT was sent", fmt.Errorf("commit: %w", io.ErrUnexpectedEOF), true},
		{"a connection reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, true},
		{"the transaction was over already", sql.ErrTxDone, false},
	} {
		if got := commitUnknown(c.err); got != c.unknown {
			t.Errorf("%s: unknown=%v, want %v", c.name, got, c.unknown)
		}
	}
}

// TestErrorKinds: how the database errors are counted for the metrics,
// one row per rule; what is not the database's is not counted.
func TestErrorKinds(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		kind string // "": not counted
	}{
		{"SQLite: locked too long", sqlite3.Error{Code: sqlite3.ErrBusy}, "busy"},
		{"SQLite: a table locked", sqlite3.Error{Code: sqlite3.ErrLocked}, "busy"},
		{"SQLite: the disk is full", sqlite3.Error{Code: sqlite3.ErrFull}, "storage"},
		{"SQLite: the file is read-only, as storageError passes it on", storageError(sqlite3.Error{Code: sqlite3.ErrReadonly}), "storage"},
		{"SQLite: the file cannot be opened, as the writer's reopening says it", fmt.Errorf("opening x.db: %w", storageError(sqlite3.Error{Code: sqlite3.ErrCantOpen})), "storage"},
		{"SQLite: an I/O error", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrFsync}, "storage"},
		{"SQLite: a check constraint", sqlite3.Error{Code: sqlite3.ErrConstraint, ExtendedCode: sqlite3.ErrConstraintCheck}, "constraint"},
		{"SQLite: no such table", sqlite3.Error{Code: sqlite3.ErrError}, "other"},
		{"PostgreSQL: a deadlock", &pgconn.PgError{Code: "40P01"}, "busy"},
		{"PostgreSQL: a serialization failure", &pgconn.PgError{Code: "40001"}, "busy"},
		{"PostgreSQL: a lock not available", &pgconn.PgError{Code: "55P03"}, "busy"},
		{"PostgreSQL: shutting down", &pgconn.PgError{Severity: "FATAL", Code: "57P01"}, "connection"},
		{"PostgreSQL: too many connections", &pgconn.PgError{Severity: "FATAL", Code: "53300"}, "connection"},
		{"PostgreSQL: the connection failed", &pgconn.PgError{Code: "08006"}, "connection"},
		{"PostgreSQL: a connection refused", &pgconn.ConnectError{}, "connection"},
		{"PostgreSQL: no connection, as the writer's reopening says it", fmt.Errorf("opening postgres://db: %w", storageError(&pgconn.ConnectError{})), "connection"},
		{"PostgreSQL: a read-only standby", &pgconn.PgError{Code: "25006"}, "storage"},
		{"PostgreSQL: the disk full", &pgconn.PgError{Code: "53100"}, "storage"},
		{"PostgreSQL: a unique violation the code does not expect", &pgconn.PgError{Code: "23505"}, "constraint"},
		{"PostgreSQL: an undefined table", &pgconn.PgError{Code: "42P01"}, "other"},
		{"a commit whose answer never came", fmt.Errorf("%w: %v", ErrOutcomeUnknown, io.ErrUnexpectedEOF), "outcome_unknown"},
		{"the write queue full", fmt.Errorf("%w: write queue full", ErrUnavailable), "busy"},
		{"a login id taken: an answer", duplicate(&pgconn.PgError{Code: "23505"}), ""},
		{"no such row: an answer", sql.ErrNoRows, ""},
		{"the client went away", fmt.Errorf("reading: %w", context.Canceled), ""},
		{"a token spent: the caller's", ErrSpent, ""},
		{"no error", nil, ""},
	} {
		got := ""
		if k := errorKind(c.err); k != notTheDatabase {
			got = ErrorKinds[k]
		}
		if got != c.kind {
			t.Errorf("%s: kind %q, want %q", c.name, got, c.kind)
		}
	}
}

// TestDescribeNamesTheDatabaseWithoutAPassword: the server's start-up
// line names the driver and the file or user@host:port/database.
func TestDescribeNamesTheDatabaseWithoutAPassword(t *testing.T) {
	for _, c := range []struct{ db, driver, name string }{
		{"postgresql://freightsite:s3cret@db.internal/freightsite?sslmode=verify-full", "postgresql", "freightsite@db.internal:5432/freightsite"},
		{"postgres://app:p%40ss@10.0.0.5:6432/freight", "postgresql", "app@10.0.0.5:6432/freight"},
		{"/var/lib/freightsite/freightsite.db", "sqlite", "/var/lib/freightsite/freightsite.db"},
		{"freightsite.db", "sqlite", filepath.Join(must(os.Getwd()), "freightsite.db")},
	} {
		driver, name := Describe(c.db)
		if driver != c.driver || name != c.name {
			t.Errorf("Describe(%q) = %q, %q; want %q, %q", c.db, driver, name, c.driver, c.name)
		}
	}
}

func TestMigrationsAreAppliedOnceAndVersioned(t *testing.T) {
	db := pgtest.TestDB(t, "api.db")
	first := openTest(t, db)
	applied := count(t, first, `SELECT COUNT(*) FROM schema_migrations`)
	if applied == 0 {
		t.Fatal("no migration recorded")
	}
	first.Close()
	// Opening the file again applies nothing twice.
	s := openTest(t, db)
	if n := count(t, s, `SELECT COUNT(*) FROM schema_migrations`); n != applied {
		t.Errorf("reopening recorded %d migrations, had %d", n, applied)
	}
	if s.pg {
		return
	}
	var mode, fk string
	s.read.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	if mode != "wal" {
		t.Errorf("journal_mode %q, want wal", mode)
	}
	s.read.QueryRow(`PRAGMA foreign_keys`).Scan(&fk)
	if fk != "1" {
		t.Errorf("foreign_keys %q on readers", fk)
	}
}

// TestMigrationsBelowTheNewestAreApplied: a migration is applied when the
// file has not recorded it, even if a higher version is recorded (two
// branches adding migrations side by side can be merged in any order).
func TestMigrationsBelowTheNewestAreApplied(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ahead.db")
	w, err := openWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`)
	w.Exec(`INSERT INTO schema_migrations VALUES (99999, '2026-01-01T00:00:00.000Z')`)
	w.Close()
	s := openTest(t, path)
	list, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM schema_migrations WHERE version < 99999`); n != len(list) {
		t.Errorf("%d of %d migrations applied below a higher recorded version", n, len(list))
	}
}

func TestSecretIsGeneratedOnceAndKept(t *testing.T) {
	s := openTest(t, pgtest.TestDB(t, "api.db"))
	s1, _ := s.Secret(context.Background(), "")
	s2, _ := s.Secret(context.Background(), "")
	if len(s1) < 32 || string(s1) != string(s2) {
		t.Errorf("secret %q then %q: want one kept value of 32+ characters", s1, s2)
	}
	if _, err := s.Secret(context.Background(), "short"); err == nil {
		t.Error("a configured secret under 32 characters was accepted")
	}
}

// TestGroupCommitIsolatesFailures: one failing write in a batch does not
// undo the others.
func TestGroupCommitIsolatesFailures(t *testing.T) {
	s := openTest(t, pgtest.TestDB(t, "api.db"))
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := range errs {
		wg.Go(func() {
			errs[i] = s.write(context.Background(), func(tx *sql.Tx) error {
				if i%10 == 0 {
					_, err := tx.Exec(`INSERT INTO no_such_table VALUES (1)`)
					return err
				}
				_, err := tx.Exec(`INSERT INTO settings (key, value) VALUES (?, 'v')`, "k"+strconv.Itoa(i))
				return err
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if (i%10 == 0) != (err != nil) {
			t.Errorf("write %d: err %v", i, err)
		}
	}
	if n := count(t, s, `SELECT COUNT(*) FROM settings WHERE key LIKE 'k%'`); n != 45 {
		t.Errorf("%d rows, want 45", n)
	}
}

// TestStoresOpenedTogetherMigrateOnce: servers started at the same time on
// a new database (two instances on PostgreSQL) take turns migrating:
// every one opens it, each migration is recorded once and the news seed
// is loaded once.
func TestStoresOpenedTogetherMigrateOnce(t *testing.T) {
	db := pgtest.TestDB(t, "together.db")
	const n = 4
	stores := make([]*Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = Open(db, Options{}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	var recorded, distinct, news int
	stores[0].read.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT version) FROM schema_migrations`).Scan(&recorded, &distinct)
	stores[0].read.QueryRow(`SELECT COUNT(*) FROM news`).Scan(&news)
	if recorded == 0 || recorded != distinct {
		t.Errorf("%d migrations recorded, %d distinct", recorded, distinct)
	}
	if seed := data.Count("news.json"); news != seed {
		t.Errorf("%d news items after %d stores opened together, want the seed's %d", news, n, seed)
	}
}

func TestNewsSeedIsLoadedOnce(t *testing.T) {
	db := pgtest.TestDB(t, "api.db")
	s := openTest(t, db)
	n := count(t, s, `SELECT COUNT(*) FROM news`)
	if n < 8 || count(t, s, `SELECT COUNT(*) FROM news WHERE redirect_to_source AND news_url != ''`) < 1 {
		t.Fatalf("seed: %d items, want 8 with one that redirects to its source", n)
	}
	if err := s.TestExec(context.Background(), `DELETE FROM news`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	again := openTest(t, db)
	if after := count(t, again, `SELECT COUNT(*) FROM news`); after != 0 {
		t.Errorf("the seed came back after every item was deleted: %d items", after)
	}
}

// TestDatabaseFilesArePrivate: the database, its WAL and shared-memory
// files are created readable by their owner only; an existing file that
// others can read is named in a warning.
func TestDatabaseFilesArePrivate(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "private.db")
	s, err := Open(db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Secret(context.Background(), ""); err != nil { // a write: the WAL exists
		t.Fatal(err)
	}
	for _, f := range []string{db, db + "-wal", db + "-shm"} {
		info, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", filepath.Base(f), info.Mode().Perm())
		}
	}
	s.Close()

	os.Chmod(db, 0o644)
	var log strings.Builder
	s, err = Open(db, Options{Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if !strings.Contains(log.String(), "can be read by other users") {
		t.Errorf("no warning for a readable database: %q", log.String())
	}
}
