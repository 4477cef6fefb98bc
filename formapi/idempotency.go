package formapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"freightsite/internal/clientaddr"
	"freightsite/internal/store"
)

// Idempotency keys: a client sends a submission with an Idempotency-Key
// header, and the same key again when it cannot know whether the first
// try was stored (no answer came, the site's offline outbox sent it from
// the page and its service worker at once, or the API answered that the
// database connection broke while it committed: ErrOutcomeUnknown). The
// calls that store rows take one (routes.go wraps them in idempotent).
// The first request with a key stores the submission, the key and the
// answer it gets in one transaction (storeOnce); a later one with the
// same key stores nothing and gets that answer again, marked
// Idempotent-Replayed. A try that stored nothing (a field error, a spent
// link, a refusal) leaves no key, so a retry is checked afresh. A request
// without the header is stored as always.
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
// a key, and then storeOnce stores as it would without one.
type submission struct{ key store.Key }

type submissionKey struct{}

// idempotent reads the Idempotency-Key of a call that stores rows:
// it refuses a malformed key (so a client's mistake does not silently
// lose the guard), answers a key whose submission was stored with the
// answer it got, and otherwise hands the key to the handler, which
// stores its submission with it (storeOnce).
func idempotent(s *store.Store, clientIP func(*http.Request) string, next http.Handler) http.Handler {
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
		sub := &submission{store.Key{Route: r.Method + " " + r.URL.Path, Client: clientaddr.KeyString(clientIP(r)), Key: key}}
		answer, found, err := s.KeptAnswer(r.Context(), sub.key)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if found {
			replayOf(answer).send(w)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), submissionKey{}, sub)))
	})
}

// submissionOf is the request's key (nil without one), with the
// submission's fingerprint: its fields as sent, and the bytes of an
// attached file.
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
	with.key.Fingerprint = hex.EncodeToString(h.Sum(nil))
	return &with
}

// storeOnce stores a submission once per Idempotency-Key. In one write
// it claims the request's key (sub; nil without one) before anything
// else, runs write, which stores the submission and returns its answer,
// and keeps that answer with the key. When the key's submission was
// stored before, write does not run and the answer is the one it got
// then, as a replay. An error of write (a spent link, a login id taken)
// undoes the write, key included, so a retry is checked afresh.
func storeOnce(ctx context.Context, s *store.Store, sub *submission, at time.Time, write func(*store.Tx) (kept, error)) (kept, error) {
	var answer kept
	err := s.Write(ctx, func(tx *store.Tx) error {
		if sub != nil {
			before, found, err := tx.ClaimKey(sub.key, at, at.Add(-keyLifetime))
			if err != nil || found {
				answer = replayOf(before)
				return err
			}
		}
		var err error
		if answer, err = write(tx); err != nil || sub == nil {
			return err
		}
		return tx.KeepAnswer(sub.key, store.Answer{Status: answer.status, ContentType: answer.contentType, Body: answer.body})
	})
	return answer, err
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

// replayOf is an answer kept with a key, to send again.
func replayOf(a store.Answer) kept {
	return kept{status: a.Status, contentType: a.ContentType, body: a.Body, replay: true}
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
