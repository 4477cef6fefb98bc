package store

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
)

// Tx is one write of Store.Write: its methods run in the transaction of
// the write's batch, inside the write's own savepoint, so the writes a
// handler composes (an Idempotency-Key's claim, its rows, its mail, the
// answer kept with the key) commit together or not at all.
type Tx struct {
	tx *sql.Tx
	pg bool
}

// forUpdate is the clause that locks the rows a query reads until the
// transaction ends. SQLite has no row locks: its write lock, taken at
// BEGIN, holds the whole file for the transaction already.
func (tx *Tx) forUpdate() string {
	if tx.pg {
		return " FOR UPDATE"
	}
	return ""
}

// ErrDuplicate is a write refused because a row with the same key exists
// (a login id registered already).
var ErrDuplicate = errors.New("a row with this key exists")

// duplicate turns a unique-constraint violation into ErrDuplicate.
func duplicate(err error) error {
	if isDuplicate(err) {
		return errors.Join(ErrDuplicate, err)
	}
	return err
}

// ErrSpent is a single-use token (a password-reset link, an auction
// change's link) that is unknown, used or expired.
var ErrSpent = errors.New("the token is unknown, used or expired")

// TokenHash is how a secret token is kept: the hex SHA-256 of its value,
// so a copy of the database holds no working link or session.
func TokenHash(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])
}

// nullID is id as a column value: NULL for 0.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}
