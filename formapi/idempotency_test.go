package formapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestIdempotencyKeyStoresASubmissionOnce: a contact message or feedback
// sent again with its Idempotency-Key (the offline outbox's page and
// service worker at once, then once more) is stored once, with one
// notification, and every try gets the success answer; another key, or
// none, stores again.
func TestIdempotencyKeyStoresASubmissionOnce(t *testing.T) {
	contact, _ := json.Marshal(validContact())
	feedback, feedbackCT := multipartBody(t, validFeedback(), &attachmentPart{"shot.png", pngBytes})
	for _, c := range []struct {
		path, contentType string
		body              []byte
		table             string
	}{
		{"/api/contact_us", "application/json", contact, "contact_messages"},
		{"/api/error_feedback", feedbackCT, feedback, "feedback"},
	} {
		a := newTestAPI(t, unlimited())
		// One anti-forgery token for all tries: two goroutines asking for
		// one at once each got a cookie, and the jar kept only one of them.
		token := a.token()
		send := func(key string) *http.Response {
			h := http.Header{xsrfHeader: {token}}
			if key != "" {
				h.Set(idempotencyHeader, key)
			}
			return a.do(http.MethodPost, c.path, c.contentType, bytes.NewReader(c.body), h)
		}
		key := "0mhx2k3a9-2f1c7a6e-9b1d-4c0e-8a51-3d2b7c9e4f10"
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() { expectStatus(t, send(key), http.StatusOK) })
		}
		wg.Wait()
		expectStatus(t, send(key), http.StatusOK)
		if n := a.count(`SELECT count(*) FROM ` + c.table); n != 1 {
			t.Errorf("%s: three tries with one key stored %d rows, want 1", c.path, n)
		}
		if n := a.count(`SELECT count(*) FROM outbox`); n != 1 {
			t.Errorf("%s: three tries with one key queued %d notifications, want 1", c.path, n)
		}
		expectStatus(t, send("0mhx2k3b0-another-key-of-this-phone"), http.StatusOK)
		expectStatus(t, send(""), http.StatusOK)
		expectStatus(t, send(""), http.StatusOK)
		if n := a.count(`SELECT count(*) FROM ` + c.table); n != 4 {
			t.Errorf("%s: another key and two tries without one stored %d rows in all, want 4", c.path, n)
		}
	}
}

// TestIdempotencyKeyRules: a malformed key is refused (the submission is
// not stored), and keys are forgotten after keyLifetime.
func TestIdempotencyKeyRules(t *testing.T) {
	a := newTestAPI(t, unlimited())
	body, _ := json.Marshal(validContact())
	for _, key := range []string{"short", "has spaces in the key here", "ü-not-ascii-0123456789"} {
		resp := a.do(http.MethodPost, "/api/contact_us", "application/json", bytes.NewReader(body), http.Header{xsrfHeader: {a.token()}, idempotencyHeader: {key}})
		expectJSONError(t, resp, http.StatusBadRequest, "Idempotency-Key must be")
	}
	if n := a.count(`SELECT count(*) FROM contact_messages`); n != 0 {
		t.Errorf("malformed keys stored %d messages", n)
	}
	a.exec(`INSERT INTO idempotency_keys (key, created_at) VALUES ('old-key-of-last-year-0001', ?), ('recent-key-of-yesterday-01', ?)`,
		timestamp(time.Now().Add(-keyLifetime-time.Hour)), timestamp(time.Now().Add(-24*time.Hour)))
	resp := a.do(http.MethodPost, "/api/contact_us", "application/json", bytes.NewReader(body), http.Header{xsrfHeader: {a.token()}, idempotencyHeader: {"new-key-of-today-00000001"}})
	expectStatus(t, resp, http.StatusOK)
	if n := a.count(`SELECT count(*) FROM idempotency_keys WHERE key = 'old-key-of-last-year-0001'`); n != 0 {
		t.Error("a key older than keyLifetime is still remembered")
	}
	if n := a.count(`SELECT count(*) FROM idempotency_keys`); n != 2 {
		t.Errorf("%d keys remembered, want yesterday's and today's", n)
	}
}
