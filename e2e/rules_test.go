package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestFieldPatternsAgreeInGoAndJavaScript: every pattern of
// data/forms.json gives the same answer in Go's RE2 (the API) and in
// Chromium's JavaScript with the u flag (the forms) for a set of values
// chosen to find the places where the two dialects differ.
func TestFieldPatternsAgreeInGoAndJavaScript(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "data", "forms.json"))
	if err != nil {
		t.Fatal(err)
	}
	var forms map[string]json.RawMessage
	json.Unmarshal(raw, &forms)
	var patterns []string
	seen := map[string]bool{}
	var oneLine struct {
		Pattern string `json:"pattern"`
	}
	if err := json.Unmarshal(forms["oneLine"], &oneLine); err != nil || oneLine.Pattern == "" {
		t.Fatalf("forms.json has no oneLine check: %v", err)
	}
	patterns = append(patterns, oneLine.Pattern)
	for name, body := range forms {
		if name[0] == '$' || name == "oneLine" {
			continue
		}
		var fields []struct {
			Checks []struct {
				Pattern string `json:"pattern"`
			} `json:"checks"`
		}
		if err := json.Unmarshal(body, &fields); err != nil {
			t.Fatal(err)
		}
		for _, f := range fields {
			for _, c := range f.Checks {
				if c.Pattern != "" && !seen[c.Pattern] {
					seen[c.Pattern] = true
					patterns = append(patterns, c.Pattern)
				}
			}
		}
	}
	values := []string{"", "a", "0", "0123", "9820012345", "98200 12345", "१२३४५६", "Ravi Kumar", "रवि कुमार", "मराठी नाव", " Ravi", "Ravi\u00a0Kumar", "Ravi\u2003Kumar",
		"Ravi2", "O'Brien", "a@b.in", "ravi@example.co.in", "ravi@example", "ravi@-example.in", "ravi@ex_ample.in", "रवि@example.in", "a b@c.in", "a@b.in\n",
		"MH", "mh", "M", "123456", "1234567", "container", "Container", "open\n", "\u212a", "K", "ſ", "İ",
		"a\u0085b", "a\u0080", "\u009f", "a\u2028b", "a\u2029b", "\u202eab", "a\u2066b\u2069", "\u061c", "\u200e", "\u200f", "a\tb", "a\rb", "a\x7fb",
		"क्\u200dष", "क्\u200cष", "\ufeffa", "a\u200bb", "\U0001F69A truck", "\u00a0Ravi", "\u3000Ravi", "\u2028Ravi", "\vRavi", "\u180eRavi",
		"dup7\u00ad@x.in", "a\u2060b", "Ravi\u200dKumar", "\u200cRavi", "र्\u200dया", "க்\u200dஷ", "क्\u200d\u200dष", "Acme\U000e0041", "\u2064"}
	p := newPage(t)
	p.open("/unsubscribe")
	for _, pattern := range patterns {
		re := regexp.MustCompile(pattern)
		valuesJSON, _ := json.Marshal(values)
		js := eval[[]bool](p, fmt.Sprintf(`%s.map(v => new RegExp(%q, 'u').test(v))`, valuesJSON, pattern))
		for i, v := range values {
			if goMatch := re.MatchString(v); goMatch != js[i] {
				t.Errorf("pattern %s on %q: Go %v, JavaScript %v", pattern, v, goMatch, js[i])
			}
		}
	}
	if len(patterns) < 8 {
		t.Errorf("only %d patterns found in forms.json", len(patterns))
	}
}

// TestOneLineFieldsInTheBrowser: the contact form shows a one-line
// field's message for a bidi override or a zero-width space pasted into it,
// before any call, as the API would answer; its message box takes them.
func TestOneLineFieldsInTheBrowser(t *testing.T) {
	p := newPage(t)
	p.open("/hi/contact-us")
	T := func(key string) string { return tr(t, "hi", key) }
	p.fill(T("contact.name"), "रवि कुमार")
	p.fill(T("contact.email"), "ravi@example.in")
	// Typing cannot enter these characters; pasting can (as insertText).
	paste := func(label, text string) {
		p.fill(label, "")
		p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.execCommand('insertText', false, %s)`, jsString(text))))
	}
	paste(T("contact.subject"), "invoice\u202efdp.exe")
	paste(T("contact.message"), "नमस्ते\u2028धन्यवाद")
	if got := eval[string](p, `document.querySelector('input[name=subject]').value`); got != "invoice\u202efdp.exe" {
		t.Fatalf("the subject holds %q after pasting", got)
	}
	p.click(`form button[type=submit]`)
	errs := p.fieldErrors()
	if errs[T("contact.subject")] != T("forms.oneLine") {
		t.Errorf("subject with a bidi override: %v, want %q", errs, T("forms.oneLine"))
	}
	if _, ok := errs[T("contact.message")]; ok || len(errs) != 1 {
		t.Errorf("field errors %v: want only the subject's", errs)
	}
	// A zero-width space makes a look-alike subject: refused alike.
	paste(T("contact.subject"), "Loads\u200bPune")
	p.click(`form button[type=submit]`)
	if errs := p.fieldErrors(); errs[T("contact.subject")] != T("forms.oneLine") || len(errs) != 1 {
		t.Errorf("subject with a zero-width space: %v, want only %q", errs, T("forms.oneLine"))
	}
	if p.requested("/api/contact_us") {
		t.Error("the form was sent with a bidi override or a zero-width space in the subject")
	}
	p.expectAccessible()
}
