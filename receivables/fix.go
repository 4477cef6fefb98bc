package receivables

import (
	"bufio"
	"bytes"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// certain reports whether `freightsite csv fix` corrects a value of this
// rule for certain, when the report has a suggestion for it: the value
// is written the format's way and means what it meant (grouping,
// separators and signs, a decimal comma, Dr and Cr, Excel's zero, a state
// or country written out, spaces and invisible characters around or in
// it, a phone's +91 and separators). What could change an amount or an
// account (scientific notation, lakh and crore written short, a zero
// Excel dropped, an empty amount) is left to the clerk.
func certain(r Rule) bool {
	switch r {
	case RuleThousands, RuleDecimalComma, RuleCurrency, RuleCredit, RuleDrCr, RuleZero, RuleAccounting,
		RuleSpaces, RuleInvisible, RuleOneLine, RuleCode, RuleStateCode, RuleCountry, RuleDigits, RulePostalCode, RuleAmount:
		return true
	}
	return false
}

// fixable reports whether csv fix corrects a value's problem p.
func fixable(p *Problem) bool {
	if p.Suggestion == "" || !certain(p.Rule) {
		return false
	}
	for _, r := range p.Also {
		if !certain(r) {
			return false
		}
	}
	return true
}

// A corrected copy: Fix reads an import file as Validate does and writes
// it again with every certain correction made, in constant memory. A
// record nothing changes is copied byte for byte, so a file with nothing
// to correct comes out the same.

// Change is one correction Fix made: a value written anew (Column, Old,
// New), a row or line deleted (Column 0, Old the line as the file has it,
// New empty), or the file written another way (Line 0: another separator,
// line ends, text encoding, empty columns deleted).
type Change struct {
	Line         int    `json:"line"`
	Row          int    `json:"row"`
	Column       int    `json:"column,omitempty"`
	ColumnLetter string `json:"columnLetter,omitempty"`
	ColumnName   string `json:"columnName,omitempty"`
	Old          string `json:"old"`
	New          string `json:"new"`
	Rule         Rule   `json:"rule"`
	// Reason says what was wrong, in English.
	Reason string `json:"reason"`
}

// FixResult is what Fix did: the report of the file read (the problems
// it had, each marked Fix when corrected), and how many changes it made.
type FixResult struct {
	Report  *Report
	Changes int
	// Complete is false when the file could not be read to its end (a row
	// longer than MaxRowBytes) or not at all: what was written is then no
	// corrected copy and must not be used.
	Complete bool
}

// Fix reads an import file from in and writes it to out with every
// certain correction made (see certain): list separators to commas, Excel's
// sep= line and lines above the heading, empty columns after the last
// one, group headings, rows of commas and totals rows deleted, Windows-1252
// text to UTF-8, CR line ends to CRLF, and each value the report has a
// certain suggestion for written as suggested. Each change goes to
// changes as it is made (nil: not wanted). What it cannot correct for
// certain stays as it is: validating the copy says what is left.
func Fix(in io.Reader, out io.Writer, changes func(Change)) (FixResult, error) {
	start := time.Now()
	rep := &Report{Causes: []Problem{}, Errors: []Problem{}, Warnings: []Problem{}, maxErrors: DefaultMaxErrors}
	v := newValidation(in, rep)
	w := bufio.NewWriterSize(out, 64<<10)
	v.fix = &fixer{w: w, changes: changes, lineEnd: "\r\n"}
	err := v.run()
	if err == nil && !v.fix.stopped && !v.fix.rewrite {
		// Blank lines after the last record, which csv skips: kept.
		if tail := v.limit.bytes(v.to, v.limit.read); len(bytes.Trim(tail, "\r\n")) == 0 {
			w.Write(tail)
		}
	}
	v.finish()
	rep.Valid = err == nil && rep.ErrorCount == 0 && len(rep.Causes) == 0
	rep.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	res := FixResult{Report: rep, Changes: v.fix.count, Complete: err == nil && rep.Unusable == "" && !v.fix.stopped}
	if err != nil {
		return res, err
	}
	return res, w.Flush()
}

// fixer writes the corrected copy as the validation reads the file.
type fixer struct {
	w       *bufio.Writer
	changes func(Change)
	count   int
	// rewrite says every record is written anew: the file has another
	// separator or bare CR line ends.
	rewrite bool
	crOnly  bool   // the file's lines end with a bare CR
	lineEnd string // of records written anew: the file's own
	written bool   // something was written
	dropped bool   // a line was deleted
	stopped bool   // reading stopped before the end of the file
	ansi    bool   // the file's text is Windows-1252: the heading is converted too
	heading bool   // the record being written is the heading
	// separator is the change of separator, made with the first record
	// written anew.
	separator *Change
	// held is the written form of the row validation holds (a totals row
	// if it is the last), with its changes.
	held        []byte
	heldEncoded bool   // held is written anew
	heldRaw     []byte // the held row as the file has it
	heldChanges []Change
	line        []byte // a record being written anew
}

func (f *fixer) change(c Change) {
	f.count++
	if f.changes != nil {
		f.changes(c)
	}
}

// raw writes a record as the file has it (without the blank lines
// between lines deleted above it and the first record written).
func (f *fixer) raw(b []byte) {
	if !f.written && f.dropped {
		b = bytes.TrimLeft(b, "\r\n")
	}
	if f.crOnly {
		for len(b) > 0 {
			i := bytes.IndexByte(b, '\r')
			if i < 0 || i+1 < len(b) && b[i+1] == '\n' {
				i = len(b) - 1
			}
			f.w.Write(b[:i+1])
			if b[i] == '\r' {
				f.w.WriteByte('\n')
			}
			b = b[i+1:]
		}
	} else {
		f.w.Write(b)
	}
	f.written = true
}

// record writes values as a record of the format: commas, quotes where
// CSV needs them, the file's line ends.
func (f *fixer) encode(values []string) []byte {
	f.line = f.line[:0]
	for i, v := range values {
		if i > 0 {
			f.line = append(f.line, ',')
		}
		if v != "" && (strings.ContainsAny(v, "\",\r\n") || v[0] == ' ' || v[0] == '\t') {
			f.line = append(f.line, csvQuoted(v)...)
		} else {
			f.line = append(f.line, v...)
		}
	}
	return append(f.line, f.lineEnd...)
}

// deleted notes a line or row deleted.
func (f *fixer) deleted(raw []byte, at position, rule Rule, reason string) {
	f.dropped = true
	f.change(Change{Line: at.line, Row: at.row, Old: strings.ToValidUTF8(string(bytes.TrimRight(bytes.TrimLeft(raw, "\r\n"), "\r\n")), "\uFFFD"), Rule: rule, Reason: reason})
}

// corrected is a record's values with the certain corrections of its
// problems made, and the changes; changed says whether any was made.
func (f *fixer) corrected(fields []string, problems []Problem) (values []string, changes []Change) {
	values = fields
	set := func(i int, v string, c Change) {
		if len(changes) == 0 {
			values = slices.Clone(fields)
		}
		c.Old, c.New = values[i], v
		values[i] = v
		changes = append(changes, c)
	}
	for _, p := range problems {
		if p.Fix && p.Column > 0 && p.Column <= len(fields) {
			set(p.Column-1, p.Suggestion, Change{Line: p.Line, Row: p.Row, Column: p.Column, ColumnLetter: p.ColumnLetter, ColumnName: p.ColumnName, Rule: p.Rule, Reason: errorReason(&p)})
		}
	}
	for i, v := range values {
		if utf8.ValidString(v) || f.heading && !f.ansi {
			continue
		}
		if text, ok := fromWindows1252(v); ok {
			if i < ColumnCount && !f.heading {
				text = Format.Columns[i].certainly(text, values)
			}
			c := Change{Line: 0, Column: i + 1, ColumnLetter: ColumnLetter(i + 1), Rule: RuleEncoding, Reason: "Windows-1252 (ANSI) text written as UTF-8"}
			if i < ColumnCount {
				c.ColumnName = Format.Columns[i].Name
			}
			set(i, text, c)
			changes[len(changes)-1].Old = strings.ToValidUTF8(v, "\uFFFD")
		}
	}
	return values, changes
}

// output is how a kept record is written: as the file has it when nothing
// changes (encoded false), anew otherwise.
func (f *fixer) output(v *validation, fields []string, problems []Problem, trimmed bool, at position) (b []byte, encoded bool, changes []Change) {
	values, changes := f.corrected(fields, problems)
	for i := range changes {
		if changes[i].Line == 0 {
			changes[i].Line, changes[i].Row = at.line, at.row
		}
	}
	if len(changes) == 0 && !trimmed && !f.rewrite {
		return v.rawRecord(), false, nil
	}
	return f.encode(values), true, changes
}

// write writes a record: anew, or as the file has it.
func (f *fixer) write(b []byte, encoded bool) {
	if !encoded {
		f.raw(b)
		return
	}
	if f.separator != nil {
		// The separator changes with the first record written anew (a
		// file of syntax errors only keeps its own).
		f.change(*f.separator)
		f.separator = nil
	}
	f.w.Write(b)
	f.written = true
}

// keep writes a record kept in the copy.
func (f *fixer) keep(v *validation, fields []string, problems []Problem, trimmed bool, at position) {
	b, encoded, changes := f.output(v, fields, problems, trimmed, at)
	f.write(b, encoded)
	for _, c := range changes {
		f.change(c)
	}
}

// keepAsIs writes a record the copy cannot correct (a syntax error, a
// row of other columns), only with the file's separator and line ends
// changed when they are.
func (f *fixer) keepAsIs(v *validation, fields []string) {
	if f.rewrite && fields != nil {
		f.write(f.encode(fields), true)
		return
	}
	f.raw(v.rawRecord())
}

// hold keeps the written form of a row that may be the file's totals row.
func (f *fixer) hold(v *validation, fields []string, problems []Problem, trimmed bool, at position) {
	b, encoded, changes := f.output(v, fields, problems, trimmed, at)
	f.held, f.heldEncoded, f.heldRaw, f.heldChanges = append(f.held[:0], b...), encoded, append(f.heldRaw[:0], v.rawRecord()...), changes
}

// release writes the held row (it was no totals row after all), or
// deletes it.
func (f *fixer) release(deleted bool, at position, reason string) {
	if deleted {
		f.deleted(f.heldRaw, at, RuleTotalsRow, reason)
	} else {
		f.write(f.held, f.heldEncoded)
		for _, c := range f.heldChanges {
			f.change(c)
		}
	}
	f.held, f.heldChanges = f.held[:0], nil
}

// windows1252 are the characters of bytes 0x80 to 0x9F in Windows-1252
// (0: a byte it leaves undefined); the other bytes are Latin-1's.
var cp1252High = [32]rune{
	'€', 0, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0, 'Ž', 0,
	0, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0, 'ž', 'Ÿ',
}

// fromWindows1252 reads v as Windows-1252 (Excel's "ANSI" in India and the
// West), or reports that it is not.
func fromWindows1252(v string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c < 0x80:
			b.WriteByte(c)
		case c < 0xa0:
			r := cp1252High[c-0x80]
			if r == 0 {
				return "", false
			}
			b.WriteRune(r)
		default:
			b.WriteRune(rune(c))
		}
	}
	return b.String(), true
}

// start notes how the file is written, from its first bytes: its line
// ends, and its byte order mark, which the copy keeps; text in Windows-1252
// gets one, so that Excel opens the UTF-8 copy as such.
func (f *fixer) start(head []byte, bom bool) {
	if i := bytes.IndexByte(head, '\n'); i >= 0 && (i == 0 || head[i-1] != '\r') {
		f.lineEnd = "\n"
	}
	if bom {
		f.w.Write(utf8BOM)
		return
	}
	// The heading line does not count: the import skips it.
	head = bytes.TrimLeft(head, "\r\n")
	if i := bytes.IndexAny(head, "\r\n"); i >= 0 {
		head = head[i:]
	} else {
		head = nil
	}
	if cut := max(0, len(head)-utf8.UTFMax); !utf8.Valid(head[:cut]) || !utf8.Valid(head) && len(head) < 64<<10 {
		f.ansi = true
		f.w.Write(utf8BOM)
		f.change(Change{Rule: RuleEncoding, Old: "Windows-1252 (ANSI)", New: "UTF-8 with a byte order mark", Reason: "the file was saved as ANSI \"CSV (Comma delimited)\""})
	}
}

// certainly is v corrected as the copy corrects a value of the column in
// a row of values, or v.
func (c *Column) certainly(v string, values []string) string {
	if _, bad := c.check(v); !bad {
		return v
	}
	india := true
	if j := columnIndex[c.ID]; countryOf[j] >= 0 && countryOf[j] < len(values) {
		india = inIndia(values[countryOf[j]])
	}
	d := c.diagnose(v, india)
	p := Problem{Rule: RuleRequired, Suggestion: d.suggestion}
	if len(d.rules) > 0 {
		p.Rule, p.Also = d.rules[0], d.rules[1:]
	}
	if fixable(&p) {
		return d.suggestion
	}
	return v
}
