// Package csvsafe writes CSV that spreadsheets open as data, never as
// formulas (OWASP CSV injection): a cell that starts, after any spaces,
// tabs or line breaks, with =, +, - or @, or that starts with a tab or a
// carriage return, is prefixed with a single quote, so Excel, LibreOffice
// and Google Sheets show it as text instead of running it
// (-2+3+cmd|' /C calc'!A0 starts a program in Excel). A plain number such
// as -250.75 is left as it is: it reads as that number, and receivables
// amounts are written so. pages/lib/csv.ts is the same rule for the
// downloads the site makes in the browser; a test runs both on one table.
package csvsafe

import (
	"encoding/csv"
	"io"
	"regexp"
	"strings"
)

// plainNumber is a number a spreadsheet reads as one: an optional sign,
// digits (with thousands commas), an optional decimal part.
var plainNumber = regexp.MustCompile(`^[+-]?[0-9][0-9,]*(?:\.[0-9]+)?$`)

// Cell is v as a spreadsheet may read it: v, or v after a single quote
// when a spreadsheet would read v as a formula.
func Cell(v string) string {
	start := strings.TrimLeft(v, " \t\r\n")
	formula := strings.HasPrefix(v, "\t") || strings.HasPrefix(v, "\r") ||
		(start != "" && strings.ContainsRune("=+-@", rune(start[0])))
	if formula && !plainNumber.MatchString(start) {
		return "'" + v
	}
	return v
}

// Writer is a csv.Writer that writes every cell through Cell.
type Writer struct {
	*csv.Writer
	cells []string
}

// NewWriter writes CSV to w.
func NewWriter(w io.Writer) *Writer { return &Writer{Writer: csv.NewWriter(w)} }

// Write writes one record, each cell made safe.
func (w *Writer) Write(record []string) error {
	w.cells = w.cells[:0]
	for _, v := range record {
		w.cells = append(w.cells, Cell(v))
	}
	return w.Writer.Write(w.cells)
}

// WriteAll writes records and flushes.
func (w *Writer) WriteAll(records [][]string) error {
	for _, r := range records {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}
