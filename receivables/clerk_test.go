package receivables

// Files made the way a clerk's tools make them: Excel's "Save As" types
// (CSV UTF-8, ANSI "CSV (Comma delimited)" with a region's list separator,
// "Text (Tab delimited)", "Unicode Text"), Tally's and ERP systems'
// exports (report titles above the heading, totals rows, rows of commas),
// and what Excel does to numbers. Each test builds its file here, from
// the sample's accounts, and checks that the report names the one cause
// and what to type instead.

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// sheet is a spreadsheet: the heading, then one row per account.
type sheet [][]string

// accounts returns a sheet of the format's heading and n accounts like
// the sample's: every third one has a Hindi company name, every fifth a
// Marathi contact.
func accounts(n int) sheet {
	s := sheet{headingRow()}
	for i := range n {
		row := exampleRow(-1, "")
		row[0] = fmt.Sprintf("CUST-%06d", 124+i)
		if i%3 == 1 {
			row[1] = "श्री गणेश ट्रांसपोर्ट"
		}
		if i%5 == 2 {
			row[11] = "सुनीता पाटील"
		}
		row[18] = fmt.Sprintf("%d.50", 1000+i)
		s = append(s, row)
	}
	return s
}

func headingRow() []string {
	h := make([]string, ColumnCount)
	for i, c := range Format.Columns {
		h[i] = c.Name
	}
	return h
}

// set changes the value of column (a letter) in row r (0 is the heading).
func (s sheet) set(r int, column string, v string) sheet {
	for i := range ColumnCount {
		if ColumnLetter(i+1) == column {
			s[r][i] = v
			return s
		}
	}
	panic("no column " + column)
}

// excel is how Excel writes a sheet as text.
type excel struct {
	sep      byte // the list separator: ',' or ';' (a region's setting) or '\t'
	ansi     bool // "CSV (Comma delimited)": Windows-1252, "?" for what it cannot hold
	bom      bool // "CSV UTF-8 (Comma delimited)" starts with a byte order mark
	sepLine  bool // a "sep=," first line
	extra    int  // empty columns after Y that were once used (Z, AA...)
	empties  int  // rows of separators only, below the accounts
	lineEnds string
	// noQuotes writes values as they are, commas and all, as a web
	// portal's export or a hand edit in Notepad does.
	noQuotes bool
}

var csvUTF8 = excel{sep: ',', bom: true, lineEnds: "\r\n"}

func (x excel) write(s sheet) []byte {
	var b bytes.Buffer
	if x.bom {
		b.WriteString("\ufeff")
	}
	if x.sepLine {
		b.WriteString("sep=" + string(x.sep) + x.lineEnds)
	}
	line := func(values []string) {
		for i, v := range values {
			if i > 0 {
				b.WriteByte(x.sep)
			}
			if !x.noQuotes && strings.ContainsAny(v, string(x.sep)+"\"\r\n") {
				v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
			}
			b.WriteString(v)
		}
		b.WriteString(x.lineEnds)
	}
	for _, row := range s {
		line(append(slices.Clone(row), make([]string, x.extra)...))
	}
	for range x.empties {
		line(make([]string, len(s[0])+x.extra))
	}
	if x.ansi {
		return windows1252(b.String())
	}
	return b.Bytes()
}

// windows1252 encodes s as Excel's "ANSI": Windows-1252's letters (Latin-1
// and a few such as ’ and €) as their byte, anything else (Devanagari, ₹)
// as "?".
func windows1252(s string) []byte {
	var out []byte
	for _, r := range s {
		if i := slices.Index(cp1252High[:], r); i > 0 {
			out = append(out, byte(0x80+i))
		} else if r < 0x100 {
			out = append(out, byte(r))
		} else if r != 0xfeff {
			out = append(out, '?')
		}
	}
	return out
}

// unicodeText is Excel's "Unicode Text": UTF-16 (little-endian, with a
// byte order mark), values separated by tabs.
func unicodeText(s sheet) []byte {
	var text strings.Builder
	for _, row := range s {
		text.WriteString(strings.Join(row, "\t") + "\r\n")
	}
	out := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(text.String())) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

func check(t *testing.T, file []byte) *Report {
	t.Helper()
	rep, err := Validate(bytes.NewReader(file), Options{MaxErrors: DefaultMaxErrors})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// causes lists a report's causes as "rule" or "rule@row".
func causes(r *Report) []string {
	var out []string
	for _, p := range r.Causes {
		out = append(out, string(p.Rule))
	}
	return out
}

func wantCauses(t *testing.T, r *Report, want ...string) {
	t.Helper()
	if got := causes(r); !slices.Equal(got, want) {
		t.Errorf("causes %v, want %v:\n%s", got, want, text(r))
	}
}

func wantNoErrors(t *testing.T, r *Report) {
	t.Helper()
	if r.ErrorCount != 0 {
		t.Errorf("%d errors, want none (the causes cover them):\n%s", r.ErrorCount, text(r))
	}
}

func text(r *Report) string {
	var b bytes.Buffer
	WriteText(&b, []*Report{r})
	return b.String()
}

func TestCSVUTF8FromExcelIsValid(t *testing.T) {
	rep := check(t, csvUTF8.write(accounts(30)))
	if !rep.Valid || rep.Rows != 30 {
		t.Errorf("%s", text(rep))
	}
}

// TestANSISaveLosesDevanagari: Excel's "CSV (Comma delimited)" turns each
// Hindi or Marathi letter into "?"; such a file must not pass, and the
// report says it once: save as CSV UTF-8.
func TestANSISaveLosesDevanagari(t *testing.T) {
	s := accounts(30)
	rep := check(t, excel{sep: ',', ansi: true, lineEnds: "\r\n"}.write(s))
	wantCauses(t, rep, "lostText")
	wantNoErrors(t, rep)
	p := rep.Causes[0]
	lost := 0
	for _, row := range s[1:] {
		for _, v := range row {
			if strings.ContainsAny(v, "शस") {
				lost++
			}
		}
	}
	if p.Count != lost || p.Row != 3 || p.ColumnLetter != "B" || p.Value != string(windows1252("श्री गणेश ट्रांसपोर्ट")) ||
		!strings.Contains(p.Reason, `Save the original again as "CSV UTF-8 (Comma delimited)"`) {
		t.Errorf("cause %+v, want %d values first in row 3, column B", p, lost)
	}
	if rep.Valid || rep.Status() != StatusInvalid {
		t.Error("a file whose names are question marks passed")
	}

	// Accented Latin letters survive as Windows-1252 bytes, which are not
	// UTF-8: the same cause, said the same way.
	s = accounts(3).set(2, "L", "Mme Hélène Dsouza")
	rep = check(t, excel{sep: ',', ansi: true, lineEnds: "\r\n"}.write(s))
	wantCauses(t, rep, "encoding", "lostText")
	if p := rep.Causes[0]; p.Row != 3 || p.ColumnLetter != "L" || p.Value != "Mme H\uFFFDl\uFFFDne Dsouza" {
		t.Errorf("encoding cause %+v", p)
	}
}

// TestListSeparators: Excel saves "CSV" with the computer's list
// separator; a semicolon file is read with semicolons, so the report has
// the one cause and then the rows' own errors, not a "1 column" per row.
func TestListSeparators(t *testing.T) {
	t.Run("semicolons, decimal point", func(t *testing.T) {
		rep := check(t, excel{sep: ';', bom: true, lineEnds: "\r\n"}.write(accounts(20).set(4, "D", "98765")))
		wantCauses(t, rep, "separator")
		if p := rep.Causes[0]; p.Value != ";" || !strings.Contains(p.Reason, "semicolons") {
			t.Errorf("%+v", p)
		}
		if rep.ErrorCount != 1 || rep.Errors[0].Row != 5 || rep.Errors[0].ColumnID != "phone" {
			t.Errorf("want only the phone error of row 5:\n%s", text(rep))
		}
	})
	t.Run("semicolons, decimal comma", func(t *testing.T) {
		s := accounts(2).set(1, "S", "1250,50").set(2, "Y", "-75,5")
		rep := check(t, excel{sep: ';', lineEnds: "\r\n"}.write(s))
		wantCauses(t, rep, "separator")
		var got []string
		for _, p := range rep.Errors {
			got = append(got, fmt.Sprintf("%s%d %s %s", p.ColumnLetter, p.Row, p.Rule, p.Suggestion))
		}
		if want := []string{"S2 decimalComma 1250.50", "Y3 decimalComma -75.5"}; !slices.Equal(got, want) {
			t.Errorf("errors %v, want %v", got, want)
		}
	})
	t.Run("Text (Tab delimited)", func(t *testing.T) {
		rep := check(t, excel{sep: '\t', lineEnds: "\r\n"}.write(accounts(5)))
		wantCauses(t, rep, "separator")
		wantNoErrors(t, rep)
		if !strings.Contains(rep.Causes[0].Reason, "tabs") {
			t.Errorf("%+v", rep.Causes[0])
		}
	})
	t.Run("Unicode Text is unusable", func(t *testing.T) {
		rep := check(t, unicodeText(accounts(5)))
		wantCauses(t, rep, "unicodeText")
		if rep.Status() != StatusUnusable || !strings.Contains(rep.Unusable, "Unicode Text") || rep.Rows != 0 {
			t.Errorf("status %d, unusable %q", rep.Status(), rep.Unusable)
		}
	})
}

// TestSepLine: Excel writes and hides a "sep=," line: the import would
// take it for the heading. Excel's row numbers leave it out.
func TestSepLine(t *testing.T) {
	rep := check(t, excel{sep: ',', sepLine: true, lineEnds: "\r\n"}.write(accounts(4).set(3, "E", "12345")))
	wantCauses(t, rep, "sepLine")
	if p := rep.Causes[0]; p.Line != 1 || p.Value != "sep=," || !strings.Contains(p.Reason, "Notepad") {
		t.Errorf("%+v", p)
	}
	if rep.ErrorCount != 1 || rep.Errors[0].Line != 5 || rep.Errors[0].Row != 4 {
		t.Errorf("the fax error should be on line 5, Excel row 4:\n%s", text(rep))
	}
	t.Run("sep=; reads semicolons", func(t *testing.T) {
		rep := check(t, excel{sep: ';', sepLine: true, lineEnds: "\r\n"}.write(accounts(4)))
		wantCauses(t, rep, "separator", "sepLine")
		wantNoErrors(t, rep)
	})
}

// TestTrailingEmptyColumns: a sheet whose cells past Y were once used is
// saved with empty columns Z and AA on every row: one cause, no row errors.
func TestTrailingEmptyColumns(t *testing.T) {
	rep := check(t, excel{sep: ',', bom: true, extra: 2, lineEnds: "\r\n"}.write(accounts(40)))
	wantCauses(t, rep, "trailingColumns")
	wantNoErrors(t, rep)
	if p := rep.Causes[0]; p.Count != 41 || p.Found != 27 || !strings.HasSuffix(p.Reason, "delete columns Z–AA") {
		t.Errorf("%+v", p)
	}
	t.Run("a value in Z is a row error", func(t *testing.T) {
		s := accounts(2)
		for i := range s {
			s[i] = append(s[i], "")
		}
		s[2][25] = "note"
		rep := check(t, csvUTF8.write(s))
		if rep.ErrorCount != 1 || rep.Errors[0].Rule != RuleColumns || rep.Errors[0].Found != 26 {
			t.Errorf("%s", text(rep))
		}
	})
}

// TestWhatToTypeInstead: what spreadsheets and accounting programs do to
// values, each diagnosed with every problem at once and the value to type.
func TestWhatToTypeInstead(t *testing.T) {
	for _, tc := range []struct {
		column, value string
		rules         []Rule
		suggestion    string
	}{
		{"S", "1,250.50", []Rule{RuleThousands}, "1250.50"},
		{"S", "1,25,000.00", []Rule{RuleThousands}, "125000.00"},
		{"S", "12,50,000", []Rule{RuleThousands}, "1250000"},
		{"T", "(75.00)", []Rule{RuleCredit}, "-75.00"},
		{"T", "75.00-", []Rule{RuleCredit}, "-75.00"},
		{"U", "₹1250", []Rule{RuleCurrency}, "1250"},
		{"U", "Rs. 500", []Rule{RuleCurrency}, "500"},
		{"U", "INR 1,250.00", []Rule{RuleCurrency, RuleThousands}, "1250.00"},
		{"U", "Rs.1,250/-", []Rule{RuleCurrency, RuleThousands}, "1250"},
		{"V", "1.25E+05", []Rule{RuleScientific}, "125000"},
		{"V", "1.2345E+02", []Rule{RuleScientific}, "123.45"},
		{"V", "1.23456E+02", []Rule{RuleScientific}, ""},
		{"W", " 1,250.50 ", []Rule{RuleSpaces, RuleThousands}, "1250.50"},
		{"W", "(₹1,250.50)", []Rule{RuleCredit, RuleCurrency, RuleThousands}, "-1250.50"},
		{"X", "", []Rule{RuleRequired}, "0"},
		{"X", "1250,50", []Rule{RuleDecimalComma}, "1250.50"},
		{"X", "12,34,5", []Rule{RuleAmount}, ""},
		{"X", ".5", []Rule{RuleAmount}, "0.5"},
		{"Y", "1.234", []Rule{RuleDecimals}, ""},
		{"Y", "nil", []Rule{RuleZero}, "0"},
		{"D", "9.88E+09", []Rule{RuleDigitsLost}, ""},
		{"D", "+91 98765 43210", []Rule{RuleDigits}, "9876543210"},
		{"D", "098765-43210", []Rule{RuleDigits}, "9876543210"},
		{"D", "९८७६५४३२१०", []Rule{RuleDigits}, "9876543210"},
		{"E", "(022) 2741 2345", []Rule{RuleDigits}, "2227412345"},
		{"E", "98765", []Rule{RuleDigits}, ""},
		{"I", "OR", []Rule{RuleStateCode}, "OD"},
		{"I", "TS", []Rule{RuleStateCode}, "TG"},
		{"I", "XX", []Rule{RuleStateCode}, ""},
		{"I", "mh", []Rule{RuleCode}, "MH"},
		{"I", "Maharashtra", []Rule{RuleCode}, "MH"},
		{"P", "Orissa", []Rule{RuleCode}, "OD"},
		{"P", " GJ", []Rule{RuleSpaces}, "GJ"},
		{"K", "India", []Rule{RuleCountry}, "IN"},
		{"K", "in", []Rule{RuleCountry}, "IN"},
		{"J", "411001.0", []Rule{RulePostalCode}, "411001"},
		{"F", "Plot 14\nMIDC", []Rule{RuleOneLine}, "Plot 14 MIDC"},
		{"B", " Sharma Roadlines ", []Rule{RuleSpaces}, "Sharma Roadlines"},
	} {
		t.Run(tc.column+" "+tc.value, func(t *testing.T) {
			rep := check(t, csvUTF8.write(accounts(1).set(1, tc.column, tc.value)))
			if len(rep.Errors) != 1 {
				t.Fatalf("want one error:\n%s", text(rep))
			}
			p := rep.Errors[0]
			if got := append([]Rule{p.Rule}, p.Also...); !slices.Equal(got, tc.rules) || p.Suggestion != tc.suggestion {
				t.Errorf("rules %v suggestion %q, want %v %q", got, p.Suggestion, tc.rules, tc.suggestion)
			}
			if tc.suggestion != "" && !strings.Contains(p.Reason, "type "+typed(tc.suggestion)) {
				t.Errorf("reason %q does not say what to type", p.Reason)
			}
			if p.ColumnLetter != tc.column || p.Row != 2 {
				t.Errorf("cell %s%d", p.ColumnLetter, p.Row)
			}
		})
	}
}

// TestStateOutsideIndia: the Indian list applies to a row in India (its
// country IN or empty); other countries' states are 2 capital letters.
func TestStateOutsideIndia(t *testing.T) {
	s := accounts(3).set(1, "K", "US").set(1, "I", "CA").set(2, "R", "GB").set(2, "P", "XX").set(3, "K", "US").set(3, "I", "ca")
	rep := check(t, csvUTF8.write(s))
	if rep.ErrorCount != 1 || rep.Errors[0].Rule != RuleCode || rep.Errors[0].Suggestion != "CA" || rep.Errors[0].Row != 4 {
		t.Errorf("%s", text(rep))
	}
}

// TestTallyExport: Tally's report puts the company, the report's name and
// the period above the heading, and a Grand Total row at the end.
func TestTallyExport(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("Sharma Roadlines Pvt Ltd\r\nPlot 14, MIDC Industrial Area, Taloja\r\nBills Receivable\r\n\"1-Apr-2024 to 31-Mar-2025\"\r\n\r\n")
	b.Write(excel{sep: ',', lineEnds: "\r\n"}.write(accounts(6).set(3, "D", "98765")))
	b.WriteString("Grand Total,,,,,,,,,,,,,,,,,,\"6,015.00\",0,0,0,0,0,0\r\n")
	rep := check(t, b.Bytes())
	wantCauses(t, rep, "linesAboveHeading", "totalsRow")
	above, totals := rep.Causes[0], rep.Causes[1]
	if above.Row != 1 || above.LastRow != 4 || above.LastLine != 4 || above.Value != "Sharma Roadlines Pvt Ltd" ||
		!strings.Contains(above.Reason, "delete rows 1–4 so that the heading is row 1") {
		t.Errorf("above the heading: %+v", above)
	}
	if totals.Row != 13 || totals.Value != "Grand Total" {
		t.Errorf("totals: %+v", totals)
	}
	if rep.ErrorCount != 1 || rep.Errors[0].Row != 9 || rep.Errors[0].ColumnLetter != "D" {
		t.Errorf("want the phone of row 9 only:\n%s", text(rep))
	}
}

// TestERPExport: an ERP's ageing report: a title and run date above the
// heading, a blank row of commas, a totals row without account or name
// and rows of commas that Excel keeps below the data.
func TestERPExport(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("Receivables Ageing Report,,,,\nRun on 31/03/2025 18:00,,,,\n,,,,\n")
	b.Write(excel{sep: ',', lineEnds: "\n"}.write(accounts(4)))
	b.WriteString(strings.Repeat(",", 18) + "4006.00,0,0,48000,0,-6000.00,29201.00\n")
	b.WriteString(strings.Repeat(strings.Repeat(",", 24)+"\n", 3))
	rep := check(t, b.Bytes())
	wantCauses(t, rep, "linesAboveHeading", "totalsRow", "emptyRows")
	wantNoErrors(t, rep)
	if p := rep.Causes[0]; p.LastRow != 3 || p.Value != "Receivables Ageing Report" {
		t.Errorf("%+v", p)
	}
	if p := rep.Causes[2]; p.Count != 3 || p.Row != 10 {
		t.Errorf("%+v", p)
	}
	t.Run("a totals row before other rows is a row error", func(t *testing.T) {
		s := accounts(4)
		s[2][0], s[2][1] = "Sub Total", ""
		rep := check(t, csvUTF8.write(s))
		wantCauses(t, rep)
		if rep.ErrorCount != 1 || rep.Errors[0].Rule != RuleTotalsRow || rep.Errors[0].Row != 3 {
			t.Errorf("%s", text(rep))
		}
	})
	t.Run("a last row without account is an error, not a total, when it has no amounts", func(t *testing.T) {
		s := accounts(2)
		s = append(s, exampleRow(0, ""))
		s[3][1] = ""
		rep := check(t, csvUTF8.write(s))
		wantCauses(t, rep, "totalsRow")
		wantNoErrors(t, rep)
	})
}

// TestColumnOrder: the heading names the columns; one in another place
// would put values in the wrong column, so the file fails, naming each.
func TestColumnOrder(t *testing.T) {
	t.Run("City and Address Line 1 swapped", func(t *testing.T) {
		s := accounts(10)
		for _, row := range s {
			row[5], row[7] = row[7], row[5]
		}
		rep := check(t, csvUTF8.write(s))
		wantCauses(t, rep, "columnOrder", "columnOrder")
		wantNoErrors(t, rep)
		f, h := rep.Causes[0], rep.Causes[1]
		if f.ColumnLetter != "F" || f.ColumnID != "city" || f.Limit != 8 || h.ColumnLetter != "H" || h.ColumnID != "addressLine1" || h.Limit != 6 ||
			!strings.Contains(f.Reason, `column F is headed "City", but City belongs in column H`) {
			t.Errorf("%+v\n%+v", f, h)
		}
	})
	t.Run("ageing buckets reversed", func(t *testing.T) {
		s := accounts(5)
		for _, row := range s {
			slices.Reverse(row[18:])
		}
		rep := check(t, csvUTF8.write(s))
		var got []string
		for _, p := range rep.Causes {
			got = append(got, p.ColumnLetter+"="+p.ColumnName+"->"+ColumnLetter(p.Limit))
		}
		want := []string{"S=Over 91 Days->Y", "T=Days 76-90->X", "U=Days 61-75->W", "W=Days 31-45->U", "X=Days 16-30->T", "Y=Days 1-15->S"}
		if !slices.Equal(got, want) || rep.Valid {
			t.Errorf("causes %v, want %v", got, want)
		}
	})
	t.Run("values are checked as the heading names them", func(t *testing.T) {
		s := accounts(3)
		for _, row := range s {
			row[3], row[9] = row[9], row[3] // Phone and Postal Code swapped
		}
		s[2][9] = "98765" // a phone, in J
		rep := check(t, csvUTF8.write(s))
		wantCauses(t, rep, "columnOrder", "columnOrder")
		if rep.ErrorCount != 1 || rep.Errors[0].ColumnLetter != "J" || rep.Errors[0].ColumnID != "phone" || rep.Errors[0].Rule != RuleDigits {
			t.Errorf("%s", text(rep))
		}
	})
	t.Run("any case, spacing, byte order mark and the usual other names", func(t *testing.T) {
		s := accounts(3)
		s[0][0], s[0][1], s[0][9], s[0][18], s[0][24] = "ACCOUNT NO.", "  company name", "Pin Code", "days 1 - 15", "91+ Days"
		rep := check(t, excel{sep: ',', bom: true, lineEnds: "\n"}.write(s))
		if !rep.Valid {
			t.Errorf("%s", text(rep))
		}
	})
	t.Run("headings in other words, in place, are fine", func(t *testing.T) {
		s := accounts(3)
		s[0][7], s[0][11] = "Town/Village", "Kind attention"
		if rep := check(t, csvUTF8.write(s)); !rep.Valid {
			t.Errorf("%s", text(rep))
		}
	})
	t.Run("a column missing from heading and rows", func(t *testing.T) {
		s := accounts(3).set(2, "D", "98765")
		for i, row := range s {
			s[i] = slices.Delete(row, 4, 5) // no Fax
		}
		rep := check(t, csvUTF8.write(s))
		wantCauses(t, rep, "missingColumn")
		if p := rep.Causes[0]; p.ColumnLetter != "E" || p.ColumnID != "fax" {
			t.Errorf("%+v", p)
		}
		if rep.ErrorCount != 1 || rep.Errors[0].ColumnID != "phone" || rep.Errors[0].Row != 3 {
			t.Errorf("want only the phone of row 3, read through the heading:\n%s", text(rep))
		}
	})
	t.Run("a column the format has not", func(t *testing.T) {
		s := accounts(3)
		for i := range s {
			s[i] = append(s[i], "paid by cheque")
		}
		s[0][25] = "Remarks"
		rep := check(t, csvUTF8.write(s))
		wantCauses(t, rep, "extraColumn")
		wantNoErrors(t, rep)
		if p := rep.Causes[0]; p.ColumnLetter != "Z" || p.Value != "Remarks" {
			t.Errorf("%+v", p)
		}
	})
}

// TestNoHeadingLine: the import skips line 1; when it is an account, that
// account would be lost, and the report names it.
func TestNoHeadingLine(t *testing.T) {
	s := accounts(4).set(1, "D", "98765")
	rep := check(t, csvUTF8.write(s[1:]))
	wantCauses(t, rep, "headingIsData")
	if p := rep.Causes[0]; p.Row != 1 || p.Value != "CUST-000124 (Sharma Roadlines Pvt Ltd)" || !strings.Contains(p.Reason, "would be lost") {
		t.Errorf("%+v", p)
	}
	if rep.Rows != 4 || rep.ErrorCount != 1 || rep.Errors[0].Row != 1 {
		t.Errorf("the first account is checked too:\n%s", text(rep))
	}
	t.Run("thousands separators and all", func(t *testing.T) {
		s := accounts(2).set(1, "S", "1,250.00").set(1, "T", "(75.00)")
		if rep := check(t, csvUTF8.write(s[1:])); len(rep.Causes) == 0 || rep.Causes[0].Rule != RuleHeadingIsData {
			t.Errorf("%s", text(rep))
		}
	})
}

// TestExcelRowsAndFileLines: a value with line breaks makes the file's
// lines run ahead of Excel's rows; errors name both.
func TestExcelRowsAndFileLines(t *testing.T) {
	s := accounts(4).set(1, "F", "Plot 14,\nMIDC\nTaloja").set(3, "S", "1,000")
	rep := check(t, excel{sep: ',', lineEnds: "\r\n"}.write(s))
	var got []string
	for _, p := range rep.Errors {
		got = append(got, fmt.Sprintf("line %d row %d %s", p.Line, p.Row, p.ColumnLetter))
	}
	if want := []string{"line 2 row 2 F", "line 6 row 4 S"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if out := text(rep); !strings.Contains(out, ":6:19: row 4, S4 (Days 1-15): no thousands separators: type 1000 instead (value \"1,000\")") {
		t.Errorf("text:\n%s", out)
	}
}

// TestSummaryOfManyErrors: a sheet whose every third account has amounts
// with thousands separators (pasted from another report: not one problem
// running through the columns) gets one summary line for the seven
// amount columns.
func TestSummaryOfManyErrors(t *testing.T) {
	s := accounts(2000)
	for r, row := range s[1:] {
		for i := 18; i < ColumnCount && r%3 == 0; i++ {
			row[i] = "1,234.00"
		}
	}
	s.set(7, "D", "12345")
	rep := check(t, csvUTF8.write(s))
	if len(rep.Summary) != 2 || len(rep.Causes) != 0 {
		t.Fatalf("summary %+v", rep.Summary)
	}
	phone, amounts := rep.Summary[0], rep.Summary[1]
	if phone.Text != "D: Phone: 1 value that is not exactly 10 digits, first on row 8" {
		t.Errorf("phone: %q", phone.Text)
	}
	if amounts.Count != 4669 || len(amounts.Columns) != 7 || !slices.Equal(amounts.Rows, []int{2, 5, 8}) ||
		amounts.Text != "S: Days 1-15 … Y: Over 91 Days: 4,669 amounts with thousands separators, first on rows 2, 5 and 8" {
		t.Errorf("amounts: %+v", amounts)
	}
	if rep.ErrorCount != 4670 || len(rep.Errors) != DefaultMaxErrors || rep.OmittedErrors != 3670 {
		t.Errorf("%d errors, %d listed", rep.ErrorCount, len(rep.Errors))
	}
	if out := text(rep); !strings.Contains(out, "summary:\n") || !strings.Contains(out, amounts.Text) {
		t.Errorf("the text has no summary")
	}
	if few := check(t, csvUTF8.write(accounts(3).set(1, "S", "1,0"))); few.Summary != nil {
		t.Errorf("a summary of one error: %+v", few.Summary)
	}
}

// TestSyntaxErrorsShowTheValue: a quote where it cannot be is shown as
// the file has it.
func TestSyntaxErrorsShowTheValue(t *testing.T) {
	valid := csvLine(exampleRow(-1, ""))
	rep := check(t, []byte("\ufeffAccount \"Number\",Company Name\n"+valid+"\n"))
	if len(rep.Errors) != 1 || rep.Errors[0].Value != `Account "Number"` || rep.Errors[0].Row != 1 {
		t.Errorf("a quote in the heading: %+v", rep.Errors)
	}
	for _, tc := range []struct{ name, row, value string }{
		{"a stray quote", strings.Replace(valid, "Taloja", `Tal"oja`, 1), `Tal"oja`},
		{"text after the closing quote", strings.Replace(valid, "Taloja", `"Taloja" West`, 1), `"Taloja" West`},
		{"a quote never closed", strings.Replace(valid, "Taloja", `"Taloja`, 1), `"Taloja`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := check(t, []byte(heading+"\n"+tc.row+"\n"))
			if len(rep.Errors) != 1 || rep.Errors[0].Value != tc.value || rep.Errors[0].ColumnLetter != "G" {
				t.Errorf("%+v", rep.Errors)
			}
		})
	}
}

// TestWhatClerksWrite: what clerks really type into amount, code and
// number cells, from Tally and Busy reports, SAP, European Excel and web
// portals: each named for what it is, with what to type when that is
// sure, and the reason saying it in words.
func TestWhatClerksWrite(t *testing.T) {
	for _, tc := range []struct {
		cells      map[string]string // column letter -> value; the first is the one checked
		column     string
		rules      []Rule
		suggestion string
		says       string
	}{
		{map[string]string{"S": "1200.00 Dr"}, "S", []Rule{RuleDrCr}, "1200.00", "a debit is the amount as it is, a credit takes a minus"},
		{map[string]string{"T": "500.00 Cr"}, "T", []Rule{RuleDrCr}, "-500.00", "type -500.00 instead"},
		{map[string]string{"T": "1,25,000.00 Cr"}, "T", []Rule{RuleDrCr, RuleThousands}, "-125000.00", ""},
		{map[string]string{"T": "500.00 (Cr)"}, "T", []Rule{RuleDrCr}, "-500.00", ""},
		{map[string]string{"U": "NIL"}, "U", []Rule{RuleZero}, "0", "NIL stand for zero"},
		{map[string]string{"U": "-"}, "U", []Rule{RuleZero}, "0", "type 0 instead"},
		{map[string]string{"U": "₹ -"}, "U", []Rule{RuleZero}, "0", ""},
		{map[string]string{"U": " ₹ -   "}, "U", []Rule{RuleSpaces, RuleZero}, "0", ""},
		{map[string]string{"V": "TBD"}, "V", []Rule{RuleAmountNeeded}, "", "an amount is needed here"},
		{map[string]string{"V": "N/A"}, "V", []Rule{RuleAmountNeeded}, "", ""},
		{map[string]string{"V": "#REF!"}, "V", []Rule{RuleFormulaError}, "", "formula's error"},
		{map[string]string{"B": "#N/A"}, "B", []Rule{RuleFormulaError}, "", "Paste Special, Values"},
		{map[string]string{"D": "#VALUE!"}, "D", []Rule{RuleFormulaError}, "", ""},
		{map[string]string{"W": "12/03/2025"}, "W", []Rule{RuleDate}, "", "is a date, not an amount"},
		{map[string]string{"W": "12-Mar-25"}, "W", []Rule{RuleDate}, "", ""},
		{map[string]string{"W": "2025-03-12"}, "W", []Rule{RuleDate}, "", ""},
		{map[string]string{"X": "1.250,50"}, "X", []Rule{RuleThousands, RuleDecimalComma}, "1250.50", "type 1250.50 instead"},
		{map[string]string{"X": "1.500,00-"}, "X", []Rule{RuleCredit, RuleThousands, RuleDecimalComma}, "-1500.00", ""},
		{map[string]string{"X": "12.500.000"}, "X", []Rule{RuleThousands}, "12500000", ""},
		{map[string]string{"Y": "1.5 L"}, "Y", []Rule{RuleShorthand}, "150000", "type the whole figure, 150000"},
		{map[string]string{"Y": "2 Cr"}, "Y", []Rule{RuleShorthand}, "20000000", ""},
		{map[string]string{"Y": "12k"}, "Y", []Rule{RuleShorthand}, "12000", ""},
		{map[string]string{"Y": "₹ 1.25 lakh"}, "Y", []Rule{RuleCurrency, RuleShorthand}, "125000", ""},
		{map[string]string{"I": "Maharashtra", "K": "India"}, "I", []Rule{RuleCode}, "MH", "type MH instead"},
		{map[string]string{"I": "महाराष्ट्र"}, "I", []Rule{RuleCode}, "MH", ""},
		{map[string]string{"I": "Orissa", "K": "IND"}, "I", []Rule{RuleCode}, "OD", ""},
		{map[string]string{"I": "Gujrat"}, "I", []Rule{RuleCode}, "GJ", ""},
		{map[string]string{"I": "Maharastra", "K": "Bharat"}, "I", []Rule{RuleCode}, "MH", ""},
		{map[string]string{"I": "M.H."}, "I", []Rule{RuleCode}, "MH", ""},
		{map[string]string{"I": "तमिळनाडू"}, "I", []Rule{RuleCode}, "TN", ""},
		{map[string]string{"P": "West Bangal", "R": ""}, "P", []Rule{RuleCode}, "WB", ""},
		{map[string]string{"K": "Bharat"}, "K", []Rule{RuleCountry}, "IN", ""},
		{map[string]string{"K": "IND"}, "K", []Rule{RuleCountry}, "IN", ""},
		{map[string]string{"C": "12345"}, "C", []Rule{RuleLeadingZero}, "012345", "Excel dropped the leading zero"},
		{map[string]string{"A": "CUST-000123\u00a0"}, "A", []Rule{RuleInvisible}, "CUST-000123", "a no-break space (U+00A0), at the end"},
		{map[string]string{"A": "CUST\u200b-000123"}, "A", []Rule{RuleInvisible}, "CUST-000123", `a zero-width space (U+200B), after "CUST"`},
		{map[string]string{"B": "Sharma\u00a0Roadlines"}, "B", []Rule{RuleInvisible}, "Sharma Roadlines", "a no-break space"},
		{map[string]string{"S": "1250.00\u200b"}, "S", []Rule{RuleInvisible}, "1250.00", ""},
		{map[string]string{"B": "श्री गणेश ट्रान्सपोर्ट\u200d"}, "B", nil, "", ""}, // a zero-width joiner is Devanagari spelling
	} {
		t.Run(tc.cells[tc.column], func(t *testing.T) {
			s := accounts(1)
			for col, v := range tc.cells {
				s.set(1, col, v)
			}
			rep := check(t, csvUTF8.write(s))
			if tc.rules == nil {
				if !rep.Valid {
					t.Errorf("want valid:\n%s", text(rep))
				}
				return
			}
			i := slices.IndexFunc(rep.Errors, func(p Problem) bool { return p.ColumnLetter == tc.column })
			if i < 0 || len(rep.Errors) > len(tc.cells) {
				t.Fatalf("want one error in %s (and at most one in each other cell set):\n%s", tc.column, text(rep))
			}
			p := rep.Errors[i]
			if got := append([]Rule{p.Rule}, p.Also...); !slices.Equal(got, tc.rules) || p.Suggestion != tc.suggestion {
				t.Errorf("rules %v suggestion %q, want %v %q", got, p.Suggestion, tc.rules, tc.suggestion)
			}
			if !strings.Contains(p.Reason, tc.says) || p.ColumnLetter != tc.column {
				t.Errorf("%s%d: reason %q does not say %q", p.ColumnLetter, p.Row, p.Reason, tc.says)
			}
		})
	}
}

// TestGroupHeadings: an outstanding report with merged cells puts a city
// or group name above its accounts, alone on its row, and a blank row
// between groups: one cause for the headings and one for the blank rows,
// not a "required" for every empty amount.
func TestGroupHeadings(t *testing.T) {
	s := sheet{headingRow()}
	blank := make([]string, ColumnCount)
	for i, group := range []string{"MUMBAI", "Pune", "नागपूर"} {
		label := make([]string, ColumnCount)
		label[0] = group
		if i == 2 {
			label[0], label[1] = "", group // merged from B
		}
		s = append(s, label)
		s = append(s, accounts(4)[1+i:4]...)
		s = append(s, blank)
	}
	rep := check(t, csvUTF8.write(s))
	wantCauses(t, rep, "groupHeadings", "emptyRows")
	wantNoErrors(t, rep)
	if p := rep.Causes[0]; p.Count != 3 || p.Row != 2 || p.Value != "MUMBAI" || !p.Fix ||
		!strings.Contains(p.Reason, `3 rows hold only a label ("MUMBAI", first row 2): group headings of a report with merged cells, not accounts: delete them`) {
		t.Errorf("%+v", p)
	}
	t.Run("an account number alone is an account with values missing", func(t *testing.T) {
		s := accounts(2)
		s[2] = make([]string, ColumnCount)
		s[2][0] = "CUST-000999"
		rep := check(t, csvUTF8.write(s))
		wantCauses(t, rep)
		if rep.ErrorCount != 8 {
			t.Errorf("%s", text(rep))
		}
	})
}

// TestExcelForMacCSV: Excel for Mac's "CSV (Macintosh)" ends lines with a
// bare CR. The file is read all the same, so the cause and the rows' own
// errors show together.
func TestExcelForMacCSV(t *testing.T) {
	rep := check(t, excel{sep: ',', lineEnds: "\r"}.write(accounts(20).set(5, "D", "98765")))
	wantCauses(t, rep, "lineEnds")
	if p := rep.Causes[0]; !strings.Contains(p.Reason, `Excel for Mac's "CSV (Macintosh)"`) || !strings.Contains(p.Reason, `Save As, "CSV UTF-8 (Comma delimited)"`) {
		t.Errorf("%+v", p)
	}
	if rep.Rows != 20 || rep.ErrorCount != 1 || rep.Errors[0].Row != 6 || rep.Errors[0].ColumnLetter != "D" {
		t.Errorf("%s", text(rep))
	}
}

// TestUnquotedCommas: a portal's export or a Notepad edit writes a value
// with a comma without quotes, and the row has a column too many. The
// report finds the value (a name and the fragment after its comma; an
// amount cut at its grouping commas) and says what to put in quotes or
// type, then checks the rest of the row as it was meant.
func TestUnquotedCommas(t *testing.T) {
	portal := excel{sep: ',', lineEnds: "\r\n", noQuotes: true}
	accounts := func(n int) sheet {
		s := accounts(n)
		for _, row := range s[1:] {
			row[5] = "Plot 14 MIDC" // the sample's address has a comma
		}
		return s
	}
	t.Run("a company name", func(t *testing.T) {
		s := accounts(3).set(2, "B", "Shree Ganesh Roadlines, Pune").set(2, "D", "98765")
		rep := check(t, portal.write(s))
		if rep.ErrorCount != 2 {
			t.Fatalf("%s", text(rep))
		}
		p, phone := rep.Errors[0], rep.Errors[1]
		if p.Rule != RuleUnquotedComma || p.Row != 3 || p.ColumnLetter != "B" || p.Value != "Shree Ganesh Roadlines, Pune" ||
			!slices.Equal(p.Parts, []string{"Shree Ganesh Roadlines", " Pune"}) || p.Found != 26 || p.Suggestion != `"Shree Ganesh Roadlines, Pune"` {
			t.Errorf("%+v", p)
		}
		if !strings.Contains(text(rep), `row 3, B3 (Company Name): expected 25 columns, found 26: the comma in "Shree Ganesh Roadlines, Pune" is not inside quotes, so " Pune" went into the next column: put the value in double quotes, "Shree Ganesh Roadlines, Pune"`) {
			t.Errorf("%s", text(rep))
		}
		// Read as meant, the phone is column D's value, in E on the row as written.
		if phone.Rule != RuleDigits || phone.ColumnID != "phone" || phone.ColumnLetter != "E" || phone.Value != "98765" {
			t.Errorf("%+v", phone)
		}
	})
	t.Run("amounts with Indian grouping", func(t *testing.T) {
		s := accounts(3).set(1, "S", "1,23,456.00").set(1, "Y", "12,500.50")
		rep := check(t, portal.write(s))
		var got []string
		for _, p := range rep.Errors {
			got = append(got, fmt.Sprintf("%s%d %s %s %s", p.ColumnLetter, p.Row, p.Rule, strings.Join(p.Parts, "/"), p.Suggestion))
		}
		if want := []string{"S2 splitAmount 1/23/456.00 123456.00", "AA2 splitAmount 12/500.50 12500.50"}; !slices.Equal(got, want) {
			t.Errorf("got %q, want %q\n%s", got, want, text(rep))
		}
		if !strings.Contains(rep.Errors[0].Reason, "expected 25 columns, found 28: the commas of 1,23,456.00 are not inside quotes, so the amount was cut into 1 / 23 / 456.00: type 123456.00 instead") {
			t.Errorf("%s", rep.Errors[0].Reason)
		}
	})
	t.Run("a comma that could be in one of several values", func(t *testing.T) {
		s := accounts(1)
		s[1][5], s[1][6], s[1][7] = "Plot 14,MIDC", "Taloja", "Navi Mumbai"
		rep := check(t, portal.write(s))
		if rep.ErrorCount != 1 {
			t.Fatalf("%s", text(rep))
		}
		p := rep.Errors[0]
		var cols []string
		for _, c := range p.Columns {
			cols = append(cols, c.Letter)
		}
		if p.Rule != RuleColumns || !slices.Equal(cols, []string{"F", "G", "H"}) ||
			!strings.Contains(p.Reason, "a comma not inside quotes has cut a value of F (Address Line 1), G (Address Line 2) or H (City)") {
			t.Errorf("%+v", p)
		}
	})
	t.Run("a value too many at the end is no comma", func(t *testing.T) {
		s := accounts(1)
		s[1] = append(s[1], "paid")
		rep := check(t, portal.write(s))
		if rep.ErrorCount != 1 || rep.Errors[0].Rule != RuleColumns || rep.Errors[0].Columns != nil {
			t.Errorf("%s", text(rep))
		}
	})
}

// TestSameAccountTwice: an account on two rows is no error of the format,
// but the import would take it twice: a warning names both rows, and says
// when the later row is a copy of the earlier one. The file stays valid.
func TestSameAccountTwice(t *testing.T) {
	s := accounts(2000)
	s[1500] = slices.Clone(s[12]) // pasted twice
	s[1700][0] = s[40][0]         // another party given the same code
	s[1700][1] = "Shri Ganesh Carriers"
	rep := check(t, csvUTF8.write(s))
	if !rep.Valid || rep.Status() != StatusValid || rep.WarningCount != 2 || len(rep.Warnings) != 2 {
		t.Fatalf("%s", text(rep))
	}
	copied, twice := rep.Warnings[0], rep.Warnings[1]
	if copied.Rule != RuleDuplicateRow || copied.Row != 1501 || copied.Line != 1501 || copied.SameAs != 13 || copied.ColumnLetter != "A" ||
		!strings.Contains(copied.Reason, "this row is a copy of row 13, value for value") {
		t.Errorf("%+v", copied)
	}
	if twice.Rule != RuleDuplicateAccount || twice.Row != 1701 || twice.SameAs != 41 ||
		!strings.Contains(twice.Reason, "the account of row 41 again") {
		t.Errorf("%+v", twice)
	}
	out := text(rep)
	if !strings.Contains(out, ":1501:1: warning: row 1501, A1501 (Account Number): this row is a copy of row 13") || !strings.HasSuffix(strings.TrimSpace(out), ")") ||
		!strings.Contains(out, "valid, 2,000 rows checked, no errors, 2 warnings") {
		t.Errorf("%s", out)
	}
	t.Run("lines run ahead of rows after a value with line breaks", func(t *testing.T) {
		s := accounts(20).set(3, "F", "Plot 14\nMIDC")
		s[15][0] = s[4][0]
		rep := check(t, csvUTF8.write(s))
		if rep.WarningCount != 1 || rep.Warnings[0].Row != 16 || rep.Warnings[0].Line != 17 || rep.Warnings[0].SameAs != 5 {
			t.Errorf("%+v", rep.Warnings)
		}
	})
	t.Run("warnings are listed up to the limit and counted", func(t *testing.T) {
		s := accounts(30)
		for i := 2; i < len(s); i++ {
			s[i][0] = s[1][0]
		}
		rep, _ := Validate(bytes.NewReader(csvUTF8.write(s)), Options{MaxErrors: 5})
		if rep.WarningCount != 29 || len(rep.Warnings) != 5 || rep.Warnings[4].Row != 7 || rep.Warnings[4].SameAs != 2 {
			t.Errorf("%d warnings, %+v", rep.WarningCount, rep.Warnings)
		}
	})
}

// accountingFormat writes an amount as Excel's Accounting format shows it
// (and "CSV" saves it): spaces around it, grouping, a ₹ sign when the
// format has one, credits in brackets and zero as "-".
func accountingFormat(amount float64, rupee bool) string {
	sign := ""
	if rupee {
		sign = "₹ "
	}
	switch {
	case amount == 0:
		return " " + sign + "-   "
	case amount < 0:
		return " " + sign + "(" + grouping(-amount) + ")"
	}
	return " " + sign + grouping(amount) + " "
}

// grouping writes an amount with Indian grouping: 1,23,456.50.
func grouping(amount float64) string {
	s := fmt.Sprintf("%.2f", amount)
	whole, frac, _ := strings.Cut(s, ".")
	if len(whole) > 3 {
		head, tail := whole[:len(whole)-3], whole[len(whole)-3:]
		var groups []string
		for len(head) > 2 {
			groups = append([]string{head[len(head)-2:]}, groups...)
			head = head[:len(head)-2]
		}
		whole = strings.Join(append(append([]string{head}, groups...), tail), ",")
	}
	return whole + "." + frac
}

// TestOneCauseOnce: when one problem runs through a column (Excel's
// Accounting format, Indian grouping, a decimal comma, trailing spaces),
// it is said once, first, with how to correct the column in Excel, and
// the other errors are listed after it, even on a large file; JSON keeps
// every cell, marked as the cause's.
func TestOneCauseOnce(t *testing.T) {
	t.Run("Excel's Accounting format", func(t *testing.T) {
		s := accounts(600)
		for r, row := range s[1:] {
			for i := 18; i < ColumnCount; i++ {
				row[i] = accountingFormat([]float64{123456.5, 0, -75, 980, 12000, 0, 7300.25}[(i+r)%7], r%2 == 0)
			}
		}
		s.set(300, "D", "98765").set(450, "I", "Maharashtra")
		rep := check(t, csvUTF8.write(s))
		wantCauses(t, rep, "accounting")
		p := rep.Causes[0]
		if len(p.Columns) != 7 || p.ColumnLetter != "S" || p.Row != 2 || p.Count != 4200 || !p.Fix ||
			!slices.Equal(p.Also, []Rule{RuleCredit, RuleCurrency, RuleThousands, RuleZero}) ||
			!strings.HasPrefix(p.Reason, `S–Y (Days 1-15 … Over 91 Days): 4,200 amounts in Excel's Accounting format, first S2, " ₹ 12,000.00 ": select columns S–Y, Format Cells, Number: 2 decimal places, no 1000 separator, negative numbers as -1234.10`) {
			t.Errorf("%+v", p)
		}
		out := text(rep)
		if strings.Count(out, "\n") != 4 || !strings.Contains(out, "row 301, D301 (Phone)") || !strings.Contains(out, "row 451, I451 (State)") {
			t.Errorf("want the cause, the phone, the state and the last line:\n%s", out)
		}
		if rep.ErrorCount != 4202 || rep.ErrorsInCauses != 4200 || len(rep.Errors) != 1002 || !rep.Errors[0].InCause || rep.Errors[1000].InCause {
			t.Errorf("%d errors, %d in causes, %d listed", rep.ErrorCount, rep.ErrorsInCauses, len(rep.Errors))
		}
	})
	t.Run("Indian grouping, and other errors far down a large file", func(t *testing.T) {
		s := accounts(50_000)
		for _, row := range s[1:] {
			row[18], row[24] = "1,25,000.00", "12,500.00"
		}
		s.set(30_000, "E", "12345").set(40_000, "K", "India").set(49_999, "B", "")
		rep := check(t, csvUTF8.write(s))
		wantCauses(t, rep, "thousands")
		if p := rep.Causes[0]; p.Count != 100_000 || p.Columns[0].Letter != "S" || p.Columns[1].Letter != "Y" ||
			!strings.HasPrefix(p.Reason, `S and Y (Days 1-15 and Over 91 Days): 100,000 amounts with thousands separators, first S2, "1,25,000.00": select columns S and Y`) ||
			!strings.Contains(p.Reason, "Format Cells, Number, and clear Use 1000 Separator") {
			t.Errorf("%+v", p)
		}
		var listed []string
		for _, p := range rep.Errors {
			if !p.InCause {
				listed = append(listed, fmt.Sprint(p.ColumnLetter, p.Row))
			}
		}
		if want := []string{"E30001", "K40001", "B50000"}; !slices.Equal(listed, want) {
			t.Errorf("listed %v, want %v", listed, want)
		}
		if out := text(rep); strings.Contains(out, "not listed") || strings.Count(out, "\n") != 5 {
			t.Errorf("%s", out)
		}
	})
	t.Run("a decimal comma in a semicolon file", func(t *testing.T) {
		s := accounts(40)
		for r, row := range s[1:] {
			row[18], row[19] = fmt.Sprintf("%d,50", 1000+r), "0,75"
		}
		rep := check(t, excel{sep: ';', lineEnds: "\r\n"}.write(s))
		wantCauses(t, rep, "separator", "decimalComma")
		if p := rep.Causes[1]; p.Count != 80 || !strings.Contains(p.Reason, "set the decimal symbol to a point") || !strings.Contains(p.Reason, "columns S and T (Ctrl+H)") {
			t.Errorf("%+v", p)
		}
		if rep.ErrorCount != 80 || rep.ErrorsInCauses != 80 {
			t.Errorf("%s", text(rep))
		}
	})
	t.Run("trailing spaces from a fixed-width export", func(t *testing.T) {
		s := accounts(30)
		for _, row := range s[1:] {
			row[1] += "    "
		}
		s.set(20, "B", "Sharma Roadlines")
		rep := check(t, csvUTF8.write(s))
		wantCauses(t, rep, "spaces")
		if p := rep.Causes[0]; p.Count != 29 || p.ColumnLetter != "B" || !strings.Contains(p.Reason, "=TRIM()") {
			t.Errorf("%+v", p)
		}
	})
	t.Run("a few slips are listed, not a cause", func(t *testing.T) {
		rep := check(t, csvUTF8.write(accounts(30).set(3, "S", "1,000").set(9, "S", "2,000").set(20, "S", "3,000")))
		wantCauses(t, rep)
		if rep.ErrorCount != 3 || rep.ErrorsInCauses != 0 {
			t.Errorf("%s", text(rep))
		}
	})
}
