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
		return &Report{File: path, Errors: []Problem{}, Unusable: err.Error()}
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

// WriteText prints reports for people: each problem as file:line:column,
// then a summary line per file, and a total line when there are several.
func WriteText(w io.Writer, reports []*Report) {
	var total float64
	invalid := 0
	for _, r := range reports {
		total += r.DurationMS
		if r.Status() != StatusValid {
			invalid++
		}
		if r.Unusable != "" {
			fmt.Fprintf(w, "%s: UNUSABLE, cannot be read: %s\n", r.File, r.Unusable)
			continue
		}
		for _, p := range r.Warnings {
			fmt.Fprintf(w, "%s: warning: %s\n", where(r.File, p), p.Reason)
		}
		for _, p := range r.Errors {
			fmt.Fprintf(w, "%s: %s\n", where(r.File, p), describe(p))
		}
		if r.OmittedErrors > 0 {
			fmt.Fprintf(w, "%s: %s more %s not listed (see --max-errors)\n", r.File, count(r.OmittedErrors), plural(r.OmittedErrors, "error", "errors"))
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
	case p.Column == 0:
		return fmt.Sprintf("%s:%d", file, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", file, p.Line, p.Column)
}

func describe(p Problem) string {
	s := p.Reason
	if p.ColumnName != "" {
		s = p.ColumnName + ": " + s
	}
	if p.Value != "" {
		s += " (value " + strconv.Quote(p.Value) + ")"
	}
	return s
}

func summary(r *Report) string {
	took := "(" + duration(r.DurationMS) + ")"
	switch {
	case !r.Valid:
		return fmt.Sprintf("INVALID, %s %s checked, %s %s %s", count(r.Rows), plural(r.Rows, "row", "rows"), count(r.ErrorCount), plural(r.ErrorCount, "error", "errors"), took)
	case r.Rows == 0:
		return "valid, but it has no data rows, only the heading " + took
	}
	return fmt.Sprintf("valid, %s %s checked, no errors %s", count(r.Rows), plural(r.Rows, "row", "rows"), took)
}

func duration(ms float64) string {
	return time.Duration(ms * float64(time.Millisecond)).Round(time.Microsecond).String()
}

// count writes n with thousands separators: 1,000,000.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
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
