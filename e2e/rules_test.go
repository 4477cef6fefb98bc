package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
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
	for name, body := range forms {
		if name[0] == '$' {
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
		"MH", "mh", "M", "123456", "1234567", "container", "Container", "open\n", "\u212a", "K", "ſ", "İ"}
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
