package formapi

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"testing"
)

// oneLineHostile are characters a one-line field refuses: line breaks and
// tabs, C1 controls (U+0085 next line among them), line and paragraph
// separators, every bidi control, and the other format characters
// (Unicode category Cf): zero-width spaces and joiners away from a virama,
// soft hyphens, word joiners, byte order marks, tags.
var oneLineHostile = []string{"\n", "\r", "\t", "\u0080", "\u0085", "\u009f", "\u2028", "\u2029", "\u061c", "\u200e", "\u200f",
	"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
	"\u200b", "\u200c", "\u200d", "\u00ad", "\u2060", "\u2061", "\u2064", "\ufeff", "\u180e", "\u034f\u200b", "\ufff9", "\U000e0001", "\U000e0041", "\U0001d173"}

// TestOneLineFieldsEndWithTheOneLineCheck: forms.json gives every field
// but the message boxes the oneLine check, last, so a field's own
// message (a name's letters, an e-mail's form) comes first where it fits.
func TestOneLineFieldsEndWithTheOneLineCheck(t *testing.T) {
	var multiline []string
	for name, rules := range mustParseForms() {
		for _, f := range rules {
			last := f.Checks[len(f.Checks)-1]
			if f.Multiline {
				multiline = append(multiline, name+"."+f.Field)
				if last.Message == "forms.oneLine" {
					t.Errorf("%s.%s is multiline but has the oneLine check", name, f.Field)
				}
			} else if last.Message != "forms.oneLine" || last.re == nil {
				t.Errorf("%s.%s: last check %+v, want oneLine", name, f.Field, last)
			}
		}
	}
	slices.Sort(multiline)
	if want := []string{"contact.message", "feedback.feedback", "unsubscribe.reason"}; !slices.Equal(multiline, want) {
		t.Errorf("multiline fields %v, want %v", multiline, want)
	}
}

// TestOneLineFieldsRefuseLineAndFormatCharacters: each hostile character
// in one-line fields of the contact, auction, registration, sign-in,
// forgot-password and feedback (multipart) forms is a field error with the
// field's message (its own pattern's where it has one, forms.oneLine
// otherwise), and nothing is stored; the message boxes keep line breaks,
// and Devanagari keeps its joiners after a virama.
func TestOneLineFieldsRefuseLineAndFormatCharacters(t *testing.T) {
	a := newAccountsAPI(t)
	fieldErrors := func(resp *http.Response) map[string]string {
		t.Helper()
		got := decode[struct {
			ErrorMessageList []fieldError `json:"errorMessageList"`
		}](t, resp)
		m := map[string]string{}
		for _, e := range got.ErrorMessageList {
			m[e.Field] = e.Message
		}
		return m
	}
	expect := func(what string, resp *http.Response, want map[string]string) {
		t.Helper()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", what, resp.StatusCode)
		}
		got := fieldErrors(resp)
		for field, msg := range want {
			if got[field] != msg {
				t.Errorf("%s: %s: %q, want %q (all: %v)", what, field, got[field], msg, got)
			}
		}
	}
	for _, h := range oneLineHostile {
		what := fmt.Sprintf("U+%04X", []rune(h)[0])

		msg := validContact()
		msg["name"], msg["subject"], msg["email"], msg["message"] = "Ravi"+h+"Kumar", "Loads"+h+"Pune", "ravi"+h+"@example.in", "line one"+h+"line two"
		expect("contact "+what, a.postJSON("/api/contact_us", msg), map[string]string{"name": "forms.oneLine", "subject": "forms.oneLine", "email": "forms.emailInvalid"})

		reg := validAuction()
		reg["companyName"], reg["contactName"] = "Sahyadri"+h+"Roadlines", "Vikram"+h+"Patil"
		expect("auction "+what, a.postJSON("/api/publicTruckingAuctionForm", reg), map[string]string{"companyName": "forms.oneLine", "contactName": "forms.nameLetters"})

		r := a.registration("meera@sahyadri.example")
		r["companyName"], r["address1"], r["address2"], r["state"] = "Sahyadri"+h+"Roadlines", "Plot 7"+h+"MIDC", "Bhosari"+h, "Maha"+h+"rashtra"
		r["email"], r["firstName"] = "meera"+h+"@sahyadri.example", "Mee"+h+"ra"
		expect("registration "+what, a.postJSON("/api/registration", r), map[string]string{"companyName": "forms.oneLine", "address1": "forms.oneLine",
			"address2": "forms.oneLine", "state": "forms.oneLine", "email": "forms.emailInvalid", "firstName": "registration.errors.lettersOnly"})

		if ans := fieldErrors(a.postJSON("/api/forgot_password", map[string]string{"loginId": "ravi" + h + "@example.in", "recaptchaResponse": "x"})); ans["loginId"] != "forms.oneLine" {
			t.Errorf("forgot password %s: %v, want forms.oneLine for loginId", what, ans)
		}

		fb := validFeedback()
		fb["name"], fb["feedback"] = "Sunita"+h+"Rao", "line one"+h+"line two"
		expect("feedback "+what, a.postFeedback(fb, nil), map[string]string{"name": "forms.nameNotNumeric"})
	}
	for _, table := range []string{"contact_messages", "auction_registrations", "users", "feedback"} {
		if n := a.count(`SELECT COUNT(*) FROM ` + table); n != 0 {
			t.Errorf("%d rows in %s from refused posts", n, table)
		}
	}

	msg := validContact()
	msg["name"], msg["subject"], msg["message"] = "क्\u200dष मराठे", "मार्ग क्\u200cष", "line one\r\nline two\n\tindented"
	expectStatus(t, a.postJSON("/api/contact_us", msg), http.StatusOK)
	fb := validFeedback()
	fb["feedback"] = "line one\nline two"
	expectStatus(t, a.postFeedback(fb, nil), http.StatusOK)
}

// TestTextThatIsNotUTF8IsRefused: bytes that are not UTF-8 are refused in
// a JSON field and in a multipart field alike (encoding/json would quietly
// turn them into U+FFFD; a multipart field would be stored as it came),
// and so are JSON escapes of half a surrogate pair; escaped whole pairs
// and an escaped backslash before "u" are text like any other.
func TestTextThatIsNotUTF8IsRefused(t *testing.T) {
	a := newTestAPI(t, unlimited())
	contact := func(name string) *http.Response {
		return a.post("/api/contact_us", "application/json", []byte(`{"name":"`+name+`","email":"ravi@example.in","subject":"Loads"}`))
	}
	for _, bad := range []string{"\xff", "\xc3", "\xed\xa0\x80", "\xc0\xaf"} {
		expectJSONError(t, contact("Ravi"+bad), http.StatusBadRequest, `field "name" is not valid UTF-8`)
		fb := validFeedback()
		fb["feedback"] = "the page" + bad
		expectJSONError(t, a.postFeedback(fb, nil), http.StatusBadRequest, `field "feedback" is not valid UTF-8`)
	}
	for _, bad := range []string{`Ravi\ud800`, `Ravi\uDBFF!`, `\udc00Ravi`, `Ravi\ud83d\ud83d\ude9a`, `Ravi\ude9a\ud83d`, `Ravi\ud83d\u0041`, `Ravi\\\ud800`} {
		expectJSONError(t, contact(bad), http.StatusBadRequest, `field "name" is not valid UTF-8`)
	}
	if n := a.count(`SELECT COUNT(*) FROM contact_messages`) + a.count(`SELECT COUNT(*) FROM feedback`); n != 0 {
		t.Errorf("%d rows stored from text that is not UTF-8", n)
	}
	for name, stored := range map[string]string{`Ravi \ud83d\ude9a`: "Ravi \U0001F69A", `Ravi\\ud800`: `Ravi\ud800`, `\u0052avi \uFFFD`: "Ravi \uFFFD"} {
		expectStatus(t, contact(name), http.StatusOK)
		var got string
		a.store.TestQueryRow(`SELECT name FROM contact_messages ORDER BY id DESC LIMIT 1`).Scan(&got)
		if got != stored {
			t.Errorf("%s stored as %q, want %q", name, got, stored)
		}
	}
}

// TestRequestTypesHaveTheirFormsFields: each request type has exactly
// the fields of its form in data/forms.json and those SPEC adds to the
// call, so a field the form gains is read and validated, and a field no
// one declares is refused as unknown.
func TestRequestTypesHaveTheirFormsFields(t *testing.T) {
	forms := mustParseForms()
	for _, c := range []struct {
		form  string // "": the call has no form of its own
		req   any
		extra []string
	}{
		{"contact", contactRequest{}, nil},
		{"feedback", feedbackRequest{}, []string{"errorType"}},
		{"unsubscribe", unsubscribeRequest{}, []string{"email"}},
		{"emailUniqueness", uniquenessRequest{}, nil},
		{"registration", registrationRequest{}, []string{"preferredLanguage"}},
		{"login", signInRequest{}, []string{"rememberMe", "recaptchaResponse"}},
		{"login", tokenRequest{}, []string{"recaptchaResponse"}},
		{"forgotPassword", forgotRequest{}, []string{"origin"}},
		{"resetPassword", resetRequest{}, []string{"token"}},
		{"auction", auctionRequest{}, []string{"preferredLanguage"}},
		{"", auctionConfirmRequest{}, []string{"token"}},
	} {
		want := slices.Clone(c.extra)
		for _, f := range forms[c.form] {
			want = append(want, f.Field)
		}
		got := requestFields(reflect.TypeOf(c.req))
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%T has the fields %v, want the %q form's and the call's: %v", c.req, got, c.form, want)
		}
	}
}
