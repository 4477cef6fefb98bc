package receivables

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzValidate: no input makes Validate panic or fail to read; every
// report is consistent and encodes to valid JSON; a file called valid
// really is a heading plus rows of 25 columns.
func FuzzValidate(f *testing.F) {
	valid := csvLine(exampleRow(-1, ""))
	for _, seed := range []string{
		string(Sample()),
		heading + "\n" + valid + "\n",
		heading + "\r\n" + strings.Replace(valid, "Taloja", "\"Tal\noja\"", 1) + "\r\n",
		heading + "\n" + valid + ",extra\n" + `"open` + "\n",
		"\ufeff",
		"PK\x03\x04",
		"a\"b\n\"c\"d\n",
		heading + "\r" + valid + "\r",
		"sep=;\r\n" + strings.ReplaceAll(heading+"\r\n"+valid, ",", ";") + "\r\n",
		"Bills Receivable,,\r\n\r\n" + heading + ",,\r\n" + valid + ",,\r\n,,,,\r\nGrand Total" + strings.Repeat(",", 18) + "\"1,25,000.00\",(75.00),0,0,0,0,1.25E+05\r\n",
		valid + "\n" + strings.Replace(valid, "MH", "OR", 1) + "\n" + valid + "\n",
		heading + "\n" + strings.Replace(strings.Replace(valid, "Sharma Roadlines Pvt Ltd", "Shree Ganesh Roadlines, Pune", 1), "125000.00", "1,23,456.00", 1) + "\n",
		heading + "\r\nMUMBAI" + strings.Repeat(",", 24) + "\r\n" + valid + "\r\n" + strings.Replace(valid, "125000.00", "1.500,00-", 1) + "\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		rep, err := Validate(bytes.NewReader(in), Options{MaxErrors: 20})
		if err != nil {
			t.Fatalf("a bytes.Reader failed to read: %v", err)
		}
		if rep.ErrorCount != len(rep.Errors)+rep.OmittedErrors || rep.Valid != (rep.ErrorCount == 0 && len(rep.Causes) == 0) || len(rep.Errors) > 20 {
			t.Fatalf("inconsistent report: %+v", rep)
		}
		lines := max(bytes.Count(in, []byte("\n")), bytes.Count(in, []byte("\r"))) + 1 // Excel for Mac ends lines with CR
		if rep.WarningCount < len(rep.Warnings) || len(rep.Warnings) > 20 {
			t.Fatalf("inconsistent warnings: %+v", rep)
		}
		for _, p := range append(append(rep.Errors, rep.Causes...), rep.Warnings...) {
			if p.Line < 0 || p.Line > lines || p.Row < 0 || p.Row > p.Line || p.Column < 0 || p.Reason == "" || !utf8.ValidString(p.Value) || utf8.RuneCountInString(p.Value) > valueDisplay {
				t.Fatalf("bad problem %+v in %d lines", p, lines)
			}
		}
		var out bytes.Buffer
		if err := WriteJSON(&out, []*Report{rep}); err != nil || !json.Valid(out.Bytes()) {
			t.Fatalf("JSON: %v\n%s", err, out.String())
		}
		WriteText(io.Discard, []*Report{rep})
		if !rep.Valid {
			return
		}
		r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(in, []byte("\ufeff"))))
		r.FieldsPerRecord = -1
		records, err := r.ReadAll()
		if err != nil || len(records) != rep.Rows+1 {
			t.Fatalf("valid, but encoding/csv reads %d records (%v), report says %d rows", len(records), err, rep.Rows)
		}
		for _, rec := range records[1:] {
			if len(rec) != ColumnCount {
				t.Fatalf("valid, but a row has %d columns", len(rec))
			}
			for j, v := range rec {
				if bad, refused := Format.Columns[j].check(v); refused && bad.rule != RuleStateCode {
					t.Fatalf("valid, but column %s's %q breaks %s", Format.Columns[j].ID, v, bad.rule)
				}
			}
		}
	})
}

// FuzzFix: no input makes Fix panic; a valid file comes out byte for
// byte the same, and a corrected copy has nothing more to correct.
func FuzzFix(f *testing.F) {
	valid := csvLine(exampleRow(-1, ""))
	for _, seed := range []string{
		string(Sample()),
		"sep=;\r\n" + strings.ReplaceAll(heading+"\r\n"+valid, ",", ";") + "\r\n",
		"Bills Receivable,,\r\n\r\n" + heading + ",,\r\n" + valid + ",,\r\n,,,,\r\nGrand Total" + strings.Repeat(",", 18) + "\"1,25,000.00\",(75.00),0,0,0,0,1.25E+05\r\n",
		heading + "\rMUMBAI" + strings.Repeat(",", 24) + "\r" + strings.Replace(valid, "125000.00", "1.500,00-", 1) + "\r",
		heading + "\n" + strings.Replace(valid, "Sharma Roadlines Pvt Ltd", "Soci\xe9t\xe9 G\xe9n\xe9rale", 1) + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var once, twice bytes.Buffer
		res, err := Fix(bytes.NewReader(in), &once, nil)
		if err != nil {
			t.Fatalf("a bytes.Reader failed to read: %v", err)
		}
		if !res.Complete {
			return
		}
		if res.Report.Valid && (res.Changes != 0 || !bytes.Equal(once.Bytes(), in)) {
			t.Fatalf("a valid file changed (%d changes):\n%q\n%q", res.Changes, in, once.Bytes())
		}
		// A copy of a file with causes left (no heading, columns in another
		// order) or records csv cannot read may be read otherwise: what
		// the property speaks of is a file whose causes were corrected.
		for _, p := range append(res.Report.Errors, res.Report.Causes...) {
			if p.Rule == RuleQuote || p.Rule == RuleBareQuote || p.Rule == RuleColumns || p.Line > 0 && p.ColumnID == "" && !p.Fix {
				return
			}
		}
		for _, p := range res.Report.Causes {
			if !p.Fix {
				return
			}
		}
		// Rows of amounts alone before a last one are kept (the import
		// would fail on them), and the copy's last of them is then its
		// totals row: the one change a copy may still have.
		more := 0
		again, err := Fix(bytes.NewReader(once.Bytes()), &twice, func(c Change) {
			if c.Rule != RuleTotalsRow {
				more++
			}
		})
		if err != nil || again.Complete && more != 0 {
			t.Fatalf("the copy has %d more changes (%v):\n%q\n%q", more, err, once.Bytes(), twice.Bytes())
		}
	})
}
