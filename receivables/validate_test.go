package receivables

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

const heading = "Account Number,Company Name,MC Number,Phone,Fax,Address Line 1,Address Line 2,City,State,Postal Code,Country,Attention,Mailing Address 1,Mailing Address 2,Mailing City,Mailing State,Mailing Postal Code,Mailing Country,Days 1-15,Days 16-30,Days 31-45,Days 46-60,Days 61-75,Days 76-90,Over 91 Days"

// exampleRow is Format's example values with column i set to value.
func exampleRow(i int, value string) []string {
	row := make([]string, ColumnCount)
	for j, c := range Format.Columns {
		row[j] = c.Example
	}
	if i >= 0 {
		row[i] = value
	}
	return row
}

// csvLine quotes fields as a spreadsheet would.
func csvLine(fields []string) string {
	out := make([]string, len(fields))
	for i, f := range fields {
		if strings.ContainsAny(f, ",\"\r\n") || strings.HasPrefix(f, " ") {
			f = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
		}
		out[i] = f
	}
	return strings.Join(out, ",")
}

func validate(t *testing.T, file string, opts ...Options) *Report {
	t.Helper()
	o := Options{MaxErrors: DefaultMaxErrors}
	if len(opts) > 0 {
		o = opts[0]
	}
	rep, err := Validate(strings.NewReader(file), o)
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return rep
}

type valueCase struct {
	name  string
	value string
	want  Rule // "" when the value is valid
}

// casesFor lists, for one column, a value per rule it must follow and a
// few it must accept, with the column's own limits.
func casesFor(c Column) []valueCase {
	var cs []valueCase
	if c.Required {
		cs = append(cs, valueCase{"required", "", RuleRequired}, valueCase{"required, spaces only", "   ", RuleRequired})
	} else {
		cs = append(cs, valueCase{"optional may be empty", "", ""})
	}
	general := []valueCase{
		{"no leading space", " " + c.Example, RuleSpaces},
		{"no trailing space", c.Example + " ", RuleSpaces},
		{"one line", c.Example[:1] + "\n" + c.Example[1:], RuleOneLine},
		{"no tab", c.Example[:1] + "\t" + c.Example[1:], RuleOneLine},
		{"UTF-8 only", c.Example[:1] + "\xff" + c.Example[1:], RuleEncoding},
		{"no invisible characters", c.Example + "\u00a0", RuleInvisible},
		{"no zero-width spaces", c.Example[:1] + "\u200b" + c.Example[1:], RuleInvisible},
		{"not a formula's error", "#REF!", RuleFormulaError},
	}
	switch c.Kind {
	case Text:
		cs = append(cs,
			valueCase{"a question mark is text", "Why? Logistics", ""},
			valueCase{"at most MaxLength characters", strings.Repeat("x", c.MaxLength), ""},
			valueCase{"more than MaxLength characters", strings.Repeat("x", c.MaxLength+1), RuleMaxLength},
			valueCase{"MaxLength counts characters, not bytes", strings.Repeat("क", c.MaxLength), ""},
			valueCase{"quotes and commas are text", `Shah & Sons, "North"`, ""},
		)
	case Digits:
		cs = append(cs,
			valueCase{"exactly Length digits", strings.Repeat("7", c.Length), ""},
			valueCase{"fewer digits", strings.Repeat("7", c.Length-3), RuleDigits},
			valueCase{"more digits", strings.Repeat("7", c.Length+1), RuleDigits},
			valueCase{"digits only, no spaces", strings.Repeat("7", c.Length-2) + " 7", RuleDigits},
			valueCase{"digits only, no plus", "+" + strings.Repeat("7", c.Length-1), RuleDigits},
			valueCase{"ASCII digits only", strings.Repeat("७", c.Length), RuleDigits},
		)
		if c.LeadingZeros {
			cs = append(cs, valueCase{"a leading zero Excel dropped", strings.Repeat("7", c.Length-1), RuleLeadingZero})
		} else {
			cs = append(cs, valueCase{"a digit fewer", strings.Repeat("7", c.Length-1), RuleDigits})
		}
	case State:
		cs = append(cs,
			valueCase{"an Indian state", "DL", ""},
			valueCase{"a union territory", "LA", ""},
			valueCase{"lower case", "mh", RuleCode},
			valueCase{"too long", "MAH", RuleCode},
			valueCase{"too short", "M", RuleCode},
			valueCase{"letters only", "M1", RuleCode},
			valueCase{"on the registration list", "OR", RuleStateCode},
			valueCase{"not a state at all", "XX", RuleStateCode},
		)
	case Country:
		cs = append(cs,
			valueCase{"assigned code", "GB", ""},
			valueCase{"not an assigned code", "UK", RuleCountry},
			valueCase{"lower case", "in", RuleCountry},
			valueCase{"alpha-3 code", "IND", RuleCountry},
		)
	case PostalCode:
		cs = append(cs,
			valueCase{"letters, digits, space, hyphen", "SW1A 1AA", ""},
			valueCase{"US ZIP+4", "10001-1234", ""},
			valueCase{"at most MaxLength characters", strings.Repeat("9", c.MaxLength), ""},
			valueCase{"more than MaxLength characters", strings.Repeat("9", c.MaxLength+1), RuleMaxLength},
			valueCase{"no other characters", "4110#8", RulePostalCode},
		)
	case Amount:
		general = append(general[:2], general[5:]...) // a line break or a bad byte is simply not an amount
		cs = append(cs,
			valueCase{"whole number", "12000", ""},
			valueCase{"two decimals", "1250.50", ""},
			valueCase{"one decimal", "0.5", ""},
			valueCase{"zero", "0", ""},
			valueCase{"negative amounts are credits", "-75.25", ""},
			valueCase{"at most AmountDigits digits", "9999999999999.99", ""},
			valueCase{"more than AmountDigits digits", "10000000000000", RuleAmountDigits},
			valueCase{"more than AmountDecimals decimals", "1.234", RuleDecimals},
			valueCase{"no thousands separator", "1,000", RuleThousands},
			valueCase{"no currency symbol", "₹500", RuleCurrency},
			valueCase{"no plus sign", "+5", RuleAmount},
			valueCase{"no exponent", "1e5", RuleScientific},
			valueCase{"no brackets for credits", "(75.00)", RuleCredit},
			valueCase{"digit before the point", ".5", RuleAmount},
			valueCase{"digit after the point", "5.", RuleAmount},
			valueCase{"a minus alone is Excel's zero", "-", RuleZero},
			valueCase{"NIL is zero", "NIL", RuleZero},
			valueCase{"decimal point, not comma", "5,50", RuleDecimalComma},
			valueCase{"not text", "five", RuleAmountNeeded},
			valueCase{"no Dr or Cr", "500.00 Cr", RuleDrCr},
			valueCase{"not a date", "12/03/2025", RuleDate},
			valueCase{"no lakh written short", "1.5 L", RuleShorthand},
		)
	}
	return append(cs, general...)
}

// TestEveryRuleOfEveryColumn checks each column with a value per rule, in
// a file of its own: one error with the right rule, line and column, or
// none for values the rule allows.
func TestEveryRuleOfEveryColumn(t *testing.T) {
	for i, c := range Format.Columns {
		for _, tc := range casesFor(c) {
			t.Run(c.ID+"/"+tc.name, func(t *testing.T) {
				rep := validate(t, heading+"\n"+csvLine(exampleRow(i, tc.value))+"\n")
				if tc.want == "" {
					if !rep.Valid || rep.ErrorCount != 0 {
						t.Fatalf("%q: want valid, got %+v", tc.value, rep.Errors)
					}
					return
				}
				got := rep.Errors
				if tc.want == RuleEncoding {
					got = rep.Causes // the file's one cause, saving as ANSI
				} else if len(rep.Causes) > 0 {
					t.Errorf("%q: causes %+v", tc.value, rep.Causes)
				}
				if rep.Valid || len(got) != 1 {
					t.Fatalf("%q: want one %s problem, got %+v", tc.value, tc.want, got)
				}
				p := got[0]
				if p.Rule != tc.want || p.Line != 2 || p.Row != 2 || p.Column != i+1 || p.ColumnLetter != ColumnLetter(i+1) || p.ColumnID != c.ID || p.ColumnName != c.Name || p.Reason == "" {
					t.Errorf("%q: got %+v, want rule %s at line 2, column %d (%s)", tc.value, p, tc.want, i+1, c.ID)
				}
			})
		}
	}
}

func TestReasonsArePlain(t *testing.T) {
	file := heading + "\n" + csvLine(exampleRow(3, "98765")) + "\n" +
		csvLine(exampleRow(0, strings.Repeat("A", 36))) + "\n" +
		csvLine(exampleRow(1, "")) + "\n" +
		csvLine(exampleRow(-1, "")[:24]) + "\n"
	got := []string{}
	for _, p := range validate(t, file).Errors {
		got = append(got, p.Reason)
	}
	want := []string{"must be exactly 10 digits", "at most 35 characters (has 36)", "required", "expected 25 columns, found 24"}
	if !slices.Equal(got, want) {
		t.Errorf("reasons\n got %q\nwant %q", got, want)
	}
}

func TestStructure(t *testing.T) {
	valid := csvLine(exampleRow(-1, ""))
	badPhone := csvLine(exampleRow(3, "123"))
	multiLine := csvLine(exampleRow(5, "Plot 14")) // replaced below with a quoted line break
	multiLine = strings.Replace(multiLine, "Plot 14", "\"Plot 14\nMIDC\"", 1)
	tests := []struct {
		name  string
		file  string
		rows  int
		valid bool
		// errs are the causes and errors expected, as "line:column:rule".
		errs []string
	}{
		{"LF line ends", heading + "\n" + valid + "\n" + valid + "\n", 2, true, nil},
		{"CRLF line ends", heading + "\r\n" + valid + "\r\n" + valid + "\r\n", 2, true, nil},
		{"byte order mark", "\ufeff" + heading + "\r\n" + valid + "\r\n", 1, true, nil},
		{"no line end at the end", heading + "\n" + valid, 1, true, nil},
		{"blank trailing lines", heading + "\n" + valid + "\n\n\r\n", 1, true, nil},
		{"quoted commas", heading + "\n" + csvLine(exampleRow(5, "Plot 14, MIDC, Taloja")) + "\n", 1, true, nil},
		{"quoted quotes", heading + "\n" + csvLine(exampleRow(1, `Delhi "Express" Cargo`)) + "\n", 1, true, nil},
		{"quoted line break: later lines keep their physical number",
			heading + "\n" + multiLine + "\n" + badPhone + "\n", 2, false,
			[]string{"2:6:oneLine", "4:4:digits"}},
		{"quoted line break: a later field of the same row is on the next line",
			heading + "\n" + strings.Replace(badPhone, "Plot 14, MIDC Industrial Area", "Plot\n\n14", 1) + "\n", 1, false,
			[]string{"2:4:digits", "2:6:oneLine"}},
		{"a field after a multi-line field",
			heading + "\n" + strings.Replace(csvLine(exampleRow(9, "41#")), `"Plot 14, MIDC Industrial Area"`, "\"Plot\n14\"", 1) + "\n", 1, false,
			[]string{"2:6:oneLine", "3:10:postalCode"}},
		{"too few columns", heading + "\n" + csvLine(exampleRow(-1, "")[:24]) + "\n", 1, false, []string{"2:0:columns"}},
		{"too many columns", heading + "\n" + valid + ",extra\n", 1, false, []string{"2:0:columns"}},
		{"a row of one column", heading + "\nA;B;C\n", 1, false, []string{"2:0:columns"}},
		{"heading may have any columns", "Accounts\n" + valid + "\n", 1, true, nil},
		{"bare quote, reading goes on", heading + "\n" + strings.Replace(valid, "Taloja", `Tal"oja`, 1) + "\n" + badPhone + "\n", 2, false,
			[]string{"2:7:bareQuote", "3:4:digits"}},
		{"text after a closing quote, reading goes on", heading + "\n" + strings.Replace(valid, "Taloja", `"Tal"oja`, 1) + "\n" + badPhone + "\n", 2, false,
			[]string{"2:7:quote", "3:4:digits"}},
		{"quote never closed", heading + "\n" + valid + "\n" + strings.Replace(valid, "Taloja", "\"Taloja\nand more", 1) + "\n", 2, false,
			[]string{"3:7:quote"}},
		{"bad quote in the heading", `Account "Number"` + "\n" + valid + "\n", 1, false, []string{"1:1:bareQuote"}},
		{"invalid UTF-8: a cause", heading + "\n" + csvLine(exampleRow(1, "Sharma \xe0\xa4 Roadlines")) + "\n", 1, false, []string{"2:2:encoding"}},
		{"empty file", "", 0, false, []string{"0:0:empty"}},
		{"only a byte order mark", "\ufeff", 0, false, []string{"0:0:empty"}},
		{"only blank lines", "\n\r\n\n", 0, false, []string{"0:0:empty"}},
		{"heading only", heading + "\r\n", 0, true, nil},
		{"Excel workbook", "PK\x03\x04\x14\x00\x06\x00", 0, false, []string{"0:0:workbook"}},
		{"old Excel workbook", "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", 0, false, []string{"0:0:workbook"}},
		{"UTF-16 text", "\xff\xfeA\x00c\x00", 0, false, []string{"0:0:unicodeText"}},
		{"UTF-16 text without a byte order mark", "A\x00c\x00c\x00", 0, false, []string{"0:0:unicodeText"}},
		{"PDF", "%PDF-1.7\n", 0, false, []string{"0:0:notCsv"}},
		{"binary", "abc\x00def", 0, false, []string{"0:0:notCsv"}},
		{"carriage returns alone end lines: read, and a cause", heading + "\r" + valid + "\r" + badPhone + "\r", 2, false, []string{"0:0:lineEnds", "3:4:digits"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := validate(t, tc.file)
			var got []string
			for _, p := range append(rep.Causes, rep.Errors...) {
				got = append(got, fmt.Sprintf("%d:%d:%s", p.Line, p.Column, p.Rule))
			}
			if rep.Valid != tc.valid || rep.Rows != tc.rows || !slices.Equal(got, tc.errs) {
				t.Errorf("valid %v rows %d errors %v; want valid %v rows %d errors %v\n%+v", rep.Valid, rep.Rows, got, tc.valid, tc.rows, tc.errs, rep.Errors)
			}
		})
	}
}

func TestColumnCountSaysHowMany(t *testing.T) {
	rep := validate(t, heading+"\n"+csvLine(exampleRow(-1, "")[:24])+"\n")
	if p := rep.Errors[0]; p.Limit != 25 || p.Found != 24 || p.Reason != "expected 25 columns, found 24" {
		t.Errorf("got %+v", p)
	}
}

func TestInvalidUTF8IsShownReplaced(t *testing.T) {
	rep := validate(t, heading+"\n"+csvLine(exampleRow(1, "Sharma \xff"))+"\n")
	if v := rep.Causes[0].Value; v != "Sharma \uFFFD" {
		t.Errorf("value %q", v)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, []*Report{rep}); err != nil || !json.Valid(buf.Bytes()) {
		t.Errorf("JSON not valid: %v\n%s", err, buf.String())
	}
}

func TestLongValuesAreShortened(t *testing.T) {
	rep := validate(t, heading+"\n"+csvLine(exampleRow(0, strings.Repeat("क", 60)))+"\n")
	if v := rep.Errors[0].Value; v != strings.Repeat("क", 39)+"…" {
		t.Errorf("value %q", v)
	}
}

// TestARowTooLongStopsReading: an open quote swallowing the rest of a big
// file stops at MaxRowBytes, so memory stays bounded.
func TestARowTooLongStopsReading(t *testing.T) {
	valid := csvLine(exampleRow(5, "Plot 14")) // no quotes to close the open one
	var b strings.Builder
	b.WriteString(heading + "\n" + valid + "\n" + `"never closed,` + "\n")
	for b.Len() < 3*MaxRowBytes {
		b.WriteString(valid + "\n")
	}
	rep := validate(t, b.String())
	if rep.Valid || len(rep.Causes) != 1 || rep.Causes[0].Rule != RuleRowLength || rep.Causes[0].Line != 3 || rep.Rows != 1 {
		t.Errorf("rows %d, causes %+v", rep.Rows, rep.Causes)
	}
}

func TestMaxErrorsListsFirstAndCountsTheRest(t *testing.T) {
	// One bad phone in five rows: not a problem running through the column.
	bad := csvLine(exampleRow(3, "1"))
	for i := range 4 {
		bad += "\n" + csvLine(exampleRow(0, fmt.Sprint("CUST-", i)))
	}
	file := heading + "\n" + strings.Repeat(bad+"\n", 5)
	rep := validate(t, file, Options{MaxErrors: 2})
	if rep.ErrorCount != 5 || len(rep.Errors) != 2 || rep.OmittedErrors != 3 || rep.Errors[1].Line != 7 || len(rep.Causes) != 0 {
		t.Errorf("count %d listed %d omitted %d", rep.ErrorCount, len(rep.Errors), rep.OmittedErrors)
	}
	var text bytes.Buffer
	WriteText(&text, []*Report{rep})
	if !strings.Contains(text.String(), "3 more errors not listed") || !strings.Contains(text.String(), "INVALID, 25 rows checked, 5 errors") {
		t.Errorf("text:\n%s", text.String())
	}
	if rep := validate(t, file, Options{MaxErrors: 0}); rep.ErrorCount != 5 || len(rep.Errors) != 0 || rep.Valid {
		t.Errorf("max 0: %+v", rep)
	}
}

func TestTextOutput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	good := filepath.Join(dir, "good.csv")
	empty := filepath.Join(dir, "heading.csv")
	os.WriteFile(bad, []byte(heading+"\n"+csvLine(exampleRow(3, "98765"))+"\n"), 0o644)
	os.WriteFile(good, Sample(), 0o644)
	os.WriteFile(empty, []byte(heading+"\n"), 0o644)
	reports := []*Report{ValidateFile(bad, Options{MaxErrors: 10}), ValidateFile(good, Options{}), ValidateFile(empty, Options{}), ValidateFile(dir, Options{})}
	var buf bytes.Buffer
	WriteText(&buf, reports)
	out := buf.String()
	for _, want := range []string{
		bad + `:2:4: row 2, D2 (Phone): must be exactly 10 digits (value "98765")`,
		bad + ": INVALID, 1 row checked, 1 error (",
		good + ": valid, 3 rows checked, no errors (",
		empty + ": valid, but it has no data rows, only the heading (",
		dir + ": UNUSABLE, cannot be read: is a folder, not a file",
		"4 files, 2 valid, 2 not valid. Total in ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestJSONShape(t *testing.T) {
	rep := validate(t, heading+"\n"+csvLine(exampleRow(3, "98765"))+"\n")
	rep.File = "bad.csv"
	var buf bytes.Buffer
	if err := WriteJSON(&buf, []*Report{rep}); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Valid bool             `json:"valid"`
		Files []map[string]any `json:"files"`
	}
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	f := out.Files[0]
	keys := func(m map[string]any) []string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		slices.Sort(k)
		return k
	}
	if got := keys(f); !slices.Equal(got, []string{"causes", "durationMs", "errorCount", "errors", "errorsInCauses", "file", "fixable", "omittedErrors", "rows", "valid", "warningCount", "warnings"}) {
		t.Errorf("report keys %v", got)
	}
	e := f["errors"].([]any)[0].(map[string]any)
	if got := keys(e); !slices.Equal(got, []string{"column", "columnId", "columnLetter", "columnName", "limit", "line", "reason", "row", "rule", "value"}) {
		t.Errorf("error keys %v", got)
	}
	if out.Valid || e["line"] != 2.0 || e["row"] != 2.0 || e["columnLetter"] != "D" || e["column"] != 4.0 || e["columnId"] != "phone" || e["rule"] != "digits" || e["limit"] != 10.0 || e["value"] != "98765" {
		t.Errorf("JSON:\n%s", buf.String())
	}
	// A valid file lists an empty array, not null.
	buf.Reset()
	_ = WriteJSON(&buf, []*Report{validate(t, heading+"\n")})
	if !strings.Contains(buf.String(), `"errors": []`) || !strings.Contains(buf.String(), `"causes": []`) || !strings.Contains(buf.String(), `"valid": true`) {
		t.Errorf("valid JSON:\n%s", buf.String())
	}
}

func TestUnusableInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.csv")
	os.WriteFile(file, Sample(), 0o644)
	for _, tc := range []struct{ name, path, want string }{
		{"folder", dir, "is a folder, not a file"},
		{"missing file", filepath.Join(dir, "missing.csv"), "no such file or directory"},
		{"path through a file", filepath.Join(file, "x.csv"), "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := ValidateFile(tc.path, Options{})
			if rep.Status() != StatusUnusable || rep.Unusable != tc.want || rep.Valid {
				t.Errorf("status %d unusable %q", rep.Status(), rep.Unusable)
			}
		})
	}
	t.Run("read error", func(t *testing.T) {
		in := iotest.TimeoutReader(strings.NewReader(heading + "\n")) // second read fails
		if _, err := Validate(in, Options{}); err == nil {
			t.Error("a read error was not returned")
		}
	})
	if ValidateFile(file, Options{}).Status() != StatusValid {
		t.Error("the sample is not valid")
	}
}

func TestSampleIsValidAndOpensInExcel(t *testing.T) {
	s := Sample()
	if !bytes.HasPrefix(s, []byte("\ufeff"+Format.Columns[0].Name)) || !bytes.Contains(s, []byte("\r\n")) {
		t.Errorf("sample lacks a byte order mark or CRLF:\n%q", s)
	}
	rep := validate(t, string(s))
	if !rep.Valid || rep.Rows != 3 {
		t.Errorf("sample: %+v", rep)
	}
	if !bytes.Contains(s, []byte("-250.75")) {
		t.Error("the sample shows no credit")
	}
}

func TestExamplesAreValid(t *testing.T) {
	for _, c := range Format.Columns {
		if bad, ok := c.check(c.Example); ok {
			t.Errorf("%s: example %q breaks %s", c.ID, c.Example, bad.rule)
		}
	}
}

// TestPlainTextLooksAtEveryByte: the eight-bytes-at-a-time test agrees
// with a byte-by-byte one for every byte value at every place of values
// of 1 to 20 bytes.
func TestPlainTextLooksAtEveryByte(t *testing.T) {
	for n := 1; n <= 20; n++ {
		for at := range n {
			for b := range 256 {
				v := []byte(strings.Repeat("a", n))
				v[at] = byte(b)
				want := b >= ' ' && b <= '~' && b != '?' && !(b == ' ' && (at == 0 || at == n-1))
				if got := plainText(string(v)); got != want {
					t.Fatalf("plainText(%q) = %v, want %v", v, got, want)
				}
			}
		}
	}
}

// TestAnotherFormatStopsReading: otherFormatRows rows in a row without 25
// columns (a file of one-value lines, another report's columns) end the
// check with one cause naming the rows, after listing their errors; rows
// of the format in between start the count again, so a real file with
// many short rows is checked to its end.
func TestAnotherFormatStopsReading(t *testing.T) {
	valid := csvLine(exampleRow(-1, ""))
	for _, c := range []struct {
		name             string
		file             string
		stops            bool
		rows, line, last int
		found            int
	}{
		{"one-value lines after the heading", heading + "\n" + strings.Repeat("1\n", 5000), true, otherFormatRows, 2, otherFormatRows + 1, 1},
		{"one-value lines with no heading", strings.Repeat("1\n", 5000), true, otherFormatRows, 2, otherFormatRows + 1, 1},
		{"another report's 7 columns after a valid row", heading + "\n" + valid + "\n" + strings.Repeat("a,b,c,d,e,f,g\n", 3000), true, otherFormatRows + 1, 3, otherFormatRows + 2, 7},
		{"short rows with a valid row now and then", heading + "\n" + strings.Repeat(strings.Repeat("1\n", otherFormatRows-1)+valid+"\n", 4), false, 4 * otherFormatRows, 0, 0, 0},
		{"one short row less than the limit", heading + "\n" + strings.Repeat("1\n", otherFormatRows-1), false, otherFormatRows - 1, 0, 0, 0},
	} {
		rep := validate(t, c.file)
		var cause *Problem
		for i, p := range rep.Causes {
			if p.Rule == RuleOtherFormat {
				cause = &rep.Causes[i]
			}
		}
		if rep.Valid || (cause != nil) != c.stops || rep.Rows != c.rows {
			t.Errorf("%s: valid %v, rows %d (want %d), causes %+v", c.name, rep.Valid, rep.Rows, c.rows, rep.Causes)
			continue
		}
		if !c.stops {
			continue
		}
		if cause.Line != c.line || cause.LastLine != c.last || cause.Count != otherFormatRows || cause.Found != c.found || cause.Limit != ColumnCount {
			t.Errorf("%s: cause %+v, want lines %d–%d, %d rows of %d columns", c.name, *cause, c.line, c.last, otherFormatRows, c.found)
		}
		if rep.ErrorCount != rep.Rows-(c.rows-otherFormatRows) || !strings.Contains(cause.Reason, "not a file in the import format") {
			t.Errorf("%s: %d errors for %d rows; reason %q", c.name, rep.ErrorCount, rep.Rows, cause.Reason)
		}
	}
}
