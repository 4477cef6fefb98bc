package receivables

import (
	"slices"
	"strings"
	"unicode"
)

// ColumnLetter is the letter Excel shows above column n (1 is A, 26 is Z,
// 27 is AA).
func ColumnLetter(n int) string {
	var b []byte
	for ; n > 0; n = (n - 1) / 26 {
		b = append(b, byte('A'+(n-1)%26))
	}
	slices.Reverse(b)
	return string(b)
}

// headingKey folds a heading for comparison: lower-case letters and digits
// only, so "Days 1-15", "days 1 - 15" and "\ufeffDAYS 1-15" are the same.
func headingKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// columnByHeading maps each column's name and aliases, folded, to its
// index in Format.
var columnByHeading = func() map[string]int {
	m := map[string]int{}
	for i, c := range Format.Columns {
		for _, name := range append([]string{c.Name}, c.Aliases...) {
			m[headingKey(name)] = i
		}
	}
	return m
}()

// headingColumn returns the Format column a heading names, or -1.
func headingColumn(heading string) int {
	if i, ok := columnByHeading[headingKey(heading)]; ok {
		return i
	}
	return -1
}

// lineKind is what one of the first lines of a file is.
type lineKind int

const (
	otherLine   lineKind = iota // a report title, a date range, an empty row
	headingLine                 // names the columns
	dataLine                    // an account
)

// classify tells a heading from an account and from the lines Tally and
// ERP exports put above the heading. A heading names at least 3 known
// columns or fills at least 10 cells; an account has at least 4 amounts
// (as written, thousands separators and all) where the format has them.
func classify(fields []string) lineKind {
	known, filled := 0, 0
	for _, f := range fields {
		if f != "" {
			filled++
		}
		if headingColumn(f) >= 0 {
			known++
		}
	}
	switch {
	case known >= 3:
		return headingLine
	case looksLikeAccount(fields):
		return dataLine
	case filled >= 10:
		return headingLine
	}
	return otherLine
}

func looksLikeAccount(fields []string) bool {
	if len(fields) < ColumnCount-5 {
		return false
	}
	amounts := 0
	for i := ColumnCount - 7; i < min(len(fields), ColumnCount); i++ {
		if amountLike(fields[i]) {
			amounts++
		}
	}
	return amounts >= 4 && fields[0] != ""
}

// amountLike reports whether v is an amount, or one written the ways
// diagnoseAmount can correct.
func amountLike(v string) bool {
	if v == "" {
		return false
	}
	if _, bad := checkAmount(v); !bad {
		return true
	}
	var d diagnosis
	return diagnoseAmount(&d, strings.TrimSpace(v)) != ""
}

// columnMap says which Format column each column of a row holds.
type columnMap struct {
	// format is, per column of the row, its Format column (-1: not
	// checked, a column the format has not).
	format []int
	// file is, per Format column, the row's column holding it (-1: none).
	file [ColumnCount]int
}

var identity = func() (m columnMap) {
	m.format = make([]int, ColumnCount)
	for i := range m.format {
		m.format[i], m.file[i] = i, i
	}
	return m
}()

func newColumnMap(format []int) *columnMap {
	m := &columnMap{format: format}
	for i := range m.file {
		m.file[i] = -1
	}
	for i, j := range format {
		if j >= 0 {
			m.file[j] = i
		}
	}
	return m
}

// headingFinding is a problem of the heading: a column in another place,
// missing, or one the format has not.
type headingFinding struct {
	rule Rule
	// column is the file's column (columnOrder, extraColumn) or where the
	// missing column belongs (missingColumn), from 1.
	column int
	// format is the Format column named (columnOrder) or missing; -1 for
	// extraColumn.
	format int
	value  string // the heading's text
}

// readHeading compares a heading with Format's column names. It returns
// what is wrong and how to read rows as wide as the heading: nil when the
// heading is the format's (in any wording that keeps the places), or
// unknown (it names fewer than half of the columns, so rows are read by
// place and their own errors tell).
func readHeading(fields []string) (findings []headingFinding, layout *columnMap) {
	named := make([]int, len(fields))
	at := [ColumnCount]int{}
	for j := range at {
		at[j] = -1
	}
	known := 0
	for i, f := range fields {
		named[i] = headingColumn(f)
		if j := named[i]; j >= 0 {
			if at[j] >= 0 {
				named[i] = -1 // named twice: the second is a column too many
				continue
			}
			at[j] = i
			known++
		}
	}
	// A column is in its place when the heading names it there, or names
	// nothing there in words we know (and does not name it elsewhere).
	inPlace := len(fields) == ColumnCount
	for i := 0; inPlace && i < ColumnCount; i++ {
		inPlace = named[i] == i || (named[i] < 0 && at[i] < 0)
	}
	if inPlace || known == 0 {
		return nil, nil
	}
	// The same columns in another order: each one out of place is a
	// finding, and rows are read the heading's way.
	sameColumns := len(fields) == ColumnCount
	for j := 0; sameColumns && j < ColumnCount; j++ {
		sameColumns = at[j] >= 0 || named[j] < 0
	}
	if sameColumns {
		format := make([]int, ColumnCount)
		for i, j := range named {
			format[i] = i
			if j >= 0 && j != i {
				format[i] = j
				findings = append(findings, headingFinding{rule: RuleColumnOrder, column: i + 1, format: j, value: fields[i]})
			}
		}
		return findings, newColumnMap(format)
	}
	if known < ColumnCount/2+1 {
		return nil, nil
	}
	// Columns missing or added: name them; then the known columns left
	// out of order (compared with the order they would have, in place).
	for j := range at {
		if at[j] < 0 {
			findings = append(findings, headingFinding{rule: RuleMissingColumn, column: j + 1, format: j})
		}
	}
	var order []int
	for i, j := range named {
		if j < 0 {
			findings = append(findings, headingFinding{rule: RuleExtraColumn, column: i + 1, format: -1, value: fields[i]})
			continue
		}
		order = append(order, j)
	}
	sorted := slices.Sorted(slices.Values(order))
	k := 0
	for i, j := range named {
		if j < 0 {
			continue
		}
		if sorted[k] != j {
			findings = append(findings, headingFinding{rule: RuleColumnOrder, column: i + 1, format: j, value: fields[i]})
		}
		k++
	}
	slices.SortStableFunc(findings, func(a, b headingFinding) int { return a.column - b.column })
	return findings, newColumnMap(named)
}
