package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// backupPages is how many pages one step of a backup copies; between
// steps the backup notices a cancelled context.
var backupPages = 1024

// Backup writes a consistent copy of the SQLite database at src to the
// new file dst (readable by its owner only) with SQLite's online backup
// API, while a server may be writing to src, then checks the copy with
// PRAGMA integrity_check. The copy is one snapshot: the source connection
// holds a read transaction from the first step to the last, so every
// step copies the same state and a commit made meanwhile neither shows
// in the copy nor restarts it. The store keeps its file in WAL mode,
// where a reader never blocks a writer: the server goes on committing
// while the copy is taken (only the WAL's checkpoint waits until the
// backup ends). On any failure dst is removed.
func Backup(ctx context.Context, src, dst string) (err error) {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("the database %s: %w", src, err)
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists: name a new file (a backup never overwrites one)", dst)
	}
	if err != nil {
		return fmt.Errorf("creating the backup: %w", err)
	}
	f.Close()
	defer func() {
		if err != nil {
			for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
				os.Remove(dst + suffix)
			}
		}
	}()
	if err := copyDatabase(ctx, src, dst); err != nil {
		return err
	}
	return checkIntegrity(ctx, dst)
}

// copyDatabase copies src into the empty file dst, one snapshot of src.
func copyDatabase(ctx context.Context, src, dst string) error {
	srcDB, err := sql.Open("sqlite3", dsn(src, "mode=ro&_busy_timeout=5000"))
	if err != nil {
		return err
	}
	defer srcDB.Close()
	dstDB, err := sql.Open("sqlite3", dsn(dst, "_busy_timeout=5000"))
	if err != nil {
		return err
	}
	defer dstDB.Close()
	srcConn, err := srcDB.Conn(ctx)
	if err != nil {
		return sourceError(src, err)
	}
	defer srcConn.Close()
	dstConn, err := dstDB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("opening %s: %w", dst, err)
	}
	defer dstConn.Close()

	// The read transaction that fixes the snapshot; its first read also
	// tells whether src is a freightsite database at all.
	if _, err := srcConn.ExecContext(ctx, `BEGIN`); err != nil {
		return fmt.Errorf("reading %s: %w", src, err)
	}
	defer srcConn.ExecContext(context.Background(), `ROLLBACK`)
	var migrations int
	if err := srcConn.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&migrations); err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return fmt.Errorf("%s is an SQLite database but not freightsite's (it has no schema_migrations table)", src)
		}
		return sourceError(src, err)
	}
	return dstConn.Raw(func(d any) error {
		return srcConn.Raw(func(s any) error {
			b, err := d.(*sqlite3.SQLiteConn).Backup("main", s.(*sqlite3.SQLiteConn), "main")
			if err != nil {
				return fmt.Errorf("starting the backup: %w", err)
			}
			for {
				done, err := b.Step(backupPages)
				if err != nil {
					b.Finish()
					return fmt.Errorf("copying %s: %w", src, err)
				}
				if done {
					return b.Finish()
				}
				if err := ctx.Err(); err != nil {
					b.Finish()
					return err
				}
			}
		})
	})
}

// sourceError names a source that is no database.
func sourceError(src string, err error) error {
	var e sqlite3.Error
	if errors.As(err, &e) && e.Code == sqlite3.ErrNotADB {
		return fmt.Errorf("%s is not an SQLite database", src)
	}
	return fmt.Errorf("reading %s: %w", src, err)
}

// checkIntegrity runs PRAGMA integrity_check on the database at path.
func checkIntegrity(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite3", dsn(path, "_busy_timeout=5000"))
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("checking the backup: %w", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("checking the backup: %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("the backup fails the integrity check (removed): %s", strings.Join(problems, "; "))
	}
	return nil
}
