package receivables

import (
	"bytes"

	"freightsite/internal/csvsafe"
)

// Sample returns a valid example import file: a byte order mark and CRLF
// line ends (so Excel opens it as UTF-8), the heading, then a row of
// Format's examples and a few more accounts, one with a credit and one
// with only the required columns.
func Sample() []byte {
	var b bytes.Buffer
	b.WriteString("\ufeff")
	w := csvsafe.NewWriter(&b)
	w.UseCRLF = true
	var heading, example [ColumnCount]string
	for i, c := range Format.Columns {
		heading[i], example[i] = c.Name, c.Example
	}
	rows := [][ColumnCount]string{
		heading,
		example,
		{"CUST-000124", "श्री गणेश ट्रांसपोर्ट", "654321", "9822012345", "", "12 Station Road", "", "Pune", "MH", "411001", "IN",
			"Shri Ganesh Patil", "", "", "", "", "", "", "8400", "0", "0", "0", "0", "0", "-250.75"},
		{"CUST-000125", `Delhi "Express" Cargo`, "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "",
			"0", "0", "15999.99", "0", "0", "0", "0"},
	}
	for _, r := range rows {
		_ = w.Write(r[:]) // a bytes.Buffer does not fail
	}
	w.Flush()
	return b.Bytes()
}
