package formapi

import (
	"database/sql"
	"net/http"
	"regexp"
	"time"
)

// Idempotency keys (contact and feedback): a client may send a
// submission with an Idempotency-Key header, and the same key again when
// it cannot know whether the first try arrived (the site's offline
// outbox, pages/lib/outbox.ts). The first request with a key stores the
// submission and the key in one transaction; a later one with the same
// key stores nothing and gets the same success answer. A request without
// the header is stored as always.

const idempotencyHeader = "Idempotency-Key"

// keyLifetime is how long a key is remembered: longer than any phone
// keeps a message offline.
const keyLifetime = 30 * 24 * time.Hour

var idempotencyKeyPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16,100}$`)

// idempotencyKey is the request's key, "" without one; a malformed key
// is refused, so a client's mistake does not silently lose the guard.
func idempotencyKey(r *http.Request) (string, error) {
	key := r.Header.Get(idempotencyHeader)
	if key != "" && !idempotencyKeyPattern.MatchString(key) {
		return "", badRequest("Idempotency-Key must be 16 to 100 letters, digits, '-' or '_'")
	}
	return key, nil
}

// firstUse records key in the transaction of the submission it belongs
// to and says whether it is new: false means an earlier request with this
// key was stored, and this one must store nothing. It also forgets keys
// older than keyLifetime. An empty key is always new.
func firstUse(tx *sql.Tx, key string, at time.Time) (bool, error) {
	if key == "" {
		return true, nil
	}
	if _, err := tx.Exec(`DELETE FROM idempotency_keys WHERE created_at < ?`, timestamp(at.Add(-keyLifetime))); err != nil {
		return false, err
	}
	res, err := tx.Exec(`INSERT INTO idempotency_keys (key, created_at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, key, timestamp(at))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
