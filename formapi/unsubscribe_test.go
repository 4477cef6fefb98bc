package formapi

import (
	"net/http"
	"testing"
)

func TestUnsubscribe(t *testing.T) {
	a := newTestAPI(t, unlimited())
	for _, c := range []struct {
		name string
		body map[string]string
	}{
		{"an address never mailed (no enumeration)", map[string]string{"emailId": "Nobody@Example.in"}},
		{"the same address again", map[string]string{"emailId": "nobody@example.in"}},
		{"the field read as email", map[string]string{"email": "other@example.in"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := a.postJSON("/api/unsubscribe", c.body)
			expectStatus(t, resp, http.StatusOK)
			if got := bodyText(resp); got != "success" {
				t.Errorf("answer %q, want success", got)
			}
		})
	}
	if n := a.count(`SELECT COUNT(*) FROM mail_opt_outs`); n != 2 {
		t.Errorf("%d opt-outs, want 2 (one per address, case-insensitive)", n)
	}
}

// TestUnsubscribeRules: SPEC §5's messages, answered as text.
func TestUnsubscribeRules(t *testing.T) {
	a := newTestAPI(t, unlimited())
	for _, c := range []struct{ rule, value, want string }{
		{"email is required", "", "forms.emailRequired"},
		{"email has at least 3 characters", "a@", "forms.emailTooShort"},
		{"email must be valid", "not-an-address", "forms.emailInvalid"},
		{"SQL in the address", "x'; DELETE FROM mail_opt_outs;--@example.in", "forms.emailInvalid"},
	} {
		t.Run(c.rule, func(t *testing.T) {
			resp := a.postJSON("/api/unsubscribe", map[string]string{"emailId": c.value})
			expectStatus(t, resp, http.StatusBadRequest)
			if got := bodyText(resp); got != c.want {
				t.Errorf("answer %q, want %q", got, c.want)
			}
		})
	}
	expectJSONError(t, a.post("/api/unsubscribe", "text/plain", []byte("a@b.in")), http.StatusUnsupportedMediaType, "application/json")
	expectJSONError(t, a.post("/api/unsubscribe", "application/json", []byte(`{"emailId": ["a@b.in"]}`)), http.StatusBadRequest, "must be a string")
	if n := a.count(`SELECT COUNT(*) FROM mail_opt_outs`); n != 0 {
		t.Errorf("%d opt-outs from refused requests", n)
	}
}
