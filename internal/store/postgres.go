package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/mattn/go-sqlite3"
)

// The store speaks one SQL to both engines: the SQL in this package is
// written for SQLite (placeholders ? and ?N) in the subset PostgreSQL
// shares (ON CONFLICT, RETURNING, COALESCE, text timestamps), and the
// PostgreSQL connections rewrite the placeholders. What differs beyond
// that lives here (how a database is named and opened, which errors mean
// "unavailable" or "duplicate"), in the row locks taken on PostgreSQL
// only (Tx.forUpdate), and in the migrations that have a file per engine.

// IsPostgres reports whether --db names a PostgreSQL database
// (postgres:// or postgresql:// URL) rather than a SQLite file.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// DisplayName is db (a file or a URL) as it may appear in messages and
// logs: a URL without its password.
func DisplayName(db string) string {
	if !IsPostgres(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "the PostgreSQL database (unparsable URL)"
	}
	return u.Redacted()
}

// Describe names the database for the server's start-up line: its
// driver, sqlite or postgresql, and, never with a password, the SQLite
// file's absolute path or PostgreSQL's user@host:port/database (as pgx
// reads the URL, with the PG* variables of the environment).
func Describe(db string) (driver, name string) {
	if !IsPostgres(db) {
		if abs, err := filepath.Abs(db); err == nil {
			db = abs
		}
		return "sqlite", db
	}
	cfg, err := pgx.ParseConfig(db)
	if err != nil {
		return "postgresql", DisplayName(db)
	}
	return "postgresql", fmt.Sprintf("%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
}

// openPostgres opens a pool of connections to the database of the URL;
// readOnly makes every transaction of the pool read-only (as SQLite's
// query_only does for the reading pool).
func openPostgres(db string, readOnly bool) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(db)
	if err != nil {
		return nil, errors.New("the PostgreSQL URL is malformed: " + strings.ReplaceAll(err.Error(), db, DisplayName(db)))
	}
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	return sql.OpenDB(pgConnector{stdlib.GetConnector(*cfg)}), nil
}

// pgConnector hands out pgx connections that accept this package's
// SQLite placeholders.
type pgConnector struct{ driver.Connector }

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return pgConn{conn.(*stdlib.Conn)}, nil
}

// pgConn is a pgx connection that rebinds the placeholders of each
// statement; every other driver method is pgx's own.
type pgConn struct{ *stdlib.Conn }

func (c pgConn) Prepare(query string) (driver.Stmt, error) { return c.Conn.Prepare(rebind(query)) }

func (c pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

// rebind turns SQLite placeholders into PostgreSQL ones: ?N becomes $N
// and a bare ? the next number after the highest used so far (SQLite's
// rule). Quoted strings and names and -- comments are copied as they
// are. (So PostgreSQL's operators spelled with ?, such as jsonb's, cannot
// be written in this package's SQL.)
func rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 8)
	highest := 0
	for i := 0; i < len(query); i++ {
		switch c := query[i]; c {
		case '\'', '"':
			end := strings.IndexByte(query[i+1:], c)
			if end < 0 {
				b.WriteString(query[i:])
				return b.String()
			}
			b.WriteString(query[i : i+end+2])
			i += end + 1
		case '-':
			if !strings.HasPrefix(query[i:], "--") {
				b.WriteByte(c)
				continue
			}
			end := strings.IndexByte(query[i:], '\n')
			if end < 0 {
				b.WriteString(query[i:])
				return b.String()
			}
			b.WriteString(query[i : i+end+1])
			i += end
		case '?':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			n := highest + 1
			if j > i+1 {
				n, _ = strconv.Atoi(query[i+1 : j])
			}
			highest = max(highest, n)
			b.WriteString("$" + strconv.Itoa(n))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// isDuplicate reports whether err is a unique-constraint violation.
func isDuplicate(err error) bool {
	var lite sqlite3.Error
	if errors.As(err, &lite) {
		return lite.ExtendedCode == sqlite3.ErrConstraintUnique || lite.ExtendedCode == sqlite3.ErrConstraintPrimaryKey
	}
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505"
}

// isMissingTable reports whether err is a query of a table that does not
// exist.
func isMissingTable(err error) bool {
	var lite sqlite3.Error
	if errors.As(err, &lite) {
		return lite.Code == sqlite3.ErrError && strings.HasPrefix(lite.Error(), "no such table")
	}
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "42P01"
}

// pgErrorKind is errorKind of a PostgreSQL error (notTheDatabase for any
// other error).
func pgErrorKind(err error) int {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch class := pg.Code[:2]; {
		case class == "40" || pg.Code == "55P03" || pg.Code == "57014":
			return kindBusy
		case class == "08" || class == "57" || pg.Code == "53300": // 53300: too many connections
			return kindConnection
		case class == "53" || class == "58" || class == "XX" || pg.Code == "25006":
			return kindStorage
		case class == "23":
			return kindConstraint
		}
		return kindOther
	}
	if pgUnavailable(err) || errors.Is(err, context.DeadlineExceeded) {
		return kindConnection
	}
	return notTheDatabase
}

// pgUnavailable reports whether a PostgreSQL error means the database
// cannot serve now (no connection, shutting down, out of resources,
// read-only, a deadlock or serialization failure between instances: worth
// trying again) rather than that the statement was wrong.
func pgUnavailable(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		class := pg.Code[:2]
		return class == "08" || class == "40" || class == "53" || class == "57" || class == "58" || pg.Code == "25006"
	}
	var conn *pgconn.ConnectError
	return errors.As(err, &conn) || pgconn.SafeToRetry(err) || errors.Is(err, driver.ErrBadConn) || pgconn.Timeout(err)
}
