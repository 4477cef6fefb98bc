package receivables

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode"
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

// otherFormatRows is how many rows in a row may lack the 25 columns
// before the file is taken for another format and checking stops. A file
// of the format has none or a few; a file of one-value lines would
// otherwise cost a row's check for each of its millions of rows, to list
// the same error over and over.
const otherFormatRows = 1000

// leadingLines is how many lines a file may have above its heading (a
// Tally or ERP report's company name, title and dates) before the first
// line is taken for the heading anyway.
const leadingLines = 12

// Options tune one validation.
type Options struct {
	// MaxErrors is how many errors the report lists; the rest are counted.
	MaxErrors int
	// noDuplicates leaves out the check for the same account twice, the
	// one part of a validation whose memory grows with the rows.
	noDuplicates bool
}

// Validate reads an import file from in, row by row, and checks it
// against Format. Its memory is the same whatever the file's size, but
// for the 18 bytes or so a row that finding the same account twice takes
// (a warning). The error is not nil only when reading in failed; the
// report then holds what was found up to there.
func Validate(in io.Reader, opts Options) (*Report, error) {
	start := time.Now()
	rep := &Report{Causes: []Problem{}, Errors: []Problem{}, Warnings: []Problem{}, maxErrors: max(opts.MaxErrors, 0)}
	v := newValidation(in, rep)
	if !opts.noDuplicates {
		v.accounts = &accountLog{seed: maphash.MakeSeed()}
	}
	err := v.run()
	v.finish()
	rep.Valid = err == nil && rep.ErrorCount == 0 && len(rep.Causes) == 0
	rep.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	return rep, err
}

// validation is the state of one Validate call.
type validation struct {
	rep   *Report
	limit *rowLimit
	in    *bufio.Reader
	csv   *csv.Reader
	rows  gocsv.SimpleDecoder

	skipped    int64 // bytes before the CSV text: a byte order mark, a sep= line
	crOnly     bool  // lines end with a bare CR (read as LF)
	lineOffset int   // lines before the CSV text (a sep= line)
	hiddenRows int   // of those, the lines Excel does not show as rows
	embedded   int   // line breaks inside the values of the records read so far
	lastLine   int   // the file line the previous record ended on
	// from and to are where the record being checked is in the file.
	from, to int64

	// width is how many columns the heading has, and layout how to read
	// rows that wide when the heading moved, dropped or added columns
	// (nil: rows are read by place).
	width  int
	layout *columnMap

	// wrongWidth counts the rows in a row without 25 columns, the first
	// of them at wrongFrom with wrongFound columns (otherFormatRows).
	wrongWidth, wrongFound int
	wrongFrom              position
	stopped                bool // the file was taken for another format

	pending  []Problem // the current row's errors
	replayed []int     // the lines of the values of a kept line checked as a row
	// split is the reading of the current row when it has too many values
	// and one of them was cut at its commas (nil: read as written).
	split *rowSplit
	// held is the last row read when it looks like a totals row: at the
	// end of the file it is a cause, otherwise its errors are reported.
	held *heldRow
	// piped says records are read ahead (runPiped): recordLine is the line
	// of the current one when its values are all on it.
	piped      bool
	recordLine int
	// sum is a hash of the current row's values, when validRow made one
	// (0: none).
	sum uint64
	// others are errors past the first MaxErrors that are not one problem
	// running through a column (yet): listed after the first.
	others []Problem
	// fix writes the corrected copy (nil: none is written).
	fix *fixer
	// replayRaw is the record being checked again, as the file has it,
	// when it was kept to be read again (see replay).
	replayRaw []byte
	// accounts remembers the rows' accounts, to warn of the same account
	// twice (nil: not looked for).
	accounts *accountLog
	// Causes counted while reading, reported at the end (Count 0: none).
	trailing, emptyRows, groupRows, encoding, lostText Problem
	groups                                             grouper
}

type heldRow struct {
	at position
	// labelled rows say so ("Grand Total"); the others have no account
	// or company, only amounts.
	labelled bool
	first    string // the row's first value, to name it
	problems []Problem
}

// position is where a record is: its first and last file lines and the
// row Excel shows it on.
type position struct{ line, endLine, row int }

func newValidation(in io.Reader, rep *Report) *validation {
	limit := &rowLimit{r: in}
	v := &validation{rep: rep, limit: limit, in: bufio.NewReaderSize(limit, 64<<10), width: ColumnCount}
	v.csv = newCSVReader(v.in)
	return v
}

// newCSVReader reads CSV from in. csv.NewReader keeps in as its buffer
// (it is a large enough *bufio.Reader), so rowLimit sees every byte csv
// reads.
func newCSVReader(in *bufio.Reader) *csv.Reader {
	r := csv.NewReader(in)
	r.FieldsPerRecord = -1 // counted here, to say how many were found
	r.ReuseRecord = true
	return r
}

// crLineEnds reads a file whose lines end with a bare CR as if they ended
// with LF (the same number of bytes, so offsets stay the file's).
type crLineEnds struct{ r io.Reader }

func (c crLineEnds) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\r' {
			p[i] = '\n'
		}
	}
	return n, err
}

// run finds the heading, then checks every row. gocsv is the row source:
// its decoder over our encoding/csv reader hands each row over as a
// []string, so no value is ever converted (gocsv's typed decoding would
// turn "" into 0 and "010" into 8) and no row costs reflection; FieldPos
// and InputOffset of the same reader give physical lines and the row
// limit.
func (v *validation) run() error {
	if stop, err := v.sniff(); stop || err != nil {
		return err
	}
	v.rows = gocsv.NewSimpleDecoderFromCSVReader(v.csv)
	if stop, err := v.findHeading(); stop || err != nil {
		return err
	}
	if v.fix == nil && runtime.GOMAXPROCS(0) > 1 {
		return v.runPiped()
	}
	for {
		fields, err := v.rows.GetCSVRow()
		if err == io.EOF {
			return nil
		}
		at, syntax, stop, err := v.record(fields, err)
		if stop || err != nil {
			return err
		}
		v.rep.Rows++
		v.row(fields, at, syntax)
		if v.stopped {
			return nil
		}
	}
}

var utf8BOM = []byte("\xef\xbb\xbf")

// sniff looks at the first 64 KB: it skips a UTF-8 byte order mark, stops
// at files that are not CSV text at all, and finds the separator: a "sep="
// line's, or the one that splits the first lines into about 25 values.
func (v *validation) sniff() (stop bool, _ error) {
	head, err := v.in.Peek(64 << 10)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return true, err
	}
	bom := bytes.HasPrefix(head, utf8BOM)
	if bom {
		head = head[len(utf8BOM):]
		v.skipped += int64(len(utf8BOM))
	}
	if rule := notText(head); rule != "" {
		p := v.cause(Problem{Rule: rule})
		v.rep.Unusable = p.Reason
		return true, nil
	}
	if v.fix != nil {
		v.fix.start(head, bom)
	}
	if bytes.IndexByte(head, '\n') < 0 && bytes.IndexByte(head, '\r') >= 0 {
		// Excel for Mac's "CSV (Macintosh)": read with each CR as a line
		// end, so the rows' own errors show too.
		v.cause(Problem{Rule: RuleLineEnds})
		head = bytes.ReplaceAll(head, []byte{'\r'}, []byte{'\n'})
		v.in = bufio.NewReaderSize(crLineEnds{v.in}, 64<<10)
		v.csv = newCSVReader(v.in)
		v.crOnly = true
		if v.fix != nil {
			v.fix.rewrite, v.fix.crOnly, v.fix.lineEnd = true, true, "\r\n"
			v.fix.change(Change{Rule: RuleLineEnds, Old: "CR", New: "CRLF", Reason: v.rep.Causes[len(v.rep.Causes)-1].Reason})
		}
	}
	comma := byte(',')
	if line, sep, ok := sepLine(head); ok {
		p := v.cause(Problem{Line: 1, Rule: RuleSepLine, Value: strings.TrimSpace(string(line))})
		if v.fix != nil {
			v.fix.deleted(line, position{line: 1}, RuleSepLine, p.Reason)
		}
		v.skipped += int64(len(line))
		v.lineOffset, v.hiddenRows = 1, 1
		comma = sep
	} else {
		comma = sniffSeparator(head)
	}
	if comma != ',' {
		p := v.cause(Problem{Rule: RuleSeparator, Value: string(rune(comma))})
		v.csv.Comma = rune(comma)
		if v.fix != nil {
			v.fix.rewrite = true
			v.fix.separator = &Change{Rule: RuleSeparator, Old: p.Value, New: ",", Reason: p.Reason}
		}
	}
	_, err = v.in.Discard(int(v.skipped))
	v.to = v.skipped // the first record starts there
	return false, err
}

// notText names what a file that is not CSV text is, from its first bytes.
func notText(head []byte) Rule {
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("\xd0\xcf\x11\xe0")):
		return RuleWorkbook
	case bytes.HasPrefix(head, []byte("\xff\xfe")), bytes.HasPrefix(head, []byte("\xfe\xff")),
		len(head) >= 4 && (head[1] == 0 && head[3] == 0 || head[0] == 0 && head[2] == 0) && head[0] != head[1]:
		return RuleUnicodeText
	case bytes.IndexByte(head, 0) >= 0, bytes.HasPrefix(head, []byte("%PDF")):
		return RuleNotCSV
	}
	return ""
}

// sepLine finds Excel's "sep=;" first line and the separator it names.
func sepLine(head []byte) (line []byte, sep byte, ok bool) {
	if len(head) < 5 || !bytes.EqualFold(head[:4], []byte("sep=")) {
		return nil, 0, false
	}
	end := bytes.IndexByte(head, '\n') + 1
	if end == 0 {
		end = len(head)
	}
	if strings.TrimRight(string(head[5:end]), "\r\n") != "" || !separator(head[4]) {
		return nil, 0, false
	}
	return head[:end], head[4], true
}

func separator(b byte) bool { return b == ',' || b == ';' || b == '\t' || b == '|' }

// sniffSeparator picks the separator that splits one of the first 20
// lines into at least 20 values (Excel saves with the computer's list
// separator, a semicolon in many regions; "Text (Tab delimited)" uses
// tabs). Commas win whenever they do it.
func sniffSeparator(head []byte) byte {
	best, most := byte(','), 0
	for _, sep := range []byte{',', ';', '\t', '|'} {
		widest, values, lines, quoted := 0, 1, 0, false
		for _, b := range head {
			switch {
			case b == '"':
				quoted = !quoted
			case quoted:
			case b == sep:
				values++
			case b == '\n':
				widest, values = max(widest, values), 1
				lines++
			}
			if lines == 20 {
				break
			}
		}
		widest = max(widest, values)
		if sep == ',' && widest >= 20 {
			return ','
		}
		if widest > most {
			best, most = sep, widest
		}
	}
	if most >= 20 {
		return best
	}
	return ','
}

// record takes what csv read: it stops at a row too long or a read error
// and otherwise says where the record is; syntax is its CSV syntax error.
func (v *validation) record(fields []string, err error) (at position, syntax *csv.ParseError, stop bool, _ error) {
	v.from, v.to = v.to, v.csv.InputOffset()+v.skipped
	v.limit.startRow(v.to)
	var first, last int
	switch {
	case err == nil:
		first, _ = v.csv.FieldPos(0)
		last, _ = v.csv.FieldPos(len(fields) - 1)
		last += strings.Count(fields[len(fields)-1], "\n")
	case errors.Is(err, errRowTooLong):
		if v.fix != nil {
			v.fix.stopped = true
		}
		line := v.lastLine + 1
		v.cause(Problem{Line: line, Row: line - v.embedded - v.hiddenRows, Rule: RuleRowLength, Limit: MaxRowBytes})
		return at, nil, true, nil
	default:
		if syntax = parseError(err); syntax == nil {
			return at, nil, true, err
		}
		first, last = syntax.StartLine, syntax.Line
	}
	at = position{line: first + v.lineOffset, endLine: last + v.lineOffset}
	at.row = at.line - v.embedded - v.hiddenRows
	v.embedded += at.endLine - at.line
	v.lastLine = at.endLine
	return at, syntax, false, nil
}

// Reading and checking at once: csv's reading of the records is most of
// a validation's work, and the checks of the rows most of the rest, so
// with two processors one reads ahead while the other checks (the checks
// keep their order). Records go in batches of pipeBatch, at most
// pipeBatches of them read ahead, in arenas used again: memory stays
// constant. The copy Fix writes needs each record's bytes as it is
// checked, and reads as it checks.
const (
	pipeBatch   = 256
	pipeBatches = 3
)

type pipedBatch struct {
	fields  []string // the records' values, one after the other
	records []pipedRecord
}

type pipedRecord struct {
	from, to int // its values: fields[from:to]
	at       position
	lines    []int    // each value's line, when they are not all on at.line
	syntax   *Problem // the error of a record csv could not read
}

// runPiped reads the records in a goroutine of its own and checks them in
// this one.
func (v *validation) runPiped() error {
	full, free := make(chan *pipedBatch, pipeBatches), make(chan *pipedBatch, pipeBatches+1)
	for range pipeBatches + 1 {
		free <- &pipedBatch{fields: make([]string, 0, pipeBatch*ColumnCount), records: make([]pipedRecord, 0, pipeBatch)}
	}
	var readErr error
	quit := make(chan struct{}) // the checks stopped (another format): read no more
	go func() {
		defer close(full)
		b := <-free
		for {
			fields, err := v.rows.GetCSVRow()
			if err == io.EOF {
				break
			}
			at, syntax, stop, err := v.record(fields, err)
			if stop || err != nil {
				readErr = err
				break
			}
			r := pipedRecord{from: len(b.fields), at: at}
			b.fields = append(b.fields, fields...)
			r.to = len(b.fields)
			switch {
			case syntax != nil:
				p := v.syntaxProblem(fields, syntax, at)
				r.syntax = &p
			case at.endLine != at.line:
				r.lines = make([]int, len(fields))
				for i := range fields {
					line, _ := v.csv.FieldPos(i) // not fieldLine: its state is the checks'
					r.lines[i] = line + v.lineOffset
				}
			}
			if b.records = append(b.records, r); len(b.records) == pipeBatch {
				select {
				case full <- b:
				case <-quit:
					return
				}
				b = <-free
				b.fields, b.records = b.fields[:0], b.records[:0]
			}
		}
		if len(b.records) > 0 {
			select {
			case full <- b:
			case <-quit:
			}
		}
	}()
	v.piped = true
	defer func() { v.piped, v.replayed = false, nil }()
	for b := range full {
		for _, r := range b.records {
			v.rep.Rows++
			if r.syntax != nil {
				v.release()
				v.commit(*r.syntax)
				continue
			}
			v.replayed, v.recordLine = r.lines, r.at.line
			v.row(b.fields[r.from:r.to], r.at, nil)
			if v.stopped {
				// The reader stops at its next batch; every batch goes
				// back to free, so it never waits for one.
				close(quit)
				free <- b
				for b := range full {
					free <- b
				}
				return nil
			}
		}
		free <- b
	}
	return readErr
}

// parseError is err's CSV syntax error, if it is one. (A function of its
// own: the variable errors.As fills lives on the heap, and only errors
// should pay for it.)
func parseError(err error) *csv.ParseError {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// findHeading reads the first lines up to the heading, or the first
// account when there is none, and reports the lines above it. When
// neither comes (a file of other lines), the first line is the heading
// after all, as the import takes it, and the others are rows.
func (v *validation) findHeading() (stop bool, _ error) {
	var above []leadingLine
	for {
		fields, err := v.rows.GetCSVRow()
		if err == io.EOF {
			if len(above) == 0 {
				v.cause(Problem{Rule: RuleEmpty})
				return true, nil
			}
			v.replay(above)
			return true, nil
		}
		at, syntax, stop, err := v.record(fields, err)
		if stop || err != nil {
			return stop, err
		}
		var kind lineKind
		switch {
		case syntax != nil && len(above) == 0:
			kind = headingLine
		case syntax != nil:
			kind = dataLine
		default:
			kind = classify(fields)
		}
		switch {
		case kind == otherLine && len(above) < leadingLines-1:
			above = append(above, v.keep(fields, at))
			continue
		case kind == otherLine:
			v.replay(append(above, v.keep(fields, at)))
			return false, nil
		case kind == headingLine:
			if len(above) > 0 {
				p := v.causeLines(RuleLinesAboveHeading, above)
				for _, l := range above {
					if v.fix != nil {
						v.fix.deleted(l.raw, l.at, RuleLinesAboveHeading, p.Reason)
					}
				}
			}
			if syntax != nil {
				v.syntax(fields, syntax, at)
				if v.fix != nil {
					v.fix.keepAsIs(v, nil)
				}
			} else {
				v.heading(fields, at)
			}
			return false, nil
		}
		// An account: the import skips line 1, whatever it is.
		switch {
		case len(above) == 0:
			account := strings.TrimSpace(fields[0])
			if len(fields) > 1 && strings.TrimSpace(fields[1]) != "" {
				account += " (" + strings.TrimSpace(fields[1]) + ")"
			}
			v.cause(Problem{Line: at.line, Row: at.row, Rule: RuleHeadingIsData, Value: shorten(account)})
		case len(above) > 1:
			v.causeLines(RuleHeadingMissing, above)
		}
		for _, l := range above {
			if v.fix != nil {
				v.replayRaw = l.raw
				v.fix.keepAsIs(v, nil)
				v.replayRaw = nil
			}
		}
		v.rep.Rows++
		v.row(fields, at, syntax)
		return false, nil
	}
}

// leadingLine is a line read while looking for the heading, kept (it is
// short: few values) in case it has to be checked as a row after all.
type leadingLine struct {
	fields []string
	lines  []int // each value's file line
	at     position
	raw    []byte // as the file has it, when a corrected copy is written
}

func (v *validation) keep(fields []string, at position) leadingLine {
	l := leadingLine{fields: slices.Clone(fields), at: at, lines: make([]int, len(fields))}
	for i := range fields {
		l.lines[i] = v.fieldLine(i)
	}
	if v.fix != nil {
		l.raw = bytes.Clone(v.rawRecord())
	}
	return l
}

// replay checks kept lines: the first as the heading, the others as rows.
func (v *validation) replay(lines []leadingLine) {
	v.replayRaw = lines[0].raw
	v.heading(lines[0].fields, lines[0].at)
	for _, l := range lines[1:] {
		v.replayed, v.replayRaw = l.lines, l.raw
		v.rep.Rows++
		v.row(l.fields, l.at, nil)
	}
	v.replayed, v.replayRaw = nil, nil
}

// rawRecord is the current record as the file has it, the blank lines
// before it included.
func (v *validation) rawRecord() []byte {
	if v.replayRaw != nil {
		return v.replayRaw
	}
	return v.limit.bytes(v.from, v.to)
}

// fieldLine is the file line value i of the current record starts on.
func (v *validation) fieldLine(i int) int {
	if v.replayed != nil {
		return v.replayed[i]
	}
	if v.piped {
		return v.recordLine // a record of one line, read ahead
	}
	line, _ := v.csv.FieldPos(i)
	return line + v.lineOffset
}

// firstValue is the first non-empty value of a line: a report's title.
func firstValue(fields []string) string {
	for _, f := range fields {
		if f = strings.TrimSpace(f); f != "" {
			return shorten(f)
		}
	}
	return ""
}

// causeLines reports the lines above the heading or the accounts.
func (v *validation) causeLines(rule Rule, lines []leadingLine) Problem {
	first, last := lines[0].at, lines[len(lines)-1].at
	return v.cause(Problem{Line: first.line, LastLine: last.endLine, Row: first.row, LastRow: last.row, Rule: rule, Value: firstValue(lines[0].fields)})
}

// heading compares the heading with the format: columns moved, missing or
// added are causes, and rows as wide as the heading are then read the
// heading's way, so the rows' errors that follow are not reported.
func (v *validation) heading(fields []string, at position) {
	before := v.trailing.Count
	fields = v.trimTrailing(fields, at)
	if v.fix != nil {
		v.fix.heading = true
		v.fix.keep(v, fields, nil, v.trailing.Count != before, at)
		v.fix.heading = false
	}
	v.width = len(fields)
	findings, layout := readHeading(fields)
	v.layout = layout
	for _, f := range findings {
		p := Problem{Line: at.line, Row: at.row, Column: f.column, ColumnLetter: ColumnLetter(f.column), Rule: f.rule, Value: shorten(strings.TrimSpace(f.value))}
		if f.format >= 0 {
			p.ColumnID, p.ColumnName = Format.Columns[f.format].ID, Format.Columns[f.format].Name
			p.Limit = f.format + 1
		}
		v.cause(p)
	}
}

// trimTrailing drops the empty columns Excel adds after the last one
// (Z, AA...) and counts the rows that had them.
func (v *validation) trimTrailing(fields []string, at position) []string {
	n := len(fields)
	if n <= ColumnCount || fields[n-1] != "" {
		return fields
	}
	for n > v.width && n > ColumnCount && fields[n-1] == "" {
		n--
	}
	if n <= ColumnCount || n == v.width {
		if v.trailing.Count == 0 {
			v.trailing = Problem{Line: at.line, Row: at.row, Column: ColumnCount + 1, ColumnLetter: ColumnLetter(ColumnCount + 1), Rule: RuleTrailingColumns}
		}
		v.trailing.Count++
		v.trailing.Found = max(v.trailing.Found, len(fields))
	}
	return fields[:n]
}

// row checks one row after the heading.
func (v *validation) row(fields []string, at position, syntax *csv.ParseError) {
	if syntax != nil {
		v.release()
		v.syntax(fields, syntax, at)
		if v.fix != nil {
			v.fix.keepAsIs(v, nil)
		}
		return
	}
	trimmed := false // empty columns Excel added, deleted in the copy
	if len(fields) > v.width {
		before := v.trailing.Count
		fields = v.trimTrailing(fields, at)
		trimmed = v.trailing.Count != before
	}
	if fields[0] == "" && allEmpty(fields) {
		if v.emptyRows.Count == 0 {
			v.emptyRows = Problem{Line: at.line, Row: at.row, Rule: RuleEmptyRows, Fix: true}
		}
		v.emptyRows.Count++
		if v.fix != nil {
			v.fix.deleted(v.rawRecord(), at, RuleEmptyRows, "a row of commas only")
		}
		return
	}
	m := &identity
	v.split = nil
	switch {
	case len(fields) == v.width && v.layout != nil:
		m = v.layout
	case len(fields) > ColumnCount:
		if v.split = resplit(fields); v.split == nil || v.split.ambiguous != nil {
			v.release()
			v.commit(columnsProblem(len(fields), v.split, at))
			if v.fix != nil {
				v.fix.keepAsIs(v, fields)
			}
			v.wrongRow(at, len(fields))
			return
		}
	case len(fields) != ColumnCount:
		v.release()
		if len(fields) > 1 && len(fields) < ColumnCount && v.groupHeading(fields, &identity, at) {
			return
		}
		v.commit(Problem{Line: at.line, Row: at.row, Rule: RuleColumns, Limit: ColumnCount, Found: len(fields)})
		if v.fix != nil {
			v.fix.keepAsIs(v, fields)
		}
		v.wrongRow(at, len(fields))
		return
	}
	v.wrongWidth = 0
	written := fields // the row as the copy writes it
	v.pending, v.sum = v.pending[:0], 0
	if v.split != nil {
		fields = v.checkSplit(fields, at)
	} else if m == &identity {
		if !v.validRow(fields) {
			for i := range Format.Columns {
				if bad, ok := Format.Columns[i].check(fields[i]); ok {
					v.value(fields, m, i, i, bad, at)
				}
			}
		}
	} else {
		for i, j := range m.format {
			if j >= 0 {
				if bad, ok := Format.Columns[j].check(fields[i]); ok {
					v.value(fields, m, i, j, bad, at)
				}
			}
		}
	}
	account := m.value(fields, 0)
	if account == "" || totalsLabel(account) {
		if company := m.value(fields, 1); account != "" || totalsLabel(company) || company == "" && m.anyAmount(fields) {
			v.release()
			v.held = &heldRow{at: at, labelled: account != "" || company != "", first: firstValue(fields), problems: slices.Clone(v.pending)}
			if v.fix != nil {
				v.fix.hold(v, written, v.correctable(), trimmed, at)
			}
			return
		}
	}
	if v.held != nil {
		v.release()
	}
	if len(v.pending) > 0 && v.groupHeading(fields, m, at) {
		return
	}
	for _, p := range v.pending {
		v.commit(p)
	}
	if v.fix != nil {
		v.fix.keep(v, written, v.correctable(), trimmed, at)
	}
	if v.accounts != nil {
		v.duplicate(fields, strings.TrimSpace(account), at)
	}
}

// correctable are the current row's problems the copy corrects: none when
// commas cut a value, since the row's values are not where they belong.
func (v *validation) correctable() []Problem {
	if v.split != nil {
		return nil
	}
	for i := range v.pending {
		v.pending[i].Fix = fixable(&v.pending[i])
	}
	return v.pending
}

// validRow reports whether the row read by place is valid, the quick way
// (see validRow), keeping the hash of its values for the duplicate check.
func (v *validation) validRow(fields []string) (valid bool) {
	var seed *maphash.Seed
	if v.accounts != nil {
		seed = &v.accounts.seed
	}
	valid, v.sum = validRow(fields, seed)
	return valid
}

// duplicate remembers the row's account, to warn at the end when an
// earlier row has it too.
func (v *validation) duplicate(fields []string, account string, at position) {
	if account == "" {
		return
	}
	if v.sum == 0 {
		// A row validRow did not clear: its values, each ended, hashed.
		var h maphash.Hash
		h.SetSeed(v.accounts.seed)
		for _, f := range fields {
			h.WriteString(f)
			h.WriteByte(0)
		}
		v.sum = h.Sum64()
	}
	v.accounts.add(account, v.sum, at)
}

// groupHeading counts a row that holds only a label, no digits in it,
// outside the amount columns: the heading of a group of accounts
// ("MUMBAI") in a report with merged cells, to delete.
func (v *validation) groupHeading(fields []string, m *columnMap, at position) bool {
	label := -1
	for i, f := range fields {
		if strings.TrimSpace(f) == "" {
			continue
		}
		if label >= 0 || i >= len(m.format) || m.format[i] >= 0 && Format.Columns[m.format[i]].Kind == Amount {
			return false
		}
		label = i
	}
	value := strings.TrimSpace(fields[max(label, 0)])
	if text, ok := fromWindows1252(value); ok && !utf8.ValidString(value) {
		value = text // an ANSI save's label
	}
	if label < 0 || strings.IndexFunc(value, unicode.IsDigit) >= 0 || strings.IndexFunc(value, unicode.IsLetter) < 0 || totalsLabel(value) {
		return false
	}
	if v.groupRows.Count == 0 {
		v.groupRows = Problem{Line: at.line, Row: at.row, Rule: RuleGroupHeadings, Value: shorten(value), Fix: true}
	}
	v.groupRows.Count++
	if v.fix != nil {
		v.fix.deleted(v.rawRecord(), at, RuleGroupHeadings, "a group heading (a label alone on its row)")
	}
	return true
}

// checkSplit checks a row of too many values read as resplit found it:
// each value cut at its commas is an error saying so, the others are
// checked as usual. It returns the row's values as read.
func (v *validation) checkSplit(fields []string, at position) []string {
	s := v.split
	for j := range Format.Columns {
		c := &Format.Columns[j]
		if s.pieces[j] == 1 {
			if bad, ok := c.check(s.values[j]); ok {
				v.value(s.values[:], &identity, j, j, bad, at)
			}
			continue
		}
		i := s.first[j]
		p := Problem{Line: v.fieldLine(i), Row: at.row, Column: i + 1, ColumnLetter: ColumnLetter(i + 1), ColumnID: c.ID, ColumnName: c.Name,
			Value: shorten(s.values[j]), Rule: RuleUnquotedComma, Limit: ColumnCount, Found: len(fields), Suggestion: csvQuoted(s.values[j])}
		for _, piece := range fields[i : i+s.pieces[j]] {
			p.Parts = append(p.Parts, shorten(piece))
		}
		if c.Kind == Amount {
			p.Rule, p.Suggestion = RuleSplitAmount, splitAmount(s.values[j])
		}
		v.pending = append(v.pending, p)
	}
	return s.values[:]
}

// columnsProblem is a row of another number of values than the format's
// columns; when commas not in quotes cut one of several values (split
// names them), it says so.
func columnsProblem(found int, split *rowSplit, at position) Problem {
	p := Problem{Line: at.line, Row: at.row, Rule: RuleColumns, Limit: ColumnCount, Found: found}
	if split != nil {
		for _, j := range split.ambiguous {
			c := Format.Columns[j]
			p.Columns = append(p.Columns, ColumnRef{Column: j + 1, Letter: ColumnLetter(j + 1), ID: c.ID, Name: c.Name})
		}
	}
	return p
}

// wrongRow counts a row without 25 columns; after otherFormatRows of them
// in a row, the file is of another format and checking stops there.
func (v *validation) wrongRow(at position, found int) {
	if v.wrongWidth == 0 {
		v.wrongFrom, v.wrongFound = at, found
	}
	v.wrongWidth++
	if v.wrongWidth < otherFormatRows {
		return
	}
	v.cause(Problem{Line: v.wrongFrom.line, LastLine: at.endLine, Row: v.wrongFrom.row, LastRow: at.row,
		Rule: RuleOtherFormat, Limit: ColumnCount, Found: v.wrongFound, Count: v.wrongWidth})
	v.stopped = true
	if v.fix != nil {
		v.fix.stopped = true
	}
}

// value reports a value check refused, with everything wrong with it.
func (v *validation) value(fields []string, m *columnMap, i, j int, bad violation, at position) {
	c := &Format.Columns[j]
	india := true
	if c.Kind == State {
		india = inIndia(m.value(fields, countryOf[j]))
	}
	d := diagnosis{rules: []Rule{bad.rule}, limit: bad.limit, found: bad.found}
	if bad.rule != RuleRequired || c.Kind == Amount {
		d = c.diagnose(fields[i], india)
	}
	if len(d.rules) == 0 {
		return
	}
	file := i // the value's column in the file
	if v.split != nil {
		file = v.split.first[i]
	}
	p := Problem{Line: v.fieldLine(file), Row: at.row, Column: file + 1, ColumnLetter: ColumnLetter(file + 1), ColumnID: c.ID, ColumnName: c.Name,
		Value: shorten(fields[i]), Rule: d.rules[0], Limit: d.limit, Found: d.found, Suggestion: d.suggestion}
	if len(d.rules) > 1 {
		p.Also = d.rules[1:]
	}
	if d.char != 0 {
		p.Char, p.CharAt, p.CharPlace = fmt.Sprintf("U+%04X", d.char), d.charAt, "middle"
		switch {
		case d.charAt == 1:
			p.CharPlace = "start"
		case d.charAt == utf8.RuneCountInString(fields[i]):
			p.CharPlace = "end"
		}
	}
	for _, r := range d.rules {
		if r == RuleEncoding || r == RuleLostText {
			v.spoiled(p, r, j, fields[i])
			return
		}
	}
	v.pending = append(v.pending, p)
}

// spoiled counts a value the file's saving as ANSI spoiled: one cause for
// all of them, and a line per column in the summary.
func (v *validation) spoiled(p Problem, rule Rule, format int, value string) {
	cause := &v.encoding
	if rule == RuleLostText {
		cause = &v.lostText
	}
	if cause.Count == 0 {
		*cause = p
		cause.Rule, cause.Also, cause.Suggestion, cause.Fix = rule, nil, "", rule == RuleEncoding
	}
	if _, ok := fromWindows1252(value); !ok && rule == RuleEncoding {
		cause.Fix = false // bytes Windows-1252 has no letter for: another encoding
	}
	cause.Count++
	q := p
	q.Limit = 0
	v.groups.add(p.Column, format, rule, &q)
}

// release reports the held row's errors: a row came after it, so it is
// not the file's totals row.
func (v *validation) release() {
	h := v.held
	if h == nil {
		return
	}
	v.held = nil
	if h.labelled {
		v.commit(Problem{Line: h.at.line, Row: h.at.row, Rule: RuleTotalsRow, Value: h.first})
	} else {
		for _, p := range h.problems {
			v.commit(p)
		}
	}
	if v.fix != nil {
		v.fix.release(h.labelled, h.at, "a totals row")
	}
}

// commit reports a row's or value's error and counts it for the summary.
// The report lists the first MaxErrors errors, then up to MaxErrors more
// that are not (so far) one problem running through their column: those
// are said once, as a cause, and the others must not be lost behind them.
func (v *validation) commit(p Problem) {
	p.Fix = fixable(&p) || p.Rule == RuleTotalsRow
	v.rep.ErrorCount++
	if p.Fix {
		v.rep.Fixable++
	}
	column, format := 0, -1
	if p.ColumnID != "" && !rowRule(p.Rule) {
		column, format = p.Column, columnIndex[p.ColumnID]
	}
	t := v.groups.add(column, format, p.Rule, &p)
	t.primary++
	for _, r := range p.Also {
		v.groups.add(column, format, r, &p)
	}
	// Only a listed error needs its words: a file of millions of bad rows
	// spells out the ones it lists, not all of them.
	switch {
	case len(v.rep.Errors) < v.rep.maxErrors:
		p.Reason = errorReason(&p)
		v.rep.Errors = append(v.rep.Errors, p)
	case len(v.others) < v.rep.maxErrors && (column == 0 || !runsThrough(t.count, v.rep.Rows)):
		p.Reason = errorReason(&p)
		v.others = append(v.others, p)
	}
}

// rowRule reports whether a rule is about a whole row.
func rowRule(r Rule) bool {
	return r == RuleColumns || r == RuleQuote || r == RuleBareQuote || r == RuleTotalsRow
}

// cause reports what is wrong with the whole file, and returns it.
func (v *validation) cause(p Problem) Problem {
	p.Reason = causeReason(&p)
	switch p.Rule {
	case RuleSeparator, RuleSepLine, RuleLinesAboveHeading, RuleTrailingColumns, RuleEmptyRows, RuleTotalsRow, RuleGroupHeadings, RuleLineEnds:
		p.Fix = true
	}
	v.rep.Causes = append(v.rep.Causes, p)
	return p
}

// finish reports the causes counted while reading and the summary.
func (v *validation) finish() {
	if h := v.held; h != nil {
		v.held = nil
		p := v.cause(Problem{Line: h.at.line, Row: h.at.row, Rule: RuleTotalsRow, Value: h.first, Count: 1, Fix: true})
		if v.fix != nil {
			v.fix.release(true, h.at, p.Reason)
		}
	}
	if v.fix != nil && v.trailing.Count > 0 {
		v.fix.change(Change{Rule: RuleTrailingColumns, Old: trailingColumns(v.trailing.Found), Reason: causeReason(&v.trailing)})
	}
	for _, p := range []Problem{v.trailing, v.emptyRows, v.groupRows, v.encoding, v.lostText} {
		if p.Count > 0 {
			v.cause(p)
		}
	}
	if v.accounts != nil {
		var warnings []Problem
		warnings, v.rep.WarningCount = v.accounts.warnings(v.rep.maxErrors)
		column := 1
		if v.layout != nil {
			column = v.layout.file[0] + 1
		}
		for _, p := range warnings {
			p.Column, p.ColumnLetter, p.ColumnID, p.ColumnName = column, ColumnLetter(column), Format.Columns[0].ID, Format.Columns[0].Name
			p.Reason = warningReason(&p)
			v.rep.Warnings = append(v.rep.Warnings, p)
		}
	}
	columnCauses, covered := v.groups.columnCauses(v.rep.Rows)
	for _, p := range columnCauses {
		v.cause(p)
	}
	inCause := func(p *Problem) bool { return p.ColumnID != "" && covered[groupKey{p.Column, p.Rule}] }
	listed := 0 // errors listed that are not a cause's
	for i := range v.rep.Errors {
		p := &v.rep.Errors[i]
		if p.InCause = inCause(p); !p.InCause {
			listed++
		}
	}
	for _, p := range v.others {
		if listed < v.rep.maxErrors && !inCause(&p) {
			v.rep.Errors = append(v.rep.Errors, p)
			listed++
		}
	}
	v.others = nil
	for k := range covered {
		v.rep.ErrorsInCauses += v.groups.tallies[k].primary
	}
	v.rep.OmittedErrors = v.rep.ErrorCount - len(v.rep.Errors)
	slices.SortStableFunc(v.rep.Causes, func(a, b Problem) int { return a.Line - b.Line })
	v.rep.Summary = v.groups.summary(covered)
}

// syntax reports a CSV syntax error at the field where it happened, with
// the field as the file has it. encoding/csv goes on with the next line.
func (v *validation) syntax(fields []string, pe *csv.ParseError, at position) {
	v.commit(v.syntaxProblem(fields, pe, at))
}

// syntaxProblem is the error of a record csv could not read, where it
// happened.
func (v *validation) syntaxProblem(fields []string, pe *csv.ParseError, at position) Problem {
	rule, line := RuleQuote, pe.StartLine
	if errors.Is(pe.Err, csv.ErrBareQuote) {
		rule, line = RuleBareQuote, pe.Line
	} else if n := len(fields); n > 0 {
		// The open quote starts right after the last complete field.
		end, _ := v.csv.FieldPos(n - 1)
		line = end + strings.Count(fields[n-1], "\n")
	}
	col := len(fields) + 1
	p := Problem{Line: line + v.lineOffset, Row: at.row, Column: col, ColumnLetter: ColumnLetter(col), Rule: rule,
		Value: shorten(rawField(v.limit.bytes(v.from, v.to), len(fields), byte(v.csv.Comma)))}
	if col <= ColumnCount {
		p.ColumnID, p.ColumnName = Format.Columns[col-1].ID, Format.Columns[col-1].Name
	}
	return p
}

// rawField is field n (from 0) of a record's bytes, up to the separator
// or line end after it: the text of a field encoding/csv could not read.
func rawField(raw []byte, n int, comma byte) string {
	i := 0
	for f := 0; f < n && i < len(raw); f++ {
		if raw[i] == '"' {
			for i++; i < len(raw); i++ {
				if raw[i] == '"' {
					if i+1 < len(raw) && raw[i+1] == '"' {
						i++
						continue
					}
					i++
					break
				}
			}
		}
		for i < len(raw) && raw[i] != comma && raw[i] != '\n' {
			i++
		}
		i++
	}
	if i >= len(raw) {
		return ""
	}
	end := i
	for end < len(raw) && raw[end] != comma && raw[end] != '\n' && raw[end] != '\r' {
		end++
	}
	return string(raw[i:end])
}

func allEmpty(fields []string) bool {
	for _, f := range fields {
		if f != "" {
			return false
		}
	}
	return true
}

// totalsLabels are the first values of the totals rows accounting
// programs write, as headingKey folds them.
var totalsLabels = []string{"total", "totals", "grandtotal", "subtotal", "nettotal", "totalamount", "totaldue", "totaloutstanding"}

// totalsLabel reports whether v labels a totals row ("Grand Total:").
func totalsLabel(v string) bool {
	if len(v) < 5 || len(v) > 20 {
		return false
	}
	switch v[0] | 0x20 {
	case 't', 'g', 's', 'n':
		return slices.Contains(totalsLabels, headingKey(v))
	}
	return false
}

// value is the row's value of a Format column ("" when the row has none).
func (m *columnMap) value(fields []string, format int) string {
	if format < 0 {
		return ""
	}
	if i := m.file[format]; i >= 0 && i < len(fields) {
		return fields[i]
	}
	return ""
}

// anyAmount reports whether the row has an amount.
func (m *columnMap) anyAmount(fields []string) bool {
	for j, c := range Format.Columns {
		if c.Kind == Amount && m.value(fields, j) != "" {
			return true
		}
	}
	return false
}

// columnIndex is each column's place in Format by ID, and countryOf a
// State column's country column (-1 for other columns).
var columnIndex, countryOf = func() (index map[string]int, country [ColumnCount]int) {
	index = map[string]int{}
	for i, c := range Format.Columns {
		index[c.ID] = i
	}
	for i, c := range Format.Columns {
		country[i] = -1
		if c.CountryID != "" {
			country[i] = index[c.CountryID]
		}
	}
	return index, country
}()

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
// buffer) have been read since the current row started. It keeps the
// bytes from there on, so a row csv cannot read can be shown as written.
type rowLimit struct {
	r        io.Reader
	read     int64
	rowStart int64
	kept     []byte // the bytes from keptFrom to read
	keptFrom int64
}

func (l *rowLimit) startRow(offset int64) { l.rowStart = offset }

func (l *rowLimit) Read(p []byte) (int, error) {
	if l.read-l.rowStart > MaxRowBytes+64<<10 {
		return 0, errRowTooLong
	}
	if drop := int(min(l.rowStart-l.keptFrom, int64(len(l.kept)))); drop > 0 {
		l.kept = l.kept[:copy(l.kept, l.kept[drop:])]
		l.keptFrom += int64(drop)
	}
	n, err := l.r.Read(p)
	l.kept = append(l.kept, p[:n]...)
	l.read += int64(n)
	return n, err
}

// bytes returns the kept bytes from one file offset to another.
func (l *rowLimit) bytes(from, to int64) []byte {
	from, to = max(from-l.keptFrom, 0), min(to-l.keptFrom, int64(len(l.kept)))
	if from >= to {
		return nil
	}
	return l.kept[from:to]
}
