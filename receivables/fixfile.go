package receivables

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FixedFile is what FixFile did with one file.
type FixedFile struct {
	File string `json:"file"`
	// Out is the corrected copy and ChangesFile the list of its changes
	// beside it; neither is written when no copy could be made.
	Out         string `json:"out,omitempty"`
	ChangesFile string `json:"changesFile,omitempty"`
	Changes     int    `json:"changes"`
	// Read is the report of the file read: why it is unusable, or where
	// reading stopped, when there is no copy.
	Read *Report `json:"read"`
	// Left is the copy's own report: what is left to correct by hand (nil
	// when there is no copy), without the warnings of csv validate.
	Left *Report `json:"left,omitempty"`
}

// Status is the copy's status, as csv validate's exit code: valid,
// invalid (left to correct, or no copy of a file that could not be read
// to its end) or unusable.
func (f *FixedFile) Status() Status {
	if f.Left == nil {
		return max(f.Read.Status(), StatusInvalid)
	}
	return f.Left.Status()
}

// ChangesPath is where FixFile lists the changes of a copy written to out:
// march-fixed.csv's in march-fixed.changes.csv.
func ChangesPath(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".changes.csv"
}

// FixFile writes a corrected copy of the file at path to out and the list
// of its changes beside it (ChangesPath), each first under a temporary
// name and renamed when complete, so a copy is never left half written;
// then it validates the copy.
func FixFile(path, out string) *FixedFile {
	f := &FixedFile{File: path}
	unusable := func(err error) *FixedFile {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		f.Read = &Report{File: path, Causes: []Problem{}, Errors: []Problem{}, Warnings: []Problem{}, Unusable: err.Error()}
		return f
	}
	in, err := os.Open(path)
	if err != nil {
		return unusable(err)
	}
	defer in.Close()
	if st, err := in.Stat(); err != nil {
		return unusable(err)
	} else if st.IsDir() {
		return unusable(errors.New("is a folder, not a file"))
	} else if o, err := os.Stat(out); err == nil && os.SameFile(st, o) {
		return unusable(errors.New("--out names the file itself: write the copy to another file"))
	}
	copyFile, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return unusable(err)
	}
	defer os.Remove(copyFile.Name())
	defer copyFile.Close()
	changesFile, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(ChangesPath(out))+".*")
	if err != nil {
		return unusable(err)
	}
	defer os.Remove(changesFile.Name())
	defer changesFile.Close()

	list := NewChangeWriter(changesFile)
	res, err := Fix(in, copyFile, list.Write)
	res.Report.File = path
	f.Read, f.Changes = res.Report, res.Changes
	if err != nil {
		return unusable(fmt.Errorf("reading failed: %w", err))
	}
	if !res.Complete {
		return f
	}
	if err := list.Flush(); err != nil {
		return unusable(err)
	}
	for _, file := range []*os.File{copyFile, changesFile} {
		if err := file.Close(); err != nil {
			return unusable(err)
		}
	}
	if err := os.Rename(copyFile.Name(), out); err != nil {
		return unusable(err)
	}
	if err := os.Rename(changesFile.Name(), ChangesPath(out)); err != nil {
		return unusable(err)
	}
	f.Out, f.ChangesFile = out, ChangesPath(out)
	// The copy's errors, without the duplicate check, whose memory grows
	// with the rows: csv fix stays in constant memory (csv validate warns).
	f.Left = ValidateFile(out, Options{MaxErrors: DefaultMaxErrors, noDuplicates: true})
	return f
}

// ChangeWriter lists changes as a CSV file for Excel (UTF-8 with a byte
// order mark, CRLF): row, cell, column, old value, new value, reason.
type ChangeWriter struct {
	w   *csv.Writer
	err error
}

// NewChangeWriter starts a list of changes with its heading.
func NewChangeWriter(w io.Writer) *ChangeWriter {
	c := &ChangeWriter{w: csv.NewWriter(w)}
	c.w.UseCRLF = true
	_, c.err = io.WriteString(w, "\ufeff")
	c.w.Write([]string{"Row", "Cell", "Column", "Old value", "New value", "Why"})
	return c
}

// Write lists one change.
func (c *ChangeWriter) Write(ch Change) {
	row, cell := "", ""
	if ch.Row > 0 {
		row = strconv.Itoa(ch.Row)
	}
	if ch.ColumnLetter != "" && ch.Row > 0 {
		cell = fmt.Sprintf("%s%d", ch.ColumnLetter, ch.Row)
	}
	if err := c.w.Write([]string{row, cell, ch.ColumnName, cellText(ch.Old), cellText(ch.New), ch.Reason}); err != nil && c.err == nil {
		c.err = err
	}
}

// Flush writes what is buffered and says whether all went well.
func (c *ChangeWriter) Flush() error {
	c.w.Flush()
	if c.err != nil {
		return c.err
	}
	return c.w.Error()
}

// cellText keeps Excel from reading a value that starts like a formula
// (=, +, @, or - before other than a digit) as one.
func cellText(v string) string {
	if v != "" && (strings.ContainsRune("=+@\t\r", rune(v[0])) || len(v) > 1 && v[0] == '-' && !isDigit(v[1]) && v[1] != '.') {
		return "'" + v
	}
	return v
}

// WriteFixText prints what FixFile did for people: the changes made and
// where they are listed, then the copy's report (what is left), or why no
// copy was written.
func WriteFixText(w io.Writer, f *FixedFile) {
	if f.Left == nil {
		WriteText(w, []*Report{f.Read})
		fmt.Fprintf(w, "%s: no corrected copy written\n", f.File)
		return
	}
	switch f.Changes {
	case 0:
		fmt.Fprintf(w, "%s: nothing to correct for certain; %s is the same file\n", f.File, f.Out)
	default:
		fmt.Fprintf(w, "%s: %s %s, written to %s; each listed in %s\n", f.File, count(f.Changes), plural(f.Changes, "change", "changes"), f.Out, f.ChangesFile)
	}
	WriteText(w, []*Report{f.Left})
}

// WriteFixJSON prints what FixFile did for machines.
func WriteFixJSON(w io.Writer, f *FixedFile) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}
