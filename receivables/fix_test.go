package receivables

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// fix corrects a file and returns the copy and the changes, as
// "rule cell old -> new" (a row deleted: "rule row N old").
func fix(t *testing.T, file []byte) ([]byte, []string, FixResult) {
	t.Helper()
	var out bytes.Buffer
	var changes []string
	res, err := Fix(bytes.NewReader(file), &out, func(c Change) {
		switch {
		case c.Row == 0 && c.Line == 0:
			changes = append(changes, fmt.Sprintf("%s %s -> %s", c.Rule, c.Old, c.New))
		case c.Column == 0:
			changes = append(changes, fmt.Sprintf("%s row %d %s", c.Rule, c.Row, c.Old))
		default:
			changes = append(changes, fmt.Sprintf("%s %s%d %s -> %s", c.Rule, c.ColumnLetter, c.Row, c.Old, c.New))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changes != len(changes) {
		t.Errorf("%d changes counted, %d made", res.Changes, len(changes))
	}
	return out.Bytes(), changes, res
}

// TestFixNothingToFix: a file with nothing to correct comes out byte for
// byte the same, whatever its line ends, quotes and byte order mark.
func TestFixNothingToFix(t *testing.T) {
	generated, _ := io.ReadAll(newGeneratedFile(5000))
	for name, file := range map[string][]byte{
		"the sample":                  Sample(),
		"a generated file":            generated,
		"LF, no byte order mark":      excel{sep: ',', lineEnds: "\n"}.write(accounts(30)),
		"no line end at the end":      bytes.TrimSuffix(csvUTF8.write(accounts(3)), []byte("\r\n")),
		"blank lines at the end":      append(csvUTF8.write(accounts(3)), "\r\n\r\n"...),
		"values the report only asks": csvUTF8.write(accounts(5).set(2, "C", "12345").set(3, "S", "1.5 L").set(4, "D", "9.88E+09")),
	} {
		t.Run(name, func(t *testing.T) {
			out, changes, _ := fix(t, file)
			if !bytes.Equal(out, file) || len(changes) != 0 {
				t.Errorf("changes %q; the copy differs: %d bytes, the file %d", changes, len(out), len(file))
			}
		})
	}
}

// TestFixCorrectsWhatIsCertain: a file with every slip csv fix corrects
// comes out valid, each change listed with its cell, old and new value.
func TestFixCorrectsWhatIsCertain(t *testing.T) {
	s := accounts(6)
	for _, row := range s {
		row[5] = strings.ReplaceAll(row[5], ",", "") // the sample's address has a comma; semicolons keep it whole anyway
	}
	s.set(1, "S", "1.250,50").set(1, "T", "1,25,000.00").set(1, "U", "₹ 500").set(1, "V", "(75.00)").set(1, "W", "1,200.00 Dr").set(1, "X", "500.00 Cr").set(1, "Y", " -   ")
	s.set(2, "I", "Maharashtra").set(2, "K", "India").set(2, "A", "CUST-000125\u00a0").set(2, "D", "+91 98765 43210").set(2, "S", "NIL")
	s.set(3, "P", "Gujrat").set(3, "R", "Bharat").set(3, "B", " Sharma Roadlines ")
	group := make([]string, ColumnCount)
	group[0] = "MUMBAI"
	total := make([]string, ColumnCount)
	total[0], total[18] = "Sub Total", "2000"
	rows := append(sheet{s[0], group}, s[1:4]...)
	rows = append(rows, total, make([]string, ColumnCount))
	rows = append(rows, s[4:]...)
	var file bytes.Buffer
	file.WriteString("Sharma Roadlines Pvt Ltd\r\nBills Receivable\r\n")
	file.Write(excel{sep: ';', lineEnds: "\r\n", extra: 2}.write(rows))
	file.WriteString("Grand Total;;;;;;;;;;;;;;;;;;4006,00;0;0;0;0;0;0;;\r\n")

	out, changes, res := fix(t, file.Bytes())
	if !res.Complete || res.Report.Valid {
		t.Errorf("the file read is invalid and complete: %+v", res)
	}
	after := check(t, out)
	if !after.Valid || after.Rows != 6 {
		t.Errorf("the copy is not valid:\n%s\n%s", text(after), out)
	}
	want := []string{
		"linesAboveHeading row 1 Sharma Roadlines Pvt Ltd",
		"linesAboveHeading row 2 Bills Receivable",
		"separator ; -> ,",
		"groupHeadings row 4 MUMBAI;;;;;;;;;;;;;;;;;;;;;;;;;;",
		"thousands S5 1.250,50 -> 1250.50",
		"thousands T5 1,25,000.00 -> 125000.00",
		"currency U5 ₹ 500 -> 500",
		"credit V5 (75.00) -> -75.00",
		"drCr W5 1,200.00 Dr -> 1200.00",
		"drCr X5 500.00 Cr -> -500.00",
		"spaces Y5  -    -> 0",
		"invisible A6 CUST-000125\u00a0 -> CUST-000125",
		"digits D6 +91 98765 43210 -> 9876543210",
		"code I6 Maharashtra -> MH",
		"country K6 India -> IN",
		"zero S6 NIL -> 0",
		"spaces B7  Sharma Roadlines  -> Sharma Roadlines",
		"code P7 Gujrat -> GJ",
		"country R7 Bharat -> IN",
		"emptyRows row 9 ;;;;;;;;;;;;;;;;;;;;;;;;;;",              // a row held as a possible
		"totalsRow row 8 Sub Total;;;;;;;;;;;;;;;;;;2000;;;;;;;;", // total is decided later
		"totalsRow row 13 Grand Total;;;;;;;;;;;;;;;;;;4006,00;0;0;0;0;0;0;;",
		"trailingColumns Z–AA -> ",
	}
	if !slices.Equal(changes, want) {
		t.Errorf("changes\n%q\nwant\n%q", changes, want)
	}
	for _, p := range res.Report.Causes {
		if !p.Fix {
			t.Errorf("cause %s not marked as corrected", p.Rule)
		}
	}
	if !bytes.HasPrefix(out, []byte(heading+"\r\n")) {
		t.Errorf("the copy starts %.200q", out)
	}
}

// TestFixWindows1252: an ANSI save of names with accents (no Hindi or
// Marathi letters, which it would have lost) becomes UTF-8 with a byte
// order mark.
func TestFixWindows1252(t *testing.T) {
	s := accounts(4)
	s[2][1], s[3][11] = "Société Générale Logistics", "Mme Hélène D’souza"
	for _, row := range s[1:] {
		row[1] = strings.Map(func(r rune) rune {
			if r > 0x7f && r < 0x900 || r < 0x80 {
				return r
			}
			return -1
		}, row[1])
	}
	ansi := excel{sep: ',', ansi: true, lineEnds: "\r\n"}.write(s)
	s[1][1], s[4][1] = "Sharma Roadlines Pvt Ltd", "Sharma Roadlines Pvt Ltd"
	out, changes, res := fix(t, ansi)
	if after := check(t, out); !after.Valid || !res.Report.Causes[0].Fix {
		t.Errorf("%s\n%s", text(after), out)
	}
	if !bytes.HasPrefix(out, utf8BOM) || !bytes.Contains(out, []byte("Société Générale Logistics")) || !bytes.Contains(out, []byte("Mme Hélène D’souza")) {
		t.Errorf("%s", out)
	}
	if len(changes) != 3 || changes[1] != "encoding B3 Soci\uFFFDt\uFFFD G\uFFFDn\uFFFDrale Logistics -> Société Générale Logistics" {
		t.Errorf("%q", changes)
	}
}

// TestFixLeavesWhatIsNotCertain: names lost to question marks, formula
// errors, a number that lost its zero, lakh written short, columns in
// another order and a value cut at an unquoted comma stay as they are:
// validating the copy says what is left.
func TestFixLeavesWhatIsNotCertain(t *testing.T) {
	s := accounts(5).set(1, "C", "12345").set(2, "B", "#N/A").set(3, "S", "1.5 L").set(4, "T", "2.5E+05").set(5, "S", "1,000")
	s[0][5], s[0][7] = s[0][7], s[0][5]
	ansi := excel{sep: ',', ansi: true, lineEnds: "\r\n"}.write(s)
	out, changes, _ := fix(t, ansi)
	after := check(t, out)
	var left []string
	for _, p := range append(after.Causes, after.Errors...) {
		left = append(left, fmt.Sprint(p.Rule, " ", p.ColumnLetter, p.Row))
	}
	want := []string{"columnOrder F1", "columnOrder H1", "lostText L4", "leadingZero C2", "formulaError B3", "shorthand S4", "scientific T5"}
	if !slices.Equal(left, want) {
		t.Errorf("left %q, want %q\n%s", left, want, text(after))
	}
	if want := []string{"thousands S6 1,000 -> 1000"}; !slices.Equal(changes, want) {
		t.Errorf("changes %q, want %q", changes, want)
	}
	t.Run("a value cut at an unquoted comma", func(t *testing.T) {
		file := excel{sep: ',', lineEnds: "\r\n", noQuotes: true}.write(accounts(2).set(1, "B", "Shree Ganesh Roadlines, Pune"))
		out, _, _ := fix(t, file)
		if !bytes.Contains(out, []byte("Shree Ganesh Roadlines, Pune,")) || check(t, out).Valid {
			t.Errorf("%s", out)
		}
	})
	t.Run("a row too long: no copy", func(t *testing.T) {
		file := append(csvUTF8.write(accounts(2)), `"open`...)
		file = append(file, bytes.Repeat([]byte("x"), 2*MaxRowBytes)...)
		_, _, res := fix(t, file)
		if res.Complete {
			t.Error("a copy that stops at the long row is called complete")
		}
	})
}

// TestFixExcelForMac: bare CR line ends become CRLF, every record anew.
func TestFixExcelForMac(t *testing.T) {
	out, changes, _ := fix(t, excel{sep: ',', lineEnds: "\r"}.write(accounts(3)))
	if !bytes.Equal(out, csvUTF8.write(accounts(3))[len(utf8BOM):]) || !slices.Equal(changes, []string{"lineEnds CR -> CRLF"}) {
		t.Errorf("%q\n%s", changes, out)
	}
}

// TestFixMemory: the copy of 500,000 rows takes no more memory than that
// of 50,000.
func TestFixMemory(t *testing.T) {
	run := func(n int) uint64 {
		return heapPeak(func() {
			if res, err := Fix(newGeneratedFile(n), io.Discard, nil); err != nil || res.Changes != 0 {
				t.Error(err, res.Changes)
			}
		})
	}
	small, big := run(50_000), run(500_000)
	t.Logf("peak heap: %d KB for 50,000 rows, %d KB for 500,000 rows", small>>10, big>>10)
	if big > small+2<<20 || big > 8<<20 {
		t.Errorf("peak heap grew from %d KB to %d KB with ten times the rows", small>>10, big>>10)
	}
}
