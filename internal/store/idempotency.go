package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Idempotency keys (formapi/idempotency.go says what they are for): a key
// is kept with the answer its submission got, in the transaction that
// stored the submission.

// Key is an Idempotency-Key in its scope: the call (method and path), the
// client, and the submission's fingerprint (a hash of its fields).
type Key struct {
	Route, Client, Key string
	Fingerprint        string // "" before the handler has read the fields
}

// Answer is an answer as it was sent, kept with its key.
type Answer struct {
	Status      int
	ContentType string
	Body        []byte
}

// row is a query's single row, from a transaction or the reading pool.
type row interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// KeptAnswer finds the answer of an earlier submission with the key: the
// client's own, or another client's with the same fingerprint (with no
// fingerprint yet, the client's own only), or one kept from before keys
// were scoped (with an empty fingerprint).
func (s *Store) KeptAnswer(ctx context.Context, k Key) (Answer, bool, error) {
	return keptAnswer(ctx, s.read, k)
}

func keptAnswer(ctx context.Context, q row, k Key) (Answer, bool, error) {
	var a Answer
	var body string
	err := q.QueryRowContext(ctx, `SELECT status, content_type, body FROM idempotency_keys
		WHERE route = ? AND key = ? AND status > 0 AND (client = ? OR fingerprint = ? OR fingerprint = '')
		ORDER BY client = ? DESC LIMIT 1`, k.Route, k.Key, k.Client, k.Fingerprint, k.Client).Scan(&a.Status, &a.ContentType, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return a, false, nil
	}
	if err != nil {
		return a, false, storageError(err)
	}
	a.Body = []byte(body)
	return a, true, nil
}

// ClaimKey records the key before anything else of its submission is
// written, and first forgets the keys created before forgetBefore. When
// an earlier submission with the key was stored, it returns that one's
// answer and found: the caller stores nothing more. Of two instances that
// claim one key at once, PostgreSQL makes the second wait for the first's
// transaction, which then finds its answer.
func (tx *Tx) ClaimKey(k Key, at, forgetBefore time.Time) (kept Answer, found bool, err error) {
	ctx := context.Background()
	if _, err := tx.tx.Exec(`DELETE FROM idempotency_keys WHERE created_at < ?`, timestamp(forgetBefore)); err != nil {
		return kept, false, err
	}
	if kept, found, err = keptAnswer(ctx, tx.tx, k); err != nil || found {
		return kept, found, err
	}
	res, err := tx.tx.Exec(`INSERT INTO idempotency_keys (route, key, client, fingerprint, status, content_type, body, created_at)
		VALUES (?, ?, ?, ?, 0, '', '', ?) ON CONFLICT (route, key, client) DO NOTHING`, k.Route, k.Key, k.Client, k.Fingerprint, timestamp(at))
	if err != nil {
		return kept, false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return kept, false, err
	}
	// Another instance stored it meanwhile.
	kept, found, err = keptAnswer(ctx, tx.tx, k)
	if err == nil && !found {
		err = errors.New("an Idempotency-Key claimed by another transaction has no answer")
	}
	return kept, found, err
}

// KeepAnswer keeps the answer with the key claimed in the same write.
func (tx *Tx) KeepAnswer(k Key, a Answer) error {
	_, err := tx.tx.Exec(`UPDATE idempotency_keys SET status = ?, content_type = ?, body = ? WHERE route = ? AND key = ? AND client = ?`,
		a.Status, a.ContentType, string(a.Body), k.Route, k.Key, k.Client)
	return err
}
