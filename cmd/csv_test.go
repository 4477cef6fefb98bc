package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
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
