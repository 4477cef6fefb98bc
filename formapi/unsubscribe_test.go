package formapi

import (
	"net/http"
	"strings"
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

// TestUnsubscribeReason: the optional reason (the FAQ's message box) is
// kept with the opt-out, line breaks and Devanagari joiners included; a
// later request adds one where there was none and never replaces one;
// it is bounded like other messages and refuses control and format
// characters, storing nothing then.
func TestUnsubscribeReason(t *testing.T) {
	a := newTestAPI(t, unlimited())
	reason := func(email string) string {
		t.Helper()
		list, err := a.store.OptOuts(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range list {
			if o.Email == email {
				return o.Reason
			}
		}
		t.Fatalf("no opt-out of %s", email)
		return ""
	}
	post := func(body map[string]string, status int, answer string) {
		t.Helper()
		resp := a.postJSON("/api/unsubscribe", body)
		expectStatus(t, resp, status)
		if got := bodyText(resp); got != answer {
			t.Errorf("%q: answer %q, want %q", body, got, answer)
		}
	}
	written := "बहुत ज़्यादा ईमेल आते हैं।\nकृपया महीने में एक बार भेजें। र्\u200dया"
	post(map[string]string{"emailId": "asha@example.in", "reason": written}, http.StatusOK, "success")
	if got := reason("asha@example.in"); got != written {
		t.Errorf("stored reason %q, want %q", got, written)
	}
	post(map[string]string{"emailId": "asha@example.in", "reason": "another"}, http.StatusOK, "success")
	if got := reason("asha@example.in"); got != written {
		t.Errorf("a second request replaced the reason with %q", got)
	}
	post(map[string]string{"emailId": "ravi@example.in"}, http.StatusOK, "success")
	if got := reason("ravi@example.in"); got != "" {
		t.Errorf("no reason given, stored %q", got)
	}
	post(map[string]string{"emailId": "ravi@example.in", "reason": "  Too many mails  "}, http.StatusOK, "success")
	if got := reason("ravi@example.in"); got != "Too many mails" {
		t.Errorf("a reason given later: stored %q", got)
	}

	for _, c := range []struct{ rule, value, want string }{
		{"at most 1000 characters", strings.Repeat("अ", 1001), "forms.tooLong"},
		{"no bidi override", "reason \u202egnp.exe", "forms.invisibleCharacters"},
		{"no zero-width space", "re\u200bason", "forms.invisibleCharacters"},
		{"no C1 control (next line)", "a\u0085b", "forms.invisibleCharacters"},
		{"no line separator", "a\u2028b", "forms.invisibleCharacters"},
		{"no joiner after a letter", "a\u200db", "forms.invisibleCharacters"},
	} {
		t.Run(c.rule, func(t *testing.T) {
			post(map[string]string{"emailId": "mohan@example.in", "reason": c.value}, http.StatusBadRequest, c.want)
		})
	}
	// C0 controls other than line breaks and tabs are refused by the
	// decoder for every field, before the rules.
	for _, value := range []string{"a\x00b", "a\x1b[31mb"} {
		resp := a.postJSON("/api/unsubscribe", map[string]string{"emailId": "mohan@example.in", "reason": value})
		expectStatus(t, resp, http.StatusBadRequest)
	}
	if n := a.count(`SELECT COUNT(*) FROM mail_opt_outs WHERE email = 'mohan@example.in'`); n != 0 {
		t.Errorf("refused reasons stored %d opt-outs", n)
	}
}
