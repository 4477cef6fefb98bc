package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The schema's history is one ordered list of migrations, the files of
// migrations/, numbered for both engines alike: NNN_name.sql is a
// migration whose SQL both run; NNN_name.sqlite.sql with
// NNN_name.postgres.sql is one whose SQL differs between them. A file that
// holds only comments is a migration with nothing to do on its engine,
// recorded all the same. A database records each version it has had in
// schema_migrations, so every migration runs once on it, whichever
// instance opens it first.

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations is the list of migrations/.
func migrations() ([]migration, error) {
	return migrationList(must(fs.Sub(migrationFiles, "migrations")))
}

// migration is one step of the list: its SQL on each engine.
type migration struct {
	version          int
	name             string
	sqlite, postgres string
}

// sql is the migration's SQL on the engine (pg: PostgreSQL).
func (m migration) sql(pg bool) string {
	if pg {
		return m.postgres
	}
	return m.sqlite
}

// migrationList reads the migrations of fsys (a folder of .sql files named
// as above) in the order of their versions.
func migrationList(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	byVersion := map[int]*migration{}
	for _, file := range names {
		stem := strings.TrimSuffix(file, ".sql")
		engine := ""
		if e := path.Ext(stem); e == ".sqlite" || e == ".postgres" {
			engine, stem = e[1:], strings.TrimSuffix(stem, e)
		}
		number, _, _ := strings.Cut(stem, "_")
		version, err := strconv.Atoi(number)
		if err != nil || version <= 0 {
			return nil, fmt.Errorf("migration %s: the name must start with its version number", file)
		}
		body, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		m := byVersion[version]
		if m == nil {
			m = &migration{version: version, name: stem}
			byVersion[version] = m
		}
		if m.name != stem {
			return nil, fmt.Errorf("migrations %s and %s have the same version number", m.name, stem)
		}
		for _, e := range []string{"sqlite", "postgres"} {
			if engine != "" && engine != e {
				continue
			}
			at := &m.sqlite
			if e == "postgres" {
				at = &m.postgres
			}
			if *at != "" {
				return nil, fmt.Errorf("migration %s has two files for %s", stem, e)
			}
			*at = string(body)
		}
	}
	var list []migration
	for _, m := range byVersion {
		if m.sqlite == "" || m.postgres == "" {
			return nil, fmt.Errorf("migration %s has no SQL for one engine: give it NNN_name.sql, or both NNN_name.sqlite.sql and NNN_name.postgres.sql", m.name)
		}
		list = append(list, *m)
	}
	slices.SortFunc(list, func(a, b migration) int { return a.version - b.version })
	return list, nil
}

// hasStatements reports whether SQL holds more than comments.
func hasStatements(sql string) bool {
	for line := range strings.Lines(sql) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "--") {
			return true
		}
	}
	return false
}

// migrationLock is the PostgreSQL advisory lock taken while migrating, so
// instances started together migrate one after the other.
const migrationLock = 0x66726569676874 // "freight"

// migrate applies every migration the database has not recorded in
// schema_migrations, in the order of their version numbers, each in its
// own transaction, then loads the news seed. Missing versions are applied
// even below the newest recorded one, so migrations written side by side
// on branches merged in any order all run. On PostgreSQL an advisory lock
// held meanwhile makes instances that start together wait for each other.
func migrate(w *sql.DB, pg bool) error {
	list, err := migrations()
	if err != nil {
		return err
	}
	ctx := context.Background()
	db, err := w.Conn(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if pg {
		if _, err := db.ExecContext(ctx, `SELECT pg_advisory_lock(?)`, migrationLock); err != nil {
			return err
		}
		defer db.ExecContext(ctx, `SELECT pg_advisory_unlock(?)`, migrationLock)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return err
	}
	applied := map[int]bool{}
	rows, err := db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		applied[v] = true
	}
	rows.Close()
	for _, m := range list {
		if applied[m.version] {
			continue
		}
		if err := apply(ctx, db, m, pg); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	if err := seedNews(ctx, db); err != nil {
		return fmt.Errorf("loading the news seed: %w", err)
	}
	return nil
}

// apply runs one migration and records it, in one transaction.
func apply(ctx context.Context, db *sql.Conn, m migration, pg bool) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Another process opening the database at the same time may have
	// applied it meanwhile: SQLite's write lock, taken at BEGIN, puts
	// them in turn, as the advisory lock does on PostgreSQL.
	var done int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&done); err != nil || done > 0 {
		return err
	}
	if body := m.sql(pg); hasStatements(body) {
		if _, err := tx.Exec(body); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, m.version, timestamp(time.Now())); err != nil {
		return err
	}
	return tx.Commit()
}

// must is v, for an error that only a broken build can give.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
