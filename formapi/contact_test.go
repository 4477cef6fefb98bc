package formapi

import (
	"net/http"
	"strings"
	"sync"
	"testing"
)

func validContact() map[string]string {
	return map[string]string{"name": "Ravi Kumar", "email": "ravi@example.in", "phone": "9820012345", "subject": "Return loads from Pune", "message": "Do you have members running Pune to Nagpur?"}
}

func TestContactStoresMessageAndQueuesNotification(t *testing.T) {
	a := newTestAPI(t)
	resp := a.postJSON("/api/contact_us", validContact())
	expectStatus(t, resp, http.StatusOK)
	got := decode[contactAnswer](t, resp)
	if got.Status != "Success" || got.Result != "contact.result.sent" {
		t.Errorf("answer %+v", got)
	}
	var name, subject string
	a.store.TestQueryRow(`SELECT name, subject FROM contact_messages`).Scan(&name, &subject)
	if name != "Ravi Kumar" || subject != "Return loads from Pune" {
		t.Errorf("stored %q, %q", name, subject)
	}
	var to, replyTo, mailSubject, body, state string
	a.store.TestQueryRow(`SELECT recipient, reply_to, subject, body, state FROM outbox`).Scan(&to, &replyTo, &mailSubject, &body, &state)
	if to != "provider@example.com" || replyTo != "ravi@example.in" || state != "pending" || !strings.Contains(mailSubject, "Return loads from Pune") || !strings.Contains(body, "Pune to Nagpur") {
		t.Errorf("outbox row: to %q reply-to %q subject %q state %q body %q", to, replyTo, mailSubject, state, body)
	}
}

// TestContactRules: one row per rule of SPEC §5 (contact form).
func TestContactRules(t *testing.T) {
	a := newTestAPI(t, unlimited())
	for _, c := range []struct {
		rule, field, value, message string
	}{
		{"name is required", "name", "  ", "contact.errors.nameRequired"},
		{"email is required", "email", "", "forms.emailRequired"},
		{"email has at least 3 characters", "email", "a@", "forms.emailTooShort"},
		{"email must be valid", "email", "ravi.example.in", "forms.emailInvalid"},
		{"email must have a domain", "email", "ravi@example", "forms.emailInvalid"},
		{"phone is digits only", "phone", "98200-1234", "contact.errors.phoneDigits"},
		{"phone has no leading zero", "phone", "0982001234", "contact.errors.phoneDigits"},
		{"phone is at most 10 characters", "phone", "98200123456", "contact.errors.phoneTooLong"},
		{"subject is required", "subject", "", "contact.errors.subjectRequired"},
		{"subject is at most 100 characters", "subject", strings.Repeat("s", 101), "contact.errors.subjectTooLong"},
	} {
		t.Run(c.rule, func(t *testing.T) {
			msg := validContact()
			msg[c.field] = c.value
			resp := a.postJSON("/api/contact_us", msg)
			expectStatus(t, resp, http.StatusBadRequest)
			got := decode[contactAnswer](t, resp)
			if got.Status == "Success" || len(got.ErrorMessageList) != 1 || got.ErrorMessageList[0] != (fieldError{c.field, c.message}) {
				t.Errorf("answer %+v, want one error {%s %s}", got, c.field, c.message)
			}
		})
	}
	for _, ok := range []struct{ rule, field, value string }{
		{"phone may be just 0", "phone", "0"},
		{"phone is optional", "phone", ""},
		{"message is optional", "message", ""},
		{"subject of exactly 100 characters", "subject", strings.Repeat("s", 100)},
		{"a Devanagari name", "name", "रवि कुमार"},
	} {
		t.Run(ok.rule, func(t *testing.T) {
			msg := validContact()
			msg[ok.field] = ok.value
			expectStatus(t, a.postJSON("/api/contact_us", msg), http.StatusOK)
		})
	}
	if n := a.count(`SELECT COUNT(*) FROM contact_messages`); n != 5 {
		t.Errorf("%d messages stored, want only the 5 valid ones", n)
	}
}

func TestContactRefusesBadRequests(t *testing.T) {
	a := newTestAPI(t, unlimited())
	for _, c := range []struct {
		name, contentType, body string
		status                  int
		want                    string
	}{
		{"form-encoded body", "application/x-www-form-urlencoded", "name=a", http.StatusUnsupportedMediaType, "Content-Type must be application/json"},
		{"no content type", "", `{}`, http.StatusUnsupportedMediaType, "Content-Type"},
		{"malformed JSON", "application/json", `{"name": "Ravi",`, http.StatusBadRequest, "malformed JSON"},
		{"empty body", "application/json", ``, http.StatusBadRequest, "empty"},
		{"an array", "application/json", `[1,2]`, http.StatusBadRequest, "one JSON object"},
		{"two objects", "application/json", `{"name":"a"} {"name":"b"}`, http.StatusBadRequest, "nothing after it"},
		{"a number for a string", "application/json", `{"name": 5}`, http.StatusBadRequest, `field "name" must be a string`},
		{"an unknown field", "application/json", `{"nmae": "Ravi"}`, http.StatusBadRequest, `unknown field "nmae"`},
		{"a control character", "application/json", `{"name": "Ra\u0000vi"}`, http.StatusBadRequest, "control character"},
		{"an oversized body", "application/json", `{"message": "` + strings.Repeat("x", formBodyLimit) + `"}`, http.StatusRequestEntityTooLarge, "exceeds"},
	} {
		t.Run(c.name, func(t *testing.T) {
			expectJSONError(t, a.post("/api/contact_us", c.contentType, []byte(c.body)), c.status, c.want)
		})
	}
	if n, m := a.count(`SELECT COUNT(*) FROM contact_messages`), a.count(`SELECT COUNT(*) FROM outbox`); n+m != 0 {
		t.Errorf("refused requests wrote %d messages and %d mails", n, m)
	}
}

// injections are stored and shown back exactly as typed, never run.
var injections = []string{
	`Robert'); DROP TABLE contact_messages;--`,
	`<script>alert("x")</script>`,
	`<img src=x onerror=alert(1)>`,
	`" OR 1=1 --`,
	"Subject\r\nBcc: victim@example.com",
}

// TestContactStoresInjectionStringsInert puts each injection string in
// each field: a field without a pattern stores it exactly as typed; a
// field with one refuses it with its field error. Nothing else happens.
func TestContactStoresInjectionStringsInert(t *testing.T) {
	a := newTestAPI(t, unlimited())
	for _, field := range []string{"name", "email", "phone", "subject", "message"} {
		for _, s := range injections {
			msg := validContact()
			msg[field] = s
			resp := a.postJSON("/api/contact_us", msg)
			switch resp.StatusCode {
			case http.StatusOK:
				resp.Body.Close()
				var got string
				a.store.TestQueryRow(`SELECT ` + field + ` FROM contact_messages ORDER BY id DESC LIMIT 1`).Scan(&got)
				if got != s {
					t.Errorf("%s: stored %q, want %q", field, got, s)
				}
			case http.StatusBadRequest:
				if got := decode[contactAnswer](t, resp); len(got.ErrorMessageList) != 1 || got.ErrorMessageList[0].Field != field {
					t.Errorf("%s = %q refused with %+v", field, s, got)
				}
			default:
				t.Errorf("%s = %q: status %d", field, s, resp.StatusCode)
			}
		}
	}
	if n := a.count(`SELECT COUNT(*) FROM contact_messages`); n == 0 {
		t.Error("the table is gone")
	}
	// A message composed from the stored subject keeps it on one header
	// line: internal/mail's TestSubjectStaysOnOneHeaderLine.
}

// TestConcurrentContactPosts: N posts at once leave exactly N messages and
// N notifications, every one acknowledged.
func TestConcurrentContactPosts(t *testing.T) {
	a := newTestAPI(t, unlimited())
	const n = 400
	a.token()
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i := range n {
		wg.Go(func() {
			msg := validContact()
			msg["subject"] = "load " + itoa(i)
			resp := a.postJSON("/api/contact_us", msg)
			statuses[i] = resp.StatusCode
			resp.Body.Close()
		})
	}
	wg.Wait()
	for i, s := range statuses {
		if s != http.StatusOK {
			t.Fatalf("post %d: status %d", i, s)
		}
	}
	if got := a.count(`SELECT COUNT(DISTINCT subject) FROM contact_messages`); got != n {
		t.Errorf("%d distinct messages, want %d", got, n)
	}
	if got := a.count(`SELECT COUNT(*) FROM contact_messages`); got != n {
		t.Errorf("%d messages, want %d", got, n)
	}
	if got := a.count(`SELECT COUNT(*) FROM outbox`); got != n {
		t.Errorf("%d notifications, want %d", got, n)
	}
}
