package formapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
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

// storingCall is a call that stores rows, with a fresh valid submission
// and the query that counts what it stores.
type storingCall struct {
	name, path string
	submission func(a *testAPI) (contentType string, body []byte)
	stored     string
	// again is the status a second try without a key gets: what the
	// key spares a client that cannot know whether the first was stored.
	again int
}

func jsonBody(v any) (string, []byte) {
	b, _ := json.Marshal(v)
	return "application/json", b
}

// storingCalls are every call that takes an Idempotency-Key.
var storingCalls = []storingCall{
	{"contact", "/api/contact_us", func(a *testAPI) (string, []byte) { return jsonBody(validContact()) },
		`SELECT COUNT(*) FROM contact_messages`, http.StatusOK},
	{"feedback", "/api/error_feedback", func(a *testAPI) (string, []byte) {
		body, ct := multipartBody(a.t, validFeedback(), &attachmentPart{"shot.png", pngBytes})
		return ct, body
	}, `SELECT COUNT(*) FROM feedback`, http.StatusOK},
	{"unsubscribe", "/api/unsubscribe", func(a *testAPI) (string, []byte) { return jsonBody(map[string]string{"emailId": "asha@example.in"}) },
		`SELECT COUNT(*) FROM mail_opt_outs`, http.StatusOK},
	{"registration", "/api/registration", func(a *testAPI) (string, []byte) { return jsonBody(a.registration("meera@carriers.example")) },
		`SELECT COUNT(*) FROM users`, http.StatusBadRequest}, // its captcha is spent
	{"forgot password", "/api/forgot_password", func(a *testAPI) (string, []byte) {
		a.register("ravi@carriers.example", "Cargo#777")
		return jsonBody(map[string]string{"loginId": "ravi@carriers.example", "recaptchaResponse": a.solveCaptcha(), "origin": ""})
	}, `SELECT COUNT(*) FROM password_resets`, http.StatusBadRequest},
	{"reset password", "/api/reset_password", func(a *testAPI) (string, []byte) {
		a.register("ravi@carriers.example", "Cargo#777")
		a.forgot("ravi@carriers.example", "")
		_, token := a.lastResetLink("ravi@carriers.example")
		return jsonBody(map[string]string{"token": token, "newPassword": "Lorry#2025", "confirmPassword": "Lorry#2025"})
	}, `SELECT COUNT(*) FROM password_resets WHERE used_at IS NOT NULL`, http.StatusBadRequest}, // tokenExpired
	{"auction registration", "/api/publicTruckingAuctionForm", func(a *testAPI) (string, []byte) { return jsonBody(validAuction()) },
		`SELECT COUNT(*) FROM auction_registrations`, http.StatusAccepted}, // "pending", as if a change
	{"auction confirmation", "/api/publicTruckingAuctionForm/confirm", func(a *testAPI) (string, []byte) {
		expectStatus(a.test(), a.postJSON("/api/publicTruckingAuctionForm", validAuction()), http.StatusCreated)
		change := validAuction()
		change["phone"] = "9000000000"
		expectStatus(a.test(), a.postJSON("/api/publicTruckingAuctionForm", change), http.StatusAccepted)
		return jsonBody(map[string]string{"token": a.auctionMails()[0][2]})
	}, `SELECT COUNT(*) FROM auction_changes WHERE used_at IS NOT NULL`, http.StatusBadRequest}, // tokenExpired
}

// sendKeyed posts a submission with a key (none for "") from a client
// (X-Forwarded-For, through the trusted proxy; none for "").
func (a *testAPI) sendKeyed(path, contentType string, body []byte, key, client string) (*http.Response, string) {
	a.t.Helper()
	h := http.Header{xsrfHeader: {a.token()}}
	if key != "" {
		h.Set(idempotencyHeader, key)
	}
	if client != "" {
		h.Set("X-Forwarded-For", client)
	}
	resp := a.do(http.MethodPost, path, contentType, bytes.NewReader(body), h)
	return resp, bodyText(resp)
}

// TestEveryStoringCallHonoursIdempotencyKeys: on each call that stores
// rows, a second try with the first's key stores nothing and gets the
// first's answer (status, type and body) again, marked
// Idempotent-Replayed; the same try without a key is taken afresh, as the
// call takes it (another row, or a refusal of what the first used up).
func TestEveryStoringCallHonoursIdempotencyKeys(t *testing.T) {
	for _, c := range storingCalls {
		t.Run(c.name, func(t *testing.T) {
			a := newAccountsAPI(t)
			ct, body := c.submission(a)
			before := a.count(c.stored)
			key := "0mhx2k3a9-" + strings.ReplaceAll(c.name, " ", "-") + "-0001"
			first, firstBody := a.sendKeyed(c.path, ct, body, key, "")
			if first.StatusCode >= 300 || first.Header.Get(replayedHeader) != "" {
				t.Fatalf("the first try: %d %v %s", first.StatusCode, first.Header, firstBody)
			}
			if n := a.count(c.stored); n != before+1 {
				t.Fatalf("the first try stored %d rows, want 1", n-before)
			}
			again, againBody := a.sendKeyed(c.path, ct, body, key, "")
			if again.StatusCode != first.StatusCode || againBody != firstBody || again.Header.Get("Content-Type") != first.Header.Get("Content-Type") || again.Header.Get(replayedHeader) != "true" {
				t.Errorf("the second try with the key: %d %q %s, want the first's %d %q %s, replayed", again.StatusCode, again.Header.Get("Content-Type"), againBody, first.StatusCode, first.Header.Get("Content-Type"), firstBody)
			}
			if n := a.count(c.stored); n != before+1 {
				t.Errorf("after the second try with the key: %d rows stored, want 1", n-before)
			}
			if resp, answer := a.sendKeyed(c.path, ct, body, "", ""); resp.StatusCode != c.again || resp.Header.Get(replayedHeader) != "" {
				t.Errorf("the same try without a key: %d %s, want %d, taken afresh", resp.StatusCode, answer, c.again)
			}
		})
	}
}

// TestIdempotencyKeysAreScoped: a key belongs to its call and client. The
// same key on another call is another submission there; from another
// client (IPv4 address, IPv6 /64) with other fields it is another
// submission; the same submission from another address (a phone that
// changed networks) is the same one; and a retry from the same client is
// the first's, whatever it holds.
func TestIdempotencyKeysAreScoped(t *testing.T) {
	a := newAccountsAPI(t, withTrustedProxy())
	const key = "0mhx2k3a9-one-key-for-everything"
	contact := func(subject string) []byte {
		m := validContact()
		m["subject"] = subject
		_, b := jsonBody(m)
		return b
	}
	for _, c := range []struct {
		name, path string
		body       []byte
		client     string
		replayed   bool
		messages   int
	}{
		{"first use", "/api/contact_us", contact("Rates"), "203.0.113.7", false, 1},
		{"another call", "/api/unsubscribe", []byte(`{"emailId":"asha@example.in"}`), "203.0.113.7", false, 1},
		{"another client, another submission", "/api/contact_us", contact("Routes"), "198.51.100.9", false, 2},
		{"another address, the same submission", "/api/contact_us", contact("Rates"), "192.0.2.44", true, 2},
		{"the same client, other fields", "/api/contact_us", contact("Rates, again"), "203.0.113.7", true, 2},
		{"IPv6: first use", "/api/contact_us", contact("Trucks"), "2001:db8:1:2::1", false, 3},
		{"IPv6: the same /64", "/api/contact_us", contact("Trucks, edited"), "2001:db8:1:2:abcd::9", true, 3},
		{"IPv6: another /64", "/api/contact_us", contact("Trucks, edited"), "2001:db8:1:3::1", false, 4},
	} {
		resp, answer := a.sendKeyed(c.path, "application/json", c.body, key, c.client)
		if resp.StatusCode != http.StatusOK || (resp.Header.Get(replayedHeader) == "true") != c.replayed {
			t.Errorf("%s: %d %s, replayed %q, want 200 replayed=%v", c.name, resp.StatusCode, answer, resp.Header.Get(replayedHeader), c.replayed)
		}
		if n := a.count(`SELECT COUNT(*) FROM contact_messages`); n != c.messages {
			t.Errorf("%s: %d messages stored, want %d", c.name, n, c.messages)
		}
	}
	if n := a.count(`SELECT COUNT(*) FROM mail_opt_outs`); n != 1 {
		t.Errorf("the key used on contact first stored no opt-out: %d", n)
	}
}

// TestIdempotencyKeysAcrossInstances: two instances on one database take
// the same key at once (a page and its service worker reaching two
// instances behind nginx): one stores, the other answers what it stored.
func TestIdempotencyKeysAcrossInstances(t *testing.T) {
	a := newTestAPI(t, unlimited())
	b := newTestAPIOn(t, a.db, unlimited())
	b.client = a.client
	_, body := jsonBody(validContact())
	a.token() // one cookie for every try (tries asking at once each get one, and the jar keeps one)
	var wg sync.WaitGroup
	answers := make([]string, 16)
	for i := range answers {
		api := []*testAPI{a, b}[i%2]
		wg.Go(func() {
			resp, answer := api.sendKeyed("/api/contact_us", "application/json", body, "0mhx2k3a9-two-instances-one-key", "")
			if resp.StatusCode != http.StatusOK {
				t.Errorf("try %d: %d %s", i, resp.StatusCode, answer)
			}
			answers[i] = answer
		})
	}
	wg.Wait()
	if n := a.count(`SELECT COUNT(*) FROM contact_messages`); n != 1 {
		t.Errorf("16 tries through two instances stored %d messages, want 1", n)
	}
	for i, got := range answers {
		if got != answers[0] {
			t.Errorf("try %d answered %s, the first %s", i, got, answers[0])
		}
	}
}

// TestAnAnswerLostAfterTheCommit: the client's connection breaks once
// the submission is stored and before the answer is read (it cannot know
// whether it was stored, as after a 503 unknownOutcome); its retry with
// the key gets the stored answer and stores nothing more. The connection
// stays open until the row is there: a client that hangs up earlier
// cancels its request, which may then store nothing, and that is no lost
// answer.
func TestAnAnswerLostAfterTheCommit(t *testing.T) {
	a := newTestAPI(t, unlimited())
	_, body := jsonBody(validContact())
	const key = "0mhx2k3a9-the-answer-was-lost"
	token := a.token()
	conn, err := net.Dial("tcp", a.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /api/contact_us HTTP/1.1\r\nHost: x\r\nCookie: %s=%s\r\n%s: %s\r\n%s: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		xsrfCookie, token, xsrfHeader, token, idempotencyHeader, key, len(body), body)
	for deadline := time.Now().Add(10 * time.Second); a.count(`SELECT COUNT(*) FROM contact_messages`) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the submission whose answer was lost was never stored")
		}
	}
	conn.Close() // the answer, unread, is lost
	resp, answer := a.sendKeyed("/api/contact_us", "application/json", body, key, "")
	if resp.StatusCode != http.StatusOK || resp.Header.Get(replayedHeader) != "true" || !strings.Contains(answer, `"status":"Success"`) {
		t.Errorf("the retry: %d %s, want the stored answer", resp.StatusCode, answer)
	}
	if n := a.count(`SELECT COUNT(*) FROM contact_messages`); n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
}

// TestIdempotencyKeyRules: a malformed key is refused (the submission is
// not stored); keys are forgotten after keyLifetime; a failed try leaves
// no key, so its retry is taken afresh.
func TestIdempotencyKeyRules(t *testing.T) {
	a := newTestAPI(t, unlimited())
	_, body := jsonBody(validContact())
	for _, key := range []string{"short", "has spaces in the key here", "ü-not-ascii-0123456789"} {
		resp, answer := a.sendKeyed("/api/contact_us", "application/json", body, key, "")
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(answer, "Idempotency-Key must be") {
			t.Errorf("key %q: %d %s", key, resp.StatusCode, answer)
		}
	}
	if n := a.count(`SELECT count(*) FROM contact_messages`); n != 0 {
		t.Errorf("malformed keys stored %d messages", n)
	}
	a.exec(`INSERT INTO idempotency_keys (route, key, client, fingerprint, status, content_type, body, created_at) VALUES
		('POST /api/contact_us', 'old-key-of-last-year-0001', '127.0.0.1', 'x', 200, 'text/plain', 'old', ?),
		('POST /api/contact_us', 'recent-key-of-yesterday-01', '127.0.0.1', 'x', 200, 'text/plain', 'recent', ?)`,
		timestamp(time.Now().Add(-keyLifetime-time.Hour)), timestamp(time.Now().Add(-24*time.Hour)))
	resp, _ := a.sendKeyed("/api/contact_us", "application/json", body, "new-key-of-today-00000001", "")
	expectStatus(t, resp, http.StatusOK)
	if n := a.count(`SELECT count(*) FROM idempotency_keys WHERE key = 'old-key-of-last-year-0001'`); n != 0 {
		t.Error("a key older than keyLifetime is still remembered")
	}
	if n := a.count(`SELECT count(*) FROM idempotency_keys`); n != 2 {
		t.Errorf("%d keys remembered, want yesterday's and today's", n)
	}
	if resp, answer := a.sendKeyed("/api/contact_us", "application/json", body, "recent-key-of-yesterday-01", ""); answer != "recent" || resp.Header.Get(replayedHeader) != "true" {
		t.Errorf("yesterday's key: %d %q, want its kept answer", resp.StatusCode, answer)
	}
	invalid := validContact()
	invalid["email"] = "not an address"
	_, bad := jsonBody(invalid)
	const failing = "0mhx2k3a9-a-try-that-failed"
	if resp, _ := a.sendKeyed("/api/contact_us", "application/json", bad, failing, ""); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("an invalid message: %d", resp.StatusCode)
	}
	if resp, answer := a.sendKeyed("/api/contact_us", "application/json", body, failing, ""); resp.StatusCode != http.StatusOK || resp.Header.Get(replayedHeader) != "" {
		t.Errorf("the corrected retry with the failed try's key: %d %s, want it stored", resp.StatusCode, answer)
	}
}

// TestUnscopedKeysAreKept: the keys of contact messages and feedback
// stored before keys were scoped still spare their retries a second row,
// from any client, on either call.
func TestUnscopedKeysAreKept(t *testing.T) {
	a := newTestAPI(t, unlimited(), withTrustedProxy())
	db := a.db
	a.exec(`DROP TABLE idempotency_keys`)
	a.exec(`CREATE TABLE idempotency_keys (key TEXT PRIMARY KEY, created_at TEXT NOT NULL)`)
	a.exec(`CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)`)
	a.exec(`INSERT INTO idempotency_keys (key, created_at) VALUES ('0mhx2k3a9-kept-from-before', ?)`, timestamp(time.Now().Add(-time.Hour)))
	a.exec(`DELETE FROM schema_migrations WHERE version = 970`)
	a.srv.Close()
	a.store.Close()
	b := newTestAPIOn(t, db, unlimited(), withTrustedProxy())
	_, contact := jsonBody(validContact())
	feedback, ct := multipartBody(t, validFeedback(), nil)
	for _, c := range []struct{ path, contentType, answer string }{
		{"/api/contact_us", "application/json", `{"status":"Success","result":"contact.result.sent"}`},
		{"/api/error_feedback", ct, `{"status":"success"}`},
	} {
		body := contact
		if c.path == "/api/error_feedback" {
			body = feedback
		}
		resp, answer := b.sendKeyed(c.path, c.contentType, body, "0mhx2k3a9-kept-from-before", "198.51.100.77")
		if resp.StatusCode != http.StatusOK || strings.TrimSpace(answer) != c.answer || resp.Header.Get(replayedHeader) != "true" {
			t.Errorf("%s with a key kept from before: %d %s", c.path, resp.StatusCode, answer)
		}
	}
	if n := b.count(`SELECT COUNT(*) FROM contact_messages`) + b.count(`SELECT COUNT(*) FROM feedback`); n != 0 {
		t.Errorf("%d rows stored for a key kept from before", n)
	}
}
