package store

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"
)

// The counts of the sign-in throttle (formapi/throttle.go), kept here so
// that every instance sharing the database counts the same failures and
// honours the same lockouts. A key names what is counted: an account, an
// address, or an account from an address.

// Failures are the failed sign-ins counted under one key.
type Failures struct {
	Count    int       // failures since the last lockout or success
	Last     time.Time // the latest failure (zero: none)
	Until    time.Time // refused before this (zero: never)
	Lockouts int       // lockouts in a row
}

func scanFailures(row interface{ Scan(...any) error }, key *string) (Failures, error) {
	var f Failures
	var last, until string
	err := row.Scan(key, &f.Count, &last, &until, &f.Lockouts)
	f.Last, f.Until = parseTimestamp(last), parseTimestamp(until)
	return f, err
}

// optionalTimestamp is t as stored, and empty text for the zero time.
func optionalTimestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return timestamp(t)
}

// SignInFailures reads the failures kept under keys (absent keys have
// none).
func (s *Store) SignInFailures(ctx context.Context, keys ...string) (map[string]Failures, error) {
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	rows, err := s.read.QueryContext(ctx, `SELECT key, failures, last_at, locked_until, lockouts FROM sign_in_failures
		WHERE key IN (?`+strings.Repeat(", ?", len(keys)-1)+`)`, args...)
	if err != nil {
		return nil, s.fault(err)
	}
	defer rows.Close()
	out := map[string]Failures{}
	for rows.Next() {
		var key string
		f, err := scanFailures(rows, &key)
		if err != nil {
			return nil, err
		}
		out[key] = f
	}
	return out, s.fault(rows.Err())
}

// LockSignInFailures reads the failures under key, making its row if
// there is none, and locks the row (on PostgreSQL) until the write ends,
// so counts made by several requests or instances at once all count.
func (tx *Tx) LockSignInFailures(key string) (Failures, error) {
	if _, err := tx.tx.Exec(`INSERT INTO sign_in_failures (key) VALUES (?) ON CONFLICT (key) DO NOTHING`, key); err != nil {
		return Failures{}, err
	}
	var k string
	return scanFailures(tx.tx.QueryRow(`SELECT key, failures, last_at, locked_until, lockouts FROM sign_in_failures WHERE key = ?`+tx.forUpdate(), key), &k)
}

// PutSignInFailures replaces the failures under key (a row
// LockSignInFailures made).
func (tx *Tx) PutSignInFailures(key string, f Failures) error {
	_, err := tx.tx.Exec(`UPDATE sign_in_failures SET failures = ?, last_at = ?, locked_until = ?, lockouts = ? WHERE key = ?`,
		f.Count, timestamp(f.Last), optionalTimestamp(f.Until), f.Lockouts, key)
	return err
}

// DropSignInFailures forgets the failures under the keys.
func (tx *Tx) DropSignInFailures(keys ...string) error {
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	_, err := tx.tx.Exec(`DELETE FROM sign_in_failures WHERE key IN (?`+strings.Repeat(", ?", len(keys)-1)+`)`, args...)
	return err
}

// DropSignInFailuresByPrefix forgets the failures under key and under
// every key that starts with prefix.
func (tx *Tx) DropSignInFailuresByPrefix(key, prefix string) error {
	// substr counts characters (on both engines), not bytes.
	_, err := tx.tx.Exec(`DELETE FROM sign_in_failures WHERE key = ? OR substr(key, 1, ?) = ?`, key, utf8.RuneCountInString(prefix), prefix)
	return err
}

// RestoreSignInLockout puts back the count, lockout and lockouts of key
// as they were before a lockout set to end at until, unless a later
// lockout has replaced that one.
func (tx *Tx) RestoreSignInLockout(key string, count int, before Failures, until time.Time) error {
	_, err := tx.tx.Exec(`UPDATE sign_in_failures SET failures = ?, locked_until = ?, lockouts = ? WHERE key = ? AND locked_until = ?`,
		count, optionalTimestamp(before.Until), before.Lockouts, key, timestamp(until))
	return err
}

// TakeBackSignInFailure takes one failure off the count of key.
func (tx *Tx) TakeBackSignInFailure(key string) error {
	_, err := tx.tx.Exec(`UPDATE sign_in_failures SET failures = failures - 1 WHERE key = ? AND failures > 0`, key)
	return err
}

// DropStaleSignInFailures drops the rows whose latest failure came before
// lastBefore and whose lockout is over at now.
func (tx *Tx) DropStaleSignInFailures(lastBefore, now time.Time) error {
	_, err := tx.tx.Exec(`DELETE FROM sign_in_failures WHERE last_at < ? AND locked_until <= ?`, timestamp(lastBefore), timestamp(now))
	return err
}
