package receivables

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gocarina/gocsv"
)

// DefaultMaxErrors is how many problems a report lists unless told otherwise.
const DefaultMaxErrors = 1000

// MaxRowBytes is the longest row read. A longer one is almost always a
// quote left open that swallows the rest of the file; stopping there keeps
// memory constant whatever the file.
const MaxRowBytes = 1 << 20

// valueDisplay is how many characters of an offending value a report shows.
const valueDisplay = 40

// Options tune one validation.
type Options struct {
	// MaxErrors is how many problems the report lists; the rest are counted.
	MaxErrors int
}

// Problem is one error (or warning) found in a file.
type Problem struct {
	// Line is the physical line of the file (1 is the heading) where the
	// offending value starts, counting the lines inside quoted values; 0
	// means the whole file.
	Line int `json:"line"`
	// Column is the column number (1 to 25); 0 means the whole row or file.
	Column     int    `json:"column,omitempty"`
	ColumnID   string `json:"columnId,omitempty"`
	ColumnName string `json:"columnName,omitempty"`
	// Value is the offending value, cut to 40 characters, with bytes that
	// are not UTF-8 shown as U+FFFD.
	Value string `json:"value,omitempty"`
	Rule  Rule   `json:"rule"`
	// Limit is the rule's number: the most characters, the exact digits,
	// the expected columns...; Found is what the value has, where counted.
	Limit  int    `json:"limit,omitempty"`
	Found  int    `json:"found,omitempty"`
	Reason string `json:"reason"`
}

// Report is the outcome of checking one file.
type Report struct {
	File string `json:"file"`
	// Valid is true when the file has no error at all (SPEC §3: any error
	// rejects the whole file).
	Valid bool `json:"valid"`
	// Rows counts the data rows read (the heading not included).
	Rows       int `json:"rows"`
	ErrorCount int `json:"errorCount"`
	// Errors lists the first MaxErrors problems in file order;
	// OmittedErrors counts the rest.
	Errors        []Problem `json:"errors"`
	OmittedErrors int       `json:"omittedErrors"`
	Warnings      []Problem `json:"warnings,omitempty"`
	// Unusable says why the file could not be read at all (a folder, a
	// missing or unreadable file, a read error); the report is then invalid.
	Unusable   string  `json:"unusable,omitempty"`
	DurationMS float64 `json:"durationMs"`

	maxErrors int
}

func (r *Report) add(p Problem) {
	r.ErrorCount++
	if len(r.Errors) < r.maxErrors {
		r.Errors = append(r.Errors, p)
	} else {
		r.OmittedErrors++
	}
}

// Validate reads an import file from in, row by row in constant memory,
// and checks it against Format. The error is not nil only when reading in
// failed; the report then holds what was found up to there.
func Validate(in io.Reader, opts Options) (*Report, error) {
	start := time.Now()
	rep := &Report{Errors: []Problem{}, maxErrors: max(opts.MaxErrors, 0)}
	v := newValidation(in, rep)
	err := v.run()
	rep.Valid = err == nil && rep.ErrorCount == 0
	rep.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	return rep, err
}

// validation is the state of one Validate call.
type validation struct {
	rep   *Report
	limit *rowLimit
	in    *bufio.Reader
	csv   *csv.Reader
	// lastLine is the physical line the previous record ended on.
	lastLine int
	skipped  int // bytes before the CSV text (a byte order mark)
}

func newValidation(in io.Reader, rep *Report) *validation {
	limit := &rowLimit{r: in}
	v := &validation{rep: rep, limit: limit, in: bufio.NewReaderSize(limit, 64<<10)}
	// csv.NewReader keeps v.in as its buffer (it is a large enough
	// *bufio.Reader), so rowLimit sees every byte csv reads.
	v.csv = csv.NewReader(v.in)
	v.csv.FieldsPerRecord = -1 // counted here, to say how many were found
	v.csv.ReuseRecord = true
	return v
}

// run reads the heading, then every row. gocsv is the row source: its
// decoder over our encoding/csv reader hands each row over as a []string,
// so no value is ever converted (gocsv's typed decoding would turn "" into
// 0 and "010" into 8) and no row costs reflection; FieldPos and
// InputOffset of the same reader give physical lines and the row limit.
func (v *validation) run() error {
	if stop, err := v.sniff(); stop || err != nil {
		return err
	}
	rows := gocsv.NewSimpleDecoderFromCSVReader(v.csv)
	heading, err := rows.GetCSVRow()
	if err == io.EOF {
		v.rep.add(Problem{Rule: RuleEmpty, Reason: reason(violation{rule: RuleEmpty})})
		return nil
	}
	if stop, err := v.record(heading, err, true); stop || err != nil {
		return err
	}
	for {
		row, err := rows.GetCSVRow()
		if err == io.EOF {
			return nil
		}
		if stop, err := v.record(row, err, false); stop || err != nil {
			return err
		}
		v.rep.Rows++
	}
}

// sniff looks at the first bytes: it skips a UTF-8 byte order mark and
// stops at files that are not CSV text at all.
func (v *validation) sniff() (stop bool, _ error) {
	head, err := v.in.Peek(512)
	if err != nil && err != io.EOF {
		return true, err
	}
	if bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) {
		v.skipped, _ = v.in.Discard(3)
		return false, nil
	}
	for _, magic := range []string{"PK\x03\x04", "\xd0\xcf\x11\xe0", "\xff\xfe", "\xfe\xff", "%PDF"} {
		if bytes.HasPrefix(head, []byte(magic)) {
			v.fatal(0, RuleNotCSV, 0)
			return true, nil
		}
	}
	if bytes.IndexByte(head, 0) >= 0 {
		v.fatal(0, RuleNotCSV, 0)
		return true, nil
	}
	return false, nil
}

func (v *validation) fatal(line int, rule Rule, limit int) {
	v.rep.add(Problem{Line: line, Rule: rule, Limit: limit, Reason: reason(violation{rule: rule, limit: limit})})
}

// record checks one record as csv read it (with its error); the heading's
// values are not checked, only its syntax. stop ends reading the file.
func (v *validation) record(fields []string, err error, heading bool) (stop bool, _ error) {
	v.limit.startRow(v.csv.InputOffset() + int64(v.skipped))
	var pe *csv.ParseError
	switch {
	case errors.Is(err, errRowTooLong):
		v.fatal(v.lastLine+1, RuleRowLength, MaxRowBytes)
		return true, nil
	case errors.As(err, &pe):
		v.syntax(fields, pe)
		return false, nil
	case err != nil:
		return true, err
	}
	first, _ := v.csv.FieldPos(0)
	last, _ := v.csv.FieldPos(len(fields) - 1)
	v.lastLine = last + strings.Count(fields[len(fields)-1], "\n")
	if heading {
		return v.heading(fields), nil
	}
	if len(fields) != ColumnCount {
		v.rep.add(Problem{Line: first, Rule: RuleColumns, Limit: ColumnCount, Found: len(fields),
			Reason: reason(violation{rule: RuleColumns, limit: ColumnCount, found: len(fields)})})
		return false, nil
	}
	for i, value := range fields {
		c := &Format.Columns[i]
		if bad, ok := c.check(value); ok {
			line, _ := v.csv.FieldPos(i)
			v.rep.add(Problem{Line: line, Column: i + 1, ColumnID: c.ID, ColumnName: c.Name, Value: shorten(value),
				Rule: bad.rule, Limit: bad.limit, Found: bad.found, Reason: reason(bad)})
		}
	}
	return false, nil
}

// syntax reports a CSV syntax error at the field where it happened.
// encoding/csv goes on with the next line.
func (v *validation) syntax(fields []string, pe *csv.ParseError) {
	rule, line := RuleQuote, pe.StartLine
	if errors.Is(pe.Err, csv.ErrBareQuote) {
		rule, line = RuleBareQuote, pe.Line
	} else if n := len(fields); n > 0 {
		// The open quote starts right after the last complete field.
		end, _ := v.csv.FieldPos(n - 1)
		line = end + strings.Count(fields[n-1], "\n")
	}
	p := Problem{Line: line, Column: len(fields) + 1, Rule: rule, Reason: reason(violation{rule: rule})}
	if len(fields) < ColumnCount {
		p.ColumnID, p.ColumnName = Format.Columns[len(fields)].ID, Format.Columns[len(fields)].Name
	}
	v.rep.add(p)
	v.lastLine = pe.Line
}

// heading checks what can be checked of the heading, which SPEC §3 skips.
func (v *validation) heading(fields []string) (stop bool) {
	for _, f := range fields {
		if strings.ContainsRune(f, '\r') {
			v.fatal(1, RuleLineEnds, 0)
			return true
		}
	}
	if len(fields) != ColumnCount {
		return false
	}
	for i := range fields {
		c := &Format.Columns[i]
		if c.Kind == Amount {
			if _, bad := c.check(fields[i]); bad {
				return false
			}
		}
	}
	v.rep.Warnings = append(v.rep.Warnings, Problem{Line: 1, Rule: RuleHeadingIsData, Reason: reason(violation{rule: RuleHeadingIsData})})
	return false
}

// shorten makes a value fit a report: valid UTF-8, at most valueDisplay
// characters.
func shorten(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if utf8.RuneCountInString(s) <= valueDisplay {
		return s
	}
	n := 0
	for i := range s {
		if n == valueDisplay-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

var errRowTooLong = errors.New("row too long")

// rowLimit fails the read once more than MaxRowBytes (plus the reader's
// buffer) have been read since the current row started.
type rowLimit struct {
	r        io.Reader
	read     int64
	rowStart int64
}

func (l *rowLimit) startRow(offset int64) { l.rowStart = offset }

func (l *rowLimit) Read(p []byte) (int, error) {
	if l.read-l.rowStart > MaxRowBytes+64<<10 {
		return 0, errRowTooLong
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	return n, err
}
