package formapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"freightsite/internal/clientaddr"
)

// Idempotency keys: a client sends a submission with an Idempotency-Key
// header, and the same key again when it cannot know whether the first
// try was stored (no answer came, the site's offline outbox sent it from
// the page and its service worker at once, or the API answered that the
// database connection broke while it committed: ErrOutcomeUnknown). The
// calls that store rows take one (routes.go wraps them in idempotent).
// The first request with a key stores the submission, the key and the
// answer it gets in one transaction; a later one with the same key stores
// nothing and gets that answer again, marked Idempotent-Replayed. A try
// that stored nothing (a field error, a spent link, a refusal) leaves no
// key, so a retry is checked afresh. A request without the header is
// stored as always.
//
// A key belongs to its call (method and path) and its client (an IPv4
// address or IPv6 /64, clientaddr): the same key sent to another call, or
// by another client, is another submission, unless it is the same
// submission (the same fields, by a hash that leaves out passwords and
// captcha answers), which a phone sends again from another network once
// it is back online.

const (
	idempotencyHeader = "Idempotency-Key"
	replayedHeader    = "Idempotent-Replayed"
)

// keyLifetime is how long a key is remembered: longer than any phone
// keeps a message offline.
const keyLifetime = 30 * 24 * time.Hour

var idempotencyKeyPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16,100}$`)

// submission is a request's Idempotency-Key in its scope; nil without
// a key, and then every method does what it would without one.
type submission struct {
	route, client, key string
	fingerprint        string // set by the handler once it has read the fields
}

type submissionKey struct{}

// idempotent reads the Idempotency-Key of a call that stores rows:
// it refuses a malformed key (so a client's mistake does not silently
// lose the guard), answers a key whose submission was stored with the
// answer it got, and otherwise hands the key to the handler, which
// records it in its write (claim, remember).
func idempotent(store *Store, clientIP func(*http.Request) string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(idempotencyHeader)
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		if !idempotencyKeyPattern.MatchString(key) {
			writeError(w, r, badRequest("Idempotency-Key must be 16 to 100 letters, digits, '-' or '_'"))
			return
		}
		sub := &submission{route: r.Method + " " + r.URL.Path, client: clientaddr.KeyString(clientIP(r)), key: key}
		kept, found, err := sub.stored(r.Context(), store.read)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if found {
			kept.send(w)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), submissionKey{}, sub)))
	})
}

// submissionOf is the request's key (nil without one), with the
// submission's fingerprint: its fields, and the bytes of an attached file.
func submissionOf(r *http.Request, fields map[string]string, file []byte) *submission {
	sub, _ := r.Context().Value(submissionKey{}).(*submission)
	if sub == nil {
		return nil
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		if lower := strings.ToLower(name); !strings.Contains(lower, "password") && lower != "recaptcharesponse" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	h := sha256.New()
	for _, name := range names {
		// Each field a JSON pair: no two sets of fields write the same bytes.
		b, _ := json.Marshal([]string{name, fields[name]})
		h.Write(b)
	}
	file256 := sha256.Sum256(file)
	h.Write(file256[:])
	with := *sub
	with.fingerprint = hex.EncodeToString(h.Sum(nil))
	return &with
}

// kept is an answer as it was sent: what a replay sends again.
type kept struct {
	status      int
	contentType string
	body        []byte
	replay      bool // read back for a later request with the key
}

func keptJSON(status int, v any) kept {
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(v) // as writeJSON encodes it
	return kept{status: status, contentType: "application/json; charset=utf-8", body: b.Bytes()}
}

func keptText(status int, text string) kept {
	return kept{status: status, contentType: "text/plain; charset=utf-8", body: []byte(text)}
}

// send sends the answer; a replay says it is one.
func (k kept) send(w http.ResponseWriter) {
	if k.replay {
		w.Header().Set(replayedHeader, "true")
	}
	w.Header().Set("Content-Type", k.contentType)
	w.WriteHeader(k.status)
	_, _ = w.Write(k.body)
}

// querier is a transaction or the reading pool.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// stored finds the answer of an earlier request with this key: the
// client's own, or another client's with the same fingerprint (before the
// handler has read the fields, the client's own only), or one kept from
// before keys were scoped (fingerprint ”).
func (s *submission) stored(ctx context.Context, q querier) (kept, bool, error) {
	var k kept
	var body string
	err := q.QueryRowContext(ctx, `SELECT status, content_type, body FROM idempotency_keys
		WHERE route = ? AND key = ? AND status > 0 AND (client = ? OR fingerprint = ? OR fingerprint = '')
		ORDER BY client = ? DESC LIMIT 1`, s.route, s.key, s.client, s.fingerprint, s.client).Scan(&k.status, &k.contentType, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return k, false, nil
	}
	if err != nil {
		return k, false, storageError(err)
	}
	k.body, k.replay = []byte(body), true
	return k, true, nil
}

// claim records the key in the transaction of the submission it belongs
// to, before anything else is written. When an earlier request with the
// key was stored, it sets *answer to that request's answer and reports
// done: the handler stores nothing more and sends *answer. Of two
// instances that claim one key at once, PostgreSQL makes the second wait
// for the first's transaction and then finds its answer. It also forgets
// keys older than keyLifetime. Without a key it does nothing.
func (s *submission) claim(tx *sql.Tx, at time.Time, answer *kept) (done bool, err error) {
	if s == nil {
		return false, nil
	}
	ctx := context.Background()
	if _, err := tx.Exec(`DELETE FROM idempotency_keys WHERE created_at < ?`, timestamp(at.Add(-keyLifetime))); err != nil {
		return false, err
	}
	k, found, err := s.stored(ctx, tx)
	if err != nil || found {
		*answer = k
		return found, err
	}
	res, err := tx.Exec(`INSERT INTO idempotency_keys (route, key, client, fingerprint, status, content_type, body, created_at)
		VALUES (?, ?, ?, ?, 0, '', '', ?) ON CONFLICT (route, key, client) DO NOTHING`, s.route, s.key, s.client, s.fingerprint, timestamp(at))
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return false, err
	}
	// Another instance stored it meanwhile.
	k, found, err = s.stored(ctx, tx)
	if err == nil && !found {
		err = errors.New("an Idempotency-Key claimed by another transaction has no answer")
	}
	*answer = k
	return found, err
}

// remember keeps the answer with the key claimed in the same transaction.
func (s *submission) remember(tx *sql.Tx, answer kept) error {
	if s == nil {
		return nil
	}
	_, err := tx.Exec(`UPDATE idempotency_keys SET status = ?, content_type = ?, body = ? WHERE route = ? AND key = ? AND client = ?`,
		answer.status, answer.contentType, string(answer.body), s.route, s.key, s.client)
	return err
}
