package formapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"freightsite/internal/store"
	"net/http"
	"strconv"
	"time"
)

// errorBody is the JSON of every error answer: error says what is wrong
// in English for developers; message is the locales key the site shows.
// It never carries internals.
type errorBody struct {
	Error   string `json:"error"`
	Message string `json:"message,omitempty"`
}

// httpError is an error with the answer it deserves.
type httpError struct {
	status  int
	text    string // English, specific: which field, what is wrong
	message string // locales key for the visitor
}

func (e *httpError) Error() string { return e.text }

func badRequest(text string) error {
	return &httpError{http.StatusBadRequest, text, "api.errors.badRequest"}
}

// Message keys of the answers every handler may give.
const (
	msgTooLarge       = "api.errors.tooLarge"
	msgUnavailable    = "api.errors.unavailable"
	msgUnknownOutcome = "api.errors.unknownOutcome"
	msgInternal       = "api.errors.internal"
)

func writeJSON(w http.ResponseWriter, status int, v any) {
	writeJSONAs(w, status, "application/json; charset=utf-8", v)
}

func writeJSONAs(w http.ResponseWriter, status int, contentType string, v any) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeText(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text))
}

// writeError answers err: 400 (408 past the read deadline) when the
// client's own body could not be read, whatever err says; its own status
// for an httpError; 413 for a body over the route's limit; 503 (with
// Retry-After) when the database cannot write, saying whether nothing was
// saved or the outcome is unknown (store.ErrOutcomeUnknown: send it again
// with the same Idempotency-Key); a generic 500 otherwise.
// The real cause of a 5xx, and a client's fault, go to the log line.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	var tooBig *http.MaxBytesError
	var timeout interface{ Timeout() bool }
	fault := bodyFault(r)
	switch {
	case fault != nil:
		noteError(r, fmt.Errorf("client fault: reading the request body: %w", fault))
		// The connection is spent: its body is half read (or its deadline
		// passed, and the answer needs time of its own to be written).
		w.Header().Set("Connection", "close")
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(10 * time.Second))
		if errors.As(fault, &timeout) && timeout.Timeout() {
			writeJSON(w, http.StatusRequestTimeout, errorBody{Error: "the request body did not arrive in time", Message: "api.errors.badRequest"})
			return
		}
		writeJSON(w, http.StatusBadRequest, errorBody{Error: "the request body could not be read: it was cut short or malformed", Message: "api.errors.badRequest"})
	case errors.As(err, &he):
		writeJSON(w, he.status, errorBody{Error: he.text, Message: he.message})
	case errors.As(err, &tooBig):
		writeJSON(w, http.StatusRequestEntityTooLarge, errorBody{Error: "the request body exceeds " + strconv.FormatInt(tooBig.Limit, 10) + " bytes", Message: msgTooLarge})
	case errors.Is(err, store.ErrOutcomeUnknown):
		noteError(r, err)
		w.Header().Set("Retry-After", "5")
		writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: "the connection to the database broke while this was being saved: it may have been saved. Send it again with the same Idempotency-Key, which stores it once", Message: msgUnknownOutcome})
	case errors.Is(err, store.ErrUnavailable):
		noteError(r, err)
		w.Header().Set("Retry-After", "5")
		writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: "the service cannot store data right now; nothing was saved, try again shortly", Message: msgUnavailable})
	default:
		noteError(r, err)
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: "internal error", Message: msgInternal})
	}
}

// apiHandler is a handler that may fail; its error is answered by writeError.
type apiHandler func(w http.ResponseWriter, r *http.Request) error

func (h apiHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h(w, r); err != nil {
		writeError(w, r, err)
	}
}
