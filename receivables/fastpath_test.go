package receivables

import (
	"encoding/csv"
	"hash/maphash"
	"strings"
	"testing"
	"unsafe"
)

// readRecords reads CSV text as Validate does: encoding/csv, records
// reused.
func readRecords(t *testing.T, text string, each func(fields []string)) {
	t.Helper()
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord, r.ReuseRecord = -1, true
	for {
		fields, err := r.Read()
		if err != nil {
			return
		}
		each(fields)
	}
}

// TestCSVRecordIsOneString: validRow reads a row's values as one string,
// which they are because encoding/csv makes every value of a record a
// slice of one string, one after the other. Should it ever stop doing so,
// this says it.
func TestCSVRecordIsOneString(t *testing.T) {
	readRecords(t, heading+"\n"+csvLine(exampleRow(5, "Plot 14, \"MIDC\"\nTaloja"))+"\n", func(fields []string) {
		text, ok := rowText(fields)
		if !ok || text != strings.Join(fields, "") {
			t.Errorf("the values of %q are not one string", fields)
		}
		for i := 1; i < len(fields); i++ {
			if f, g := fields[i-1], fields[i]; f != "" && g != "" && unsafe.Add(unsafe.Pointer(unsafe.StringData(f)), len(f)) != unsafe.Pointer(unsafe.StringData(g)) {
				t.Errorf("values %d and %d are not one after the other", i-1, i)
			}
		}
	})
}

// TestValidRowAgreesWithCheck: the quick way says valid only when every
// value passes check, for every case of every column, in rows as
// encoding/csv reads them (it may leave to check what check accepts: text
// in Devanagari or with a question mark); and it clears a plain row.
func TestValidRowAgreesWithCheck(t *testing.T) {
	seed := maphash.MakeSeed()
	extra := []string{"", "-", ".", "-.5", "1.", "12.345", "1..2", "-1-", "1-2", "--1", "0.0", "-0.00", "99999999999999", "9999999999999.99", "1e5", "?", "a?b", "\u00a0", "#REF!", "x\x7fy"}
	for i, c := range Format.Columns {
		values := extra
		for _, tc := range casesFor(c) {
			values = append(values, tc.value)
		}
		for _, value := range values {
			readRecords(t, csvLine(exampleRow(i, value))+"\n", func(fields []string) {
				if len(fields) != ColumnCount {
					return
				}
				want := true
				for j := range Format.Columns {
					if _, bad := Format.Columns[j].check(fields[j]); bad {
						want = false
					}
				}
				if got, _ := validRow(fields, &seed); got && !want {
					t.Errorf("%s %q: validRow clears what check refuses", c.ID, value)
				}
			})
		}
	}
	readRecords(t, csvLine(exampleRow(-1, ""))+"\n", func(fields []string) {
		if ok, sum := validRow(fields, &seed); !ok || sum == 0 {
			t.Errorf("the example row is not cleared the quick way")
		}
	})
}

// TestNotDigits counts what is not a digit, eight bytes at a time and in
// the bytes left over.
func TestNotDigits(t *testing.T) {
	for s, want := range map[string]int{
		"": 0, "0": 0, "9": 0, "/": 1, ":": 1, "-1500.00": 2, "1234567890123456": 0, "12345678.": 1, "\xb0\xb9\x30": 2,
		"125000.0048250.500.00120000-1500.007300.25": 6, "0/9:": 2, "९": 3,
	} {
		if got := notDigits(s); got != want {
			t.Errorf("notDigits(%q) = %d, want %d", s, got, want)
		}
	}
}
