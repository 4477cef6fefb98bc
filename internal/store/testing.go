package store

import (
	"context"
	"database/sql"
)

// Tests of the packages that use the store check what a call stored, and
// set up rows no call makes, with SQL of their own through these; the
// code they test reaches the database through the typed methods only
// (TestNoSQLOutsideTheStore keeps it so).

// TestQueryRow runs a query of a test on the reading pool.
func (s *Store) TestQueryRow(query string, args ...any) *sql.Row {
	return s.read.QueryRow(query, args...)
}

// TestQuery runs a query of a test on the reading pool.
func (s *Store) TestQuery(query string, args ...any) (*sql.Rows, error) {
	return s.read.Query(query, args...)
}

// TestExec runs statements of a test as one write of the writer.
func (s *Store) TestExec(ctx context.Context, query string, args ...any) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(query, args...)
		return err
	})
}
