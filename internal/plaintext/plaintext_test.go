package plaintext

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"freightsite/data"
)

func TestCheckLine(t *testing.T) {
	for _, c := range []struct {
		name, in, want string // want: "" for allowed, else the start of the error
	}{
		{"plain", "Sahyadri Roadlines", ""},
		{"Devanagari", "सह्याद्री रोडलाइन्स", ""},
		{"eyelash ra: ZWJ after a virama", "र्\u200dया", ""},
		{"ZWNJ after a virama", "क्\u200cष", ""},
		{"ZWJ after a Tamil virama", "க்\u200dஷ", ""},
		{"emoji", "\U0001F69A truck", ""},
		{"no-break space", "Ravi\u00a0Kumar", ""},
		{"zero-width space", "Sahyadri\u200bRoadlines", "contains U+200B, an invisible format character"},
		{"soft hyphen", "dup7\u00ad@x.in", "contains U+00AD, an invisible format character"},
		{"word joiner", "a\u2060b", "contains U+2060, an invisible format character"},
		{"byte order mark", "\ufeffAcme", "contains U+FEFF, an invisible format character"},
		{"ZWJ after a letter", "Ravi\u200dKumar", "contains U+200D, an invisible format character"},
		{"ZWNJ at the start", "\u200cRavi", "contains U+200C, an invisible format character"},
		{"ZWJ after a joiner after a virama", "क्\u200d\u200dष", "contains U+200D"},
		{"Mongolian vowel separator", "\u180eRavi", "contains U+180E"},
		{"tag character", "Acme\U000E0041", "contains U+E0041"},
		{"right-to-left override", "invoice\u202efdp.exe", "contains U+202E, a bidi control"},
		{"left-to-right isolate", "a\u2066b\u2069", "contains U+2066, a bidi control"},
		{"Arabic letter mark", "a\u061cb", "contains U+061C, a bidi control"},
		{"line separator", "a\u2028b", "contains U+2028, a line or paragraph separator"},
		{"next line", "a\u0085b", "contains U+0085, a line break"},
		{"line feed", "a\nb", "contains U+000A, a line break"},
		{"tab", "a\tb", "contains U+0009, a tab"},
		{"NUL", "a\x00b", "contains U+0000, a control character"},
		{"not UTF-8", "a\xffb", "not valid UTF-8"},
	} {
		err := CheckLine(c.in)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want allowed", c.name, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestCheckTextKeepsLines(t *testing.T) {
	if err := CheckText("line one\r\nline two\n\tindented"); err != nil {
		t.Errorf("running text: %v", err)
	}
	for _, bad := range []string{"a\u202eb", "a\u200bb", "a\u2028b", "a\x00b", "a\x7fb"} {
		if CheckText(bad) == nil {
			t.Errorf("CheckText(%q) allowed", bad)
		}
	}
}

// TestSameRuleAsTheForms: CheckLine and data/forms.json's oneLine pattern
// (which the API and the React forms check) allow and refuse alike every
// character of the Basic Multilingual Plane and every hidden one beyond
// it, after a letter and after a virama.
func TestSameRuleAsTheForms(t *testing.T) {
	var forms struct {
		OneLine struct {
			Pattern string `json:"pattern"`
		} `json:"oneLine"`
	}
	if err := json.Unmarshal(data.File("forms.json"), &forms); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(forms.OneLine.Pattern)
	var runes []rune
	for r := rune(0); r <= 0xffff; r++ {
		if r < 0xd800 || r > 0xdfff {
			runes = append(runes, r)
		}
	}
	for _, table := range []*unicode.RangeTable{unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp} {
		for _, r32 := range table.R32 {
			for r := r32.Lo; r <= r32.Hi; r += r32.Stride {
				runes = append(runes, rune(r))
			}
		}
	}
	runes = append(runes, 0x1f69a, 0x10000, 0x1d400, 0xe0100, 0x10ffff)
	differ := 0
	for _, r := range runes {
		for _, before := range []string{"a", "क्", "ண்"} {
			if before != "a" && r != '\u200c' && r != '\u200d' && !Hidden(r) {
				continue
			}
			s := before + string(r)
			if got, want := CheckLine(s) == nil, re.MatchString(s); got != want {
				t.Errorf("%q: CheckLine allows it %v, forms.json's oneLine %v", s, got, want)
				if differ++; differ == 10 {
					t.Fatal("and more")
				}
			}
		}
	}
}
