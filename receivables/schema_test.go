package receivables

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite data/receivables-schema.json from Format")

// helpFile is where the help page reads Format from.
const helpFile = "../data/receivables-schema.json"

// TestHelpDataIsCurrent fails when data/receivables-schema.json no longer
// matches Format; `go test ./receivables -run HelpData -update` rewrites it.
func TestHelpDataIsCurrent(t *testing.T) {
	want, err := HelpData()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(helpFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(helpFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go test ./receivables -run HelpData -update", helpFile)
	}
	var back struct {
		Columns    []map[string]any `json:"columns"`
		ExampleRow string           `json:"exampleRow"`
		SampleFile string           `json:"sampleFile"`
	}
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Columns) != ColumnCount || back.Columns[8]["kind"] != "state" || back.SampleFile == "" {
		t.Errorf("help data: %d columns, %v", len(back.Columns), back.Columns[8])
	}
	if rep := validate(t, heading+"\n"+back.ExampleRow+"\n"); !rep.Valid {
		t.Errorf("example row %q is not valid: %+v", back.ExampleRow, rep.Errors)
	}
}

func TestColumnIDsAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Format.Columns {
		if seen[c.ID] || c.ID == "" || c.Name == "" {
			t.Errorf("column %+v", c)
		}
		seen[c.ID] = true
	}
}

// TestTableSchemaAgreesWithTheValidator: the Frictionless schema has the
// 25 fields in order, and its constraints accept and refuse what the
// validator does.
func TestTableSchemaAgreesWithTheValidator(t *testing.T) {
	raw, err := TableSchema()
	if err != nil {
		t.Fatal(err)
	}
	var s tableSchema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Fields) != ColumnCount {
		t.Fatalf("%d fields", len(s.Fields))
	}
	for i, f := range s.Fields {
		c := Format.Columns[i]
		if f.Name != c.ID || f.Title != c.Name || f.Constraints.Required != c.Required {
			t.Errorf("field %d: %+v for column %+v", i, f, c)
		}
		var pattern *regexp.Regexp
		if f.Constraints.Pattern != "" {
			pattern = regexp.MustCompile(`^(?:` + f.Constraints.Pattern + `)$`)
		}
		for _, tc := range casesFor(c) {
			if tc.value == "" || !utf8.ValidString(tc.value) || tc.want == RuleStateCode || tc.want == RuleFormulaError && c.Kind == Text {
				// A missing value; bytes no JSON or schema can hold; a
				// state code's list, which depends on the row's country,
				// and a text that is a formula's error value (a Table
				// Schema cannot say either: its description does).
				continue
			}
			n := len([]rune(tc.value))
			ok := (pattern == nil || pattern.MatchString(tc.value)) &&
				(f.Constraints.MaxLength == 0 || n <= f.Constraints.MaxLength) &&
				n >= f.Constraints.MinLength &&
				(f.Constraints.Enum == nil || slices.Contains(f.Constraints.Enum, tc.value))
			if ok != (tc.want == "") {
				t.Errorf("%s %q (%s): table schema says valid=%v", c.ID, tc.value, tc.name, ok)
			}
		}
	}
	if len(CountryCodes()) != 249 {
		t.Errorf("%d country codes, want ISO 3166-1's 249", len(CountryCodes()))
	}
}

// errorRules are the rules of a row or value: errors, summary groups
// (encoding and lostText are summary groups of their cause).
var errorRules = []Rule{RuleRequired, RuleMaxLength, RuleDigits, RuleDigitsLost, RuleCode, RuleStateCode, RuleCountry,
	RulePostalCode, RuleAmount, RuleThousands, RuleCurrency, RuleCredit, RuleScientific, RuleDecimalComma, RuleAmountDigits,
	RuleDecimals, RuleSpaces, RuleOneLine, RuleEncoding, RuleLostText, RuleColumns, RuleQuote, RuleBareQuote, RuleTotalsRow,
	RuleInvisible, RuleFormulaError, RuleLeadingZero, RuleDrCr, RuleZero, RuleAmountNeeded, RuleDate, RuleShorthand,
	RuleUnquotedComma, RuleSplitAmount}

// causeRules are the rules of the file as a whole.
var causeRules = []Rule{RuleEmpty, RuleNotCSV, RuleWorkbook, RuleUnicodeText, RuleLineEnds, RuleRowLength, RuleSeparator,
	RuleSepLine, RuleLinesAboveHeading, RuleHeadingMissing, RuleHeadingIsData, RuleColumnOrder, RuleMissingColumn,
	RuleExtraColumn, RuleTrailingColumns, RuleEmptyRows, RuleTotalsRow, RuleEncoding, RuleLostText, RuleOtherFormat, RuleGroupHeadings}

// warningRules are the rules of warnings.
var warningRules = []Rule{RuleDuplicateAccount, RuleDuplicateRow}

// TestThePageCanSayEverything: the help page and its checker translate
// every column, every error and summary line and every cause in every
// language; English column names are the schema's names (the sample
// file's heading), and every rule has an English reason.
func TestThePageCanSayEverything(t *testing.T) {
	for _, lang := range []string{"en", "hi", "ma"} {
		raw, err := os.ReadFile("../locales/" + lang + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var texts struct {
			ImportFormat struct {
				Columns  map[string]string `json:"columns"`
				Rules    map[string]string `json:"rules"`
				Causes   map[string]string `json:"causes"`
				Summary  map[string]string `json:"summary"`
				Limits   map[string]string `json:"limits"`
				Warnings map[string]string `json:"warnings"`
				Chars    map[string]string `json:"invisibleChars"`
			} `json:"importFormat"`
		}
		if err := json.Unmarshal(raw, &texts); err != nil {
			t.Fatal(err)
		}
		has := func(m map[string]string, key string) bool {
			return m[key] != "" || (m[key+"_one"] != "" && m[key+"_other"] != "")
		}
		for _, c := range Format.Columns {
			name := texts.ImportFormat.Columns[c.ID]
			if name == "" || (lang == "en" && name != c.Name) {
				t.Errorf("%s: column %s is called %q", lang, c.ID, name)
			}
			if !has(texts.ImportFormat.Limits, c.Kind.String()) {
				t.Errorf("%s: no text for the rules of a %s column", lang, c.Kind)
			}
		}
		for _, r := range errorRules {
			if !has(texts.ImportFormat.Rules, string(r)) || !has(texts.ImportFormat.Summary, string(r)) {
				t.Errorf("%s: rule %s has no error or summary text", lang, r)
			}
			if _, ok := groupNames[r]; lang == "en" && ((r != RuleRequired && requirement(r, &Problem{Limit: 1, Found: 1}) == string(r)) || !ok) {
				t.Errorf("rule %s has no English reason or summary name", r)
			}
		}
		for _, r := range warningRules {
			if !has(texts.ImportFormat.Warnings, string(r)) || lang == "en" && warningReason(&Problem{Rule: r}) == "" {
				t.Errorf("%s: warning %s has no text", lang, r)
			}
		}
		// A problem running through columns is a cause said with the
		// summary's words (accounting is one of its own).
		if !has(texts.ImportFormat.Summary, string(RuleAccounting)) || !has(texts.ImportFormat.Causes, "column") {
			t.Errorf("%s: no words for a problem running through columns", lang)
		}
		for _, r := range strings.Split(invisibleChars, "") {
			if key := fmt.Sprintf("u%04x", []rune(r)[0]); texts.ImportFormat.Chars[key] == "" || lang == "en" && invisibleNames[fmt.Sprintf("U+%04X", []rune(r)[0])] == "" {
				t.Errorf("%s: the invisible character %s has no name", lang, key)
			}
		}
		for _, r := range causeRules {
			if !has(texts.ImportFormat.Causes, string(r)) {
				t.Errorf("%s: cause %s has no text", lang, r)
			}
			if lang == "en" && causeReason(&Problem{Rule: r, Row: 1, LastRow: 1, Column: 1, Limit: 1, Found: 26, Count: 1}) == string(r) {
				t.Errorf("cause %s has no English reason", r)
			}
		}
	}
}
