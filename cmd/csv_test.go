package cmd

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"freightsite/receivables"
)

// TestCSVValidateExitCodes: 0 valid, 1 invalid, 2 unusable; with several
// files the worst wins.
func TestCSVValidateExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(good, receivables.Sample(), 0o644)
	os.WriteFile(bad, []byte("heading\nonly,three,columns\n"), 0o644)
	workbook := filepath.Join(dir, "march.xlsx")
	os.WriteFile(workbook, []byte("PK\x03\x04\x14\x00\x06\x00"), 0o644)
	unicodeText := filepath.Join(dir, "march.txt")
	os.WriteFile(unicodeText, []byte("\xff\xfeA\x00c\x00c\x00\t\x00"), 0o644)
	quote := filepath.Join(dir, "quote.csv")
	os.WriteFile(quote, []byte(strings.Replace(string(receivables.Sample()), "Taloja", `Tal"oja`, 1)), 0o644)
	semicolons := filepath.Join(dir, "semicolons.csv")
	os.WriteFile(semicolons, bytes.ReplaceAll(receivables.Sample(), []byte(","), []byte(";")), 0o644)
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		wants string
	}{
		{"valid", []string{good}, 0, "valid, 3 rows checked, no errors"},
		{"invalid", []string{bad}, 1, "bad.csv:2: row 2: expected 25 columns, found 3"},
		{"a workbook is unusable", []string{workbook}, 2, "march.xlsx: fix first: this is an Excel workbook, not a CSV file"},
		{"UTF-16 text is unusable", []string{unicodeText}, 2, `march.txt: fix first: this is Excel's "Unicode Text"`},
		{"a stray quote shows the value", []string{quote}, 1, `quote.csv:2:7: row 2, G2 (Address Line 2): a quote (") inside a value that does not start with a quote: put the value in quotes and double the quote ("") (value "Tal\"oja")`},
		{"another separator is a cause, not an unusable file", []string{semicolons}, 1, "semicolons.csv: fix first: the values are separated by semicolons (;), not commas"},
		{"folder", []string{dir}, 2, "UNUSABLE, cannot be read: is a folder"},
		{"worst of several", []string{good, bad, filepath.Join(dir, "missing.csv")}, 2, "3 files, 1 valid, 2 not valid"},
		{"invalid beats valid", []string{good, bad}, 1, "2 files, 1 valid, 1 not valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, _ := execute(t, nil, append([]string{"csv", "validate"}, tc.args...)...)
			if code != tc.code || !strings.Contains(out, tc.wants) {
				t.Errorf("exit %d, want %d; output:\n%s", code, tc.code, out)
			}
		})
	}
}

func TestCSVValidateJSONAndFlags(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("h\na\nb\nc\n"), 0o644)
	code, out, _ := execute(t, nil, "csv", "validate", "--format", "json", "--max-errors", "1", bad)
	var o receivables.Output
	if err := json.Unmarshal([]byte(out), &o); err != nil || code != 1 {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if o.Valid || len(o.Files) != 1 || o.Files[0].ErrorCount != 3 || len(o.Files[0].Errors) != 1 || o.Files[0].OmittedErrors != 2 {
		t.Errorf("%+v", o.Files[0])
	}
	for _, args := range [][]string{
		{"csv", "validate", "--format", "xml", bad},
		{"csv", "validate", "--max-errors", "-1", bad},
		{"csv", "validate"},
	} {
		if code, _, errOut := execute(t, nil, args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
	var env = map[string]string{"FREIGHTSITE_FORMAT": "json"}
	var buf bytes.Buffer
	if code := Execute([]string{"csv", "validate", bad}, func(k string) string { return env[k] }, &buf, &buf); code != 1 || !strings.HasPrefix(buf.String(), "{") {
		t.Errorf("FREIGHTSITE_FORMAT=json: exit %d\n%s", code, buf.String())
	}
}

func TestCSVSchemaAndSample(t *testing.T) {
	code, out, _ := execute(t, nil, "csv", "schema")
	var s struct {
		Fields []struct {
			Name string `json:"name"`
		} `json:"fields"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 || len(s.Fields) != 25 || s.Fields[0].Name != "accountNumber" {
		t.Errorf("schema: exit %d, %v, %d fields", code, err, len(s.Fields))
	}
	file := filepath.Join(t.TempDir(), "sample.csv")
	if code, _, _ := execute(t, nil, "csv", "sample", "--out", file); code != 0 {
		t.Fatalf("sample: exit %d", code)
	}
	if code, out, _ := execute(t, nil, "csv", "validate", file); code != 0 {
		t.Errorf("the sample does not validate:\n%s", out)
	}
	if code, out, _ := execute(t, nil, "csv", "sample"); code != 0 || !strings.Contains(out, "Account Number") {
		t.Errorf("sample to stdout: exit %d", code)
	}
}

// marchExport is the file docs/receivables.md's report is of: a Tally export saved
// from Excel, as Excel saves it (every line as wide as the sheet's used
// range, 27 cells, so Z and AA are empty), with three title lines above
// the heading, a group heading ("PUNE", from merged cells), 40 accounts
// whose S, V and Y amounts keep their thousands separators, six other
// slips (a phone in scientific notation, Odisha's former code, a credit
// in brackets, a rupee sign, a credit marked Cr, NIL for zero), one
// account pasted twice and a totals row.
func marchExport(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.UseCRLF = true
	line := func(values ...string) {
		cells := make([]string, receivables.ColumnCount+2)
		copy(cells, values)
		if err := w.Write(cells); err != nil {
			t.Fatal(err)
		}
	}
	line("Sharma Roadlines Pvt Ltd")
	line("Bills Receivable")
	line("1-Apr-2026 to 31-Mar-2027")
	var heading []string
	for _, c := range receivables.Format.Columns {
		heading = append(heading, c.Name)
	}
	line(heading...)
	line("PUNE")
	var accounts [][]string
	for i := range 40 {
		s := 1000.50 + 7*float64(i)
		r := []string{fmt.Sprintf("CUST-%06d", 200+i), "Shri Ganesh Transport", "", "9876543210", "", "12 Station Road", "", "Pune", "MH", "411001", "IN",
			"", "", "", "", "", "", "",
			fmt.Sprintf("1,%06.2f", s-1000), "0", "0", "12,000", "0", "0", "7,300.25"}
		switch row := 6 + i; row {
		case 8:
			r[3] = "9.88E+09"
		case 9:
			r[8] = "OR"
		case 10:
			r[19] = "(75.00)"
		case 11:
			r[20] = "₹1250"
		case 12:
			r[19] = "500.00 Cr"
		case 13:
			r[22] = "NIL"
		case 30:
			r = accounts[20-6] // row 20 again
		}
		accounts = append(accounts, r)
		line(r...)
	}
	total := make([]string, receivables.ColumnCount)
	total[0] = "Grand Total"
	copy(total[18:], []string{"43,870.00", "-75.00", "1,250.00", "4,80,000.00", "0", "0", "2,92,010.00"})
	line(total...)
	w.Flush()
	file := filepath.Join(t.TempDir(), "march.csv")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// readmeBlock is the fenced block of the receivables guide
// (docs/receivables.md) that follows the line starting with intro.
func readmeBlock(t *testing.T, intro string) string {
	t.Helper()
	readme, err := os.ReadFile("../docs/receivables.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "\n"+intro)
	if !ok {
		t.Fatalf("docs/receivables.md has no line starting %q", intro)
	}
	_, after, _ = strings.Cut(after, "```")
	_, after, _ = strings.Cut(after, "\n")
	block, _, ok := strings.Cut(after, "```")
	if !ok {
		t.Fatalf("docs/receivables.md: the block after %q is not closed", intro)
	}
	return block
}

var took = regexp.MustCompile(`\(\d+(\.\d+)?(µs|ms|s)\)`)

// TestCSVValidateReadmeReport: the report docs/receivables.md shows is the command's
// own, line for line (but the time taken): the file's causes first, each
// with what to do; the errors with file line and column, Excel row,
// column letter and name, and what to type; the count left out; the
// summary per column and rule; exit 1.
func TestCSVValidateReadmeReport(t *testing.T) {
	file := marchExport(t)
	code, out, _ := execute(t, nil, "csv", "validate", file, "--max-errors", "6")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	got := took.ReplaceAllString(strings.ReplaceAll(out, file, "march.csv"), "(T)")
	want := took.ReplaceAllString(readmeBlock(t, "A real report, of a Tally export"), "(T)")
	if got != want {
		t.Errorf("docs/receivables.md shows a report the command does not print; it prints:\n%s", got)
	}
}

// TestCSVValidateReadmeJSON: every field docs/receivables.md's (shortened) JSON shows
// is in the command's JSON of the same file with the same value; "..."
// in docs/receivables.md's text stands for words left out.
func TestCSVValidateReadmeJSON(t *testing.T) {
	file := marchExport(t)
	code, out, _ := execute(t, nil, "csv", "validate", "--format", "json", "--max-errors", "1", file)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	var got, want any
	if err := json.Unmarshal([]byte(strings.ReplaceAll(out, file, "march.csv")), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(readmeBlock(t, "the warnings, the summary and one last line per file.")), &want); err != nil {
		t.Fatalf("docs/receivables.md's JSON: %v", err)
	}
	for _, diff := range shownIn(want, got, "") {
		t.Error(diff)
	}
}

// shownIn lists where want, a shortened copy of got, differs from it:
// objects may leave keys out, arrays the elements after the first few,
// strings words ("..."); durationMs is a time, different at every run.
func shownIn(want, got any, path string) (diffs []string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v, docs/receivables.md shows an object", path, got)}
		}
		for k, v := range w {
			if k == "durationMs" {
				continue
			}
			if _, ok := g[k]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: not in the output", path, k))
				continue
			}
			diffs = append(diffs, shownIn(v, g[k], path+"."+k)...)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) < len(w) {
			return []string{fmt.Sprintf("%s: %v, docs/receivables.md shows %d elements", path, got, len(w))}
		}
		for i := range w {
			diffs = append(diffs, shownIn(w[i], g[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
	case string:
		g, _ := got.(string)
		parts := strings.Split(w, "...")
		ok := strings.HasPrefix(g, parts[0]) && strings.HasSuffix(g, parts[len(parts)-1])
		for rest := g; ok && len(parts) > 1; parts = parts[1:] {
			var found bool
			_, rest, found = strings.Cut(rest, parts[0])
			ok = found
		}
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s: %q, docs/receivables.md shows %q", path, g, w))
		}
	default:
		if fmt.Sprint(want) != fmt.Sprint(got) {
			diffs = append(diffs, fmt.Sprintf("%s: %v, docs/receivables.md shows %v", path, got, want))
		}
	}
	return diffs
}

// TestCSVValidateHelp: the help says what each exit code means, and that
// a workbook or Unicode Text is unusable.
func TestCSVValidateHelp(t *testing.T) {
	_, out, _ := execute(t, nil, "csv", "validate", "--help")
	for _, want := range []string{"fix first:", "row R, L: Column Name", "0  every file is valid", "1  some file is invalid", "2  some file is unusable", "workbook", `"Unicode Text"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the help does not say %q:\n%s", want, out)
		}
	}
}

// TestCSVFix: csv fix writes the corrected copy and its change list,
// prints what is left and exits as csv validate would on the copy: 0 when
// it is valid, 1 when errors are left or the file could not be read to its
// end, 2 for an unusable file or a wrong use.
func TestCSVFix(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	sample := string(receivables.Sample())
	semicolons := write("semicolons.csv", strings.Replace(strings.ReplaceAll(sample, ",", ";"), "48250.50", "48250,50", 1))
	zero := write("zero.csv", strings.Replace(strings.Replace(sample, "123456", "12345", 1), "125000.00", `"1,25,000.00"`, 1))
	workbook := write("march.xlsx", "PK\x03\x04\x14\x00\x06\x00")
	open := write("open.csv", sample+`"never closed`+strings.Repeat("x", 2*receivables.MaxRowBytes))
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		wants []string
		out   string
	}{
		{"corrected and valid", []string{semicolons, "--out", filepath.Join(dir, "fixed.csv")}, 0,
			[]string{"semicolons.csv: 2 changes, written to " + filepath.Join(dir, "fixed.csv") + "; each listed in " + filepath.Join(dir, "fixed.changes.csv"), "fixed.csv: valid, 3 rows checked, no errors"}, "fixed.csv"},
		{"errors left", []string{zero}, 1,
			[]string{"zero.csv: 1 change, written to " + filepath.Join(dir, "zero-corrected.csv"), "zero-corrected.csv:2:3: row 2, C2 (MC Number): Excel dropped the leading zero", "INVALID, 3 rows checked, 1 error"}, "zero-corrected.csv"},
		{"unusable", []string{workbook}, 2, []string{"march.xlsx: fix first: this is an Excel workbook", "no corrected copy written"}, ""},
		{"not read to its end", []string{open}, 1, []string{"fix first: this row is longer than", "no corrected copy written"}, ""},
		{"the file itself", []string{zero, "--out", zero}, 2, []string{"--out names the file itself"}, ""},
		{"two files", []string{zero, semicolons}, 2, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := execute(t, nil, append([]string{"csv", "fix"}, tc.args...)...)
			for _, want := range tc.wants {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s%s", code, tc.code, out, errOut)
			}
			if tc.out == "" {
				return
			}
			fixed := filepath.Join(dir, tc.out)
			if code, out, _ := execute(t, nil, "csv", "validate", fixed); code != tc.code {
				t.Errorf("csv validate on the copy: exit %d\n%s", code, out)
			}
			list, err := os.ReadFile(receivables.ChangesPath(fixed))
			if err != nil || !strings.HasPrefix(string(list), "\ufeffRow,Cell,Column,Old value,New value,Why\r\n") {
				t.Errorf("change list %v: %.200q", err, list)
			}
		})
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	t.Run("json", func(t *testing.T) {
		code, out, _ := execute(t, nil, "csv", "fix", zero, "--format", "json", "--out", filepath.Join(dir, "z.csv"))
		var f receivables.FixedFile
		if err := json.Unmarshal([]byte(out), &f); err != nil || code != 1 || f.Changes != 1 || f.Left == nil || f.Left.ErrorCount != 1 || f.Read.Valid {
			t.Errorf("exit %d, %v:\n%s", code, err, out)
		}
	})
}

// TestCSVFixReadme: the corrected copy docs/receivables.md shows is the command's own:
// its output line for line (but the time taken) and the first lines of
// its change list.
func TestCSVFixReadme(t *testing.T) {
	file := marchExport(t)
	dir := filepath.Dir(file)
	fixed := filepath.Join(dir, "march-fixed.csv")
	code, out, _ := execute(t, nil, "csv", "fix", file, "--out", fixed)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	got := took.ReplaceAllString(strings.ReplaceAll(out, dir+string(filepath.Separator), ""), "(T)")
	want := took.ReplaceAllString(readmeBlock(t, "The Tally export above"), "(T)")
	if got != want {
		t.Errorf("docs/receivables.md shows a corrected copy the command does not make; it prints:\n%s", got)
	}
	list, err := os.ReadFile(receivables.ChangesPath(fixed))
	documented := readmeBlock(t, "and the first lines of `march-fixed.changes.csv`")
	if err != nil || !strings.HasPrefix(strings.ReplaceAll(strings.TrimPrefix(string(list), "\ufeff"), "\r\n", "\n"), documented) {
		t.Errorf("docs/receivables.md's change list is not the start of the command's (%v):\n%.1500s", err, list)
	}
}
