package receivables

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"
)

// Problem is one thing wrong with a file: a cause (the file as a whole),
// or an error of one row or value.
type Problem struct {
	// Line is the physical line of the file (1 is the first) where the
	// problem starts, counting the lines inside quoted values, for tools;
	// 0 means the whole file. LastLine ends a range of lines.
	Line     int `json:"line"`
	LastLine int `json:"lastLine,omitempty"`
	// Row is the row number Excel shows for Line: smaller than Line when
	// earlier values hold line breaks or Excel hides a "sep=" line.
	Row     int `json:"row,omitempty"`
	LastRow int `json:"lastRow,omitempty"`
	// Column is the file's column (1 is A), ColumnLetter its letter as
	// Excel shows it; 0 and "" mean the whole row or file.
	Column       int    `json:"column,omitempty"`
	ColumnLetter string `json:"columnLetter,omitempty"`
	// ColumnID and ColumnName are the format's column the value was
	// checked as: the file's column unless the heading moved it.
	ColumnID   string `json:"columnId,omitempty"`
	ColumnName string `json:"columnName,omitempty"`
	// Value is the offending value (or heading, or line), cut to 40
	// characters, with bytes that are not UTF-8 shown as U+FFFD.
	Value string `json:"value,omitempty"`
	Rule  Rule   `json:"rule"`
	// Also lists the value's other problems, reported with the first.
	Also []Rule `json:"also,omitempty"`
	// Limit is the rule's number: the most characters, the exact digits,
	// the expected columns, the column a heading belongs in...; Found is
	// what the value or row has, where counted.
	Limit int `json:"limit,omitempty"`
	Found int `json:"found,omitempty"`
	// Count is how many rows or values a cause covers.
	Count int `json:"count,omitempty"`
	// Suggestion is what to type instead of Value, when it can be known.
	Suggestion string `json:"suggestion,omitempty"`
	// Char names the first invisible character of an invisible value
	// ("U+00A0"), CharAt its place among the value's characters (1 is the
	// first) and CharPlace whether that is the "start", the "end" or the
	// "middle" of the value.
	Char      string `json:"char,omitempty"`
	CharAt    int    `json:"charAt,omitempty"`
	CharPlace string `json:"charPlace,omitempty"`
	// Parts are the pieces an unquotedComma or splitAmount value was cut
	// into, one a column; Value is the value whole.
	Parts []string `json:"parts,omitempty"`
	// SameAs is the earlier row a duplicate (a warning) repeats.
	SameAs int `json:"sameAs,omitempty"`
	// Columns are the columns of a cause that runs through whole columns
	// (Column is the first of them).
	Columns []ColumnRef `json:"columns,omitempty"`
	// Fix says that `freightsite csv fix` corrects this for certain: it
	// writes Suggestion in place of the value, or deletes the rows, or
	// reads the file as this cause says and writes it the format's way.
	Fix bool `json:"fix,omitempty"`
	// InCause says the error is one of a cause's cells (a problem running
	// through its column): the text report and the page say it once, in
	// the cause, and list the other errors; JSON keeps every one.
	InCause bool   `json:"inCause,omitempty"`
	Reason  string `json:"reason"`
}

// Group is a line of a report's summary: the problems of one rule in one
// column (or in neighbouring columns of the same kind), counted.
type Group struct {
	Rule    Rule        `json:"rule"`
	Columns []ColumnRef `json:"columns,omitempty"`
	Limit   int         `json:"limit,omitempty"`
	Count   int         `json:"count"`
	// Rows and Lines are where the first few are (Excel rows, file lines).
	Rows  []int  `json:"rows"`
	Lines []int  `json:"lines"`
	Text  string `json:"text"`
}

// ColumnRef names a column of the file: its number, Excel letter and the
// format's column it holds.
type ColumnRef struct {
	Column int    `json:"column"`
	Letter string `json:"letter"`
	ID     string `json:"id"`
	Name   string `json:"name"`
}

// Report is the outcome of checking one file.
type Report struct {
	File string `json:"file"`
	// Valid is true when the file has no cause and no error at all (SPEC
	// §3: any error rejects the whole file).
	Valid bool `json:"valid"`
	// Rows counts the rows read after the heading.
	Rows int `json:"rows"`
	// Causes are what is wrong with the file as a whole, each once, in
	// file order, with what to do: fix them first. The rows' errors that
	// follow from them are not listed.
	Causes []Problem `json:"causes"`
	// ErrorCount counts the rows' and values' other errors; Errors lists
	// the first MaxErrors in file order and then, when some are the cells
	// of a cause (InCause), the next ones that are not, up to MaxErrors of
	// those; OmittedErrors counts the errors not listed.
	ErrorCount    int       `json:"errorCount"`
	Errors        []Problem `json:"errors"`
	OmittedErrors int       `json:"omittedErrors"`
	// ErrorsInCauses counts the errors that are a cause's cells (a
	// problem running through their column, said once as a cause).
	ErrorsInCauses int `json:"errorsInCauses"`
	// Fixable counts the errors `freightsite csv fix` (and the page's
	// corrected copy) corrects for certain, each marked Fix.
	Fixable int `json:"fixable"`
	// Warnings are what does not make the file invalid but may not be
	// meant: the same account on two rows. WarningCount counts them all,
	// Warnings lists the first MaxErrors.
	WarningCount int       `json:"warningCount"`
	Warnings     []Problem `json:"warnings"`
	// Summary groups the errors (and the values a cause spoiled) per
	// column and rule, when there are more than summaryFrom, but for the
	// problems running through columns that causes say.
	Summary []Group `json:"summary,omitempty"`
	// Unusable says why the file could not be read at all (a folder, a
	// missing or unreadable file, a read error, a workbook or other file
	// that is not CSV text); the report is then invalid.
	Unusable   string  `json:"unusable,omitempty"`
	DurationMS float64 `json:"durationMs"`

	maxErrors int
}

// summaryFrom is how many problems a report must have for a summary.
const summaryFrom = 10

// Status is a report's outcome, ordered from best to worst; its value is
// the exit code of `freightsite csv validate`.
type Status int

const (
	StatusValid    Status = 0 // no error
	StatusInvalid  Status = 1 // read whole, with errors
	StatusUnusable Status = 2 // could not be read
)

// Status says whether the file was valid, invalid or unusable.
func (r *Report) Status() Status {
	switch {
	case r.Unusable != "":
		return StatusUnusable
	case !r.Valid:
		return StatusInvalid
	}
	return StatusValid
}

// ValidateFile validates the file at path. A folder, a missing or
// unreadable file or a read error gives an unusable report.
func ValidateFile(path string, opts Options) *Report {
	unusable := func(err error) *Report {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &Report{File: path, Causes: []Problem{}, Errors: []Problem{}, Warnings: []Problem{}, Unusable: err.Error()}
	}
	f, err := os.Open(path)
	if err != nil {
		return unusable(err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return unusable(err)
	} else if st.IsDir() {
		return unusable(errors.New("is a folder, not a file"))
	}
	rep, err := Validate(f, opts)
	if err != nil {
		return unusable(fmt.Errorf("reading failed: %w", err))
	}
	rep.File = path
	return rep
}

// WriteText prints reports for people: for each file its causes ("fix
// first"), then each error as file:line:column with the Excel row and
// column, the summary when there are many, and a last line; a total line
// when there are several files.
func WriteText(w io.Writer, reports []*Report) {
	var total float64
	invalid := 0
	for _, r := range reports {
		total += r.DurationMS
		if r.Status() != StatusValid {
			invalid++
		}
		if r.Unusable != "" && len(r.Causes) == 0 {
			fmt.Fprintf(w, "%s: UNUSABLE, cannot be read: %s\n", r.File, r.Unusable)
			continue
		}
		for _, p := range r.Causes {
			fmt.Fprintf(w, "%s: fix first: %s\n", where(r.File, p), p.Reason)
		}
		listed := 0
		for _, p := range r.Errors {
			if !p.InCause {
				fmt.Fprintf(w, "%s: %s\n", where(r.File, p), describe(p))
				listed++
			}
		}
		if n := r.ErrorCount - r.ErrorsInCauses - listed; n > 0 {
			fmt.Fprintf(w, "%s: %s more %s not listed (see --max-errors)\n", r.File, count(n), plural(n, "error", "errors"))
		}
		for _, p := range r.Warnings {
			fmt.Fprintf(w, "%s: warning: %s\n", where(r.File, p), describe(p))
		}
		if n := r.WarningCount - len(r.Warnings); n > 0 {
			fmt.Fprintf(w, "%s: %s more %s not listed\n", r.File, count(n), plural(n, "warning", "warnings"))
		}
		if len(r.Summary) > 0 {
			fmt.Fprintf(w, "%s: summary:\n", r.File)
			for _, g := range r.Summary {
				fmt.Fprintf(w, "%s:   %s\n", r.File, g.Text)
			}
		}
		fmt.Fprintf(w, "%s: %s\n", r.File, summary(r))
	}
	if len(reports) > 1 {
		fmt.Fprintf(w, "%d files, %d valid, %d not valid. Total in %s\n", len(reports), len(reports)-invalid, invalid, duration(total))
	}
}

func where(file string, p Problem) string {
	switch {
	case p.Line == 0:
		return file
	case p.Column == 0 || p.ColumnID == "":
		return fmt.Sprintf("%s:%d", file, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", file, p.Line, p.Column)
}

// describe is an error as Excel points to it: "row 6, S6 (Days 1-15):
// ...", the row as Excel numbers it and the cell as Go To (Ctrl+G) takes
// it.
func describe(p Problem) string {
	s := fmt.Sprintf("row %d", p.Row)
	if p.ColumnLetter != "" {
		s += fmt.Sprintf(", %s%d", p.ColumnLetter, p.Row)
		if p.ColumnName != "" {
			s += " (" + p.ColumnName + ")"
		}
	}
	s += ": " + p.Reason
	if p.Value != "" {
		s += " (value " + strconv.Quote(p.Value) + ")"
	}
	return s
}

func summary(r *Report) string {
	took := "(" + duration(r.DurationMS) + ")"
	switch {
	case r.Status() == StatusUnusable:
		return "UNUSABLE, cannot be read as CSV " + took
	case !r.Valid:
		var parts []string
		if n := len(r.Causes); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s to fix first", n, plural(n, "cause", "causes")))
		}
		if r.ErrorCount > 0 || len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("%s %s", count(r.ErrorCount), plural(r.ErrorCount, "error", "errors")))
		}
		what := parts[0]
		if len(parts) == 2 {
			what += " and " + parts[1]
		}
		return fmt.Sprintf("INVALID, %s %s checked, %s%s %s", count(r.Rows), plural(r.Rows, "row", "rows"), what, warnings(r), took)
	case r.Rows == 0:
		return "valid, but it has no data rows, only the heading " + took
	}
	return fmt.Sprintf("valid, %s %s checked, no errors%s %s", count(r.Rows), plural(r.Rows, "row", "rows"), warnings(r), took)
}

// warnings is ", 2 warnings" for a report with warnings.
func warnings(r *Report) string {
	if r.WarningCount == 0 {
		return ""
	}
	return fmt.Sprintf(", %s %s", count(r.WarningCount), plural(r.WarningCount, "warning", "warnings"))
}

func duration(ms float64) string {
	return time.Duration(ms * float64(time.Millisecond)).Round(time.Microsecond).String()
}

// count writes n with thousands separators: 1,000,000.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func plural(n int, one, other string) string {
	if n == 1 {
		return one
	}
	return other
}

// Output is the JSON that `freightsite csv validate --format json` prints.
type Output struct {
	Valid bool      `json:"valid"` // every file is valid
	Files []*Report `json:"files"`
}

// WriteJSON prints reports for machines, as one Output document.
func WriteJSON(w io.Writer, reports []*Report) error {
	out := Output{Valid: true, Files: reports}
	for _, r := range reports {
		out.Valid = out.Valid && r.Status() == StatusValid
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
