package receivables

import (
	"strings"
)

// A row with more values than the format's columns is most often one
// value cut at its commas: a company or address typed with a comma and
// not put in quotes (Shree Ganesh Roadlines, Pune), or an amount written
// with grouping commas in a file saved without quotes (1,23,456.00 read as
// 1 / 23 / 456.00). resplit finds the reading of the row that puts every
// value in its place.

// Bounds of the search: more extra values than maxExtra, or a value cut
// into more than maxPieces, is not a comma in a value.
const (
	maxExtra  = 12
	maxPieces = 6
)

// Costs of a reading: each value its column refuses costs wrongValue; a
// value made of pieces costs a join, more when a piece goes on without a
// space after the comma (", " is how people write a comma in a name, so a
// reading that joins "Roadlines" and " Pune" beats one that joins two
// values that stand well alone). An empty piece is never half a value.
const (
	wrongValue = 100
	join       = 2
	joinBare   = 3
	// wrongValues is how many values a reading may still have wrong and be
	// taken: the row's own other errors.
	wrongValues = 2
)

// rowSplit is a reading of a row of too many values: one value per
// format column, some joined from several of the row's.
type rowSplit struct {
	values [ColumnCount]string
	first  [ColumnCount]int // the row's index of each column's first piece
	pieces [ColumnCount]int // how many of the row's values it took
	// ambiguous lists, when several readings are as good, the format
	// columns one of which holds the comma; values is then not set.
	ambiguous []int
}

// resplit reads a row of more than ColumnCount values as ColumnCount, or
// returns nil when no reading puts (nearly) every value in its place.
func resplit(fields []string) *rowSplit {
	n := len(fields)
	extra := n - ColumnCount
	if extra < 1 || extra > maxExtra {
		return nil
	}
	// cost[j][e]: the best reading of format columns before j from the
	// row's values before j+e; ways counts such readings (up to 2).
	const unreached = 1 << 30
	var cost, back [ColumnCount + 1][maxExtra + 1]int
	var ways [ColumnCount + 1][maxExtra + 1]uint8
	for j := range cost {
		for e := range cost[j] {
			cost[j][e] = unreached
		}
	}
	cost[0][0], ways[0][0] = 0, 1
	step := func(j, e, pieces int) int {
		return Format.Columns[j].readingCost(fields[j+e : j+e+pieces])
	}
	for j := range ColumnCount {
		for e := 0; e <= extra; e++ {
			if cost[j][e] == unreached {
				continue
			}
			for p := 1; p <= maxPieces && e+p-1 <= extra; p++ {
				c := cost[j][e] + step(j, e, p)
				next := &cost[j+1][e+p-1]
				switch {
				case c < *next:
					*next, back[j+1][e+p-1], ways[j+1][e+p-1] = c, p, ways[j][e]
				case c == *next:
					ways[j+1][e+p-1] = min(2, ways[j+1][e+p-1]+ways[j][e])
				}
			}
		}
	}
	// A reading is taken when it leaves no value wrong, or a few but fewer
	// than reading the row as written with values too many at its end.
	best := cost[ColumnCount][extra]
	wrong, asWritten := best/wrongValue, 0
	for j := range Format.Columns {
		if Format.Columns[j].readingCost(fields[j:j+1]) != 0 {
			asWritten++
		}
	}
	if wrong > wrongValues || wrong > 0 && wrong >= asWritten {
		return nil
	}
	s := &rowSplit{}
	if ways[ColumnCount][extra] > 1 {
		s.ambiguous = joinsOnBestReadings(fields, &cost, best, step)
		return s
	}
	for j, e := ColumnCount, extra; j > 0; j-- {
		p := back[j][e]
		e -= p - 1
		i := j - 1 + e
		s.first[j-1], s.pieces[j-1] = i, p
		s.values[j-1] = strings.Join(fields[i:i+p], ",")
	}
	return s
}

// joinsOnBestReadings lists the format columns that join values on some
// best reading: the best cost up to a column, plus the join, plus the best
// cost after it (found backwards), is the best of all.
func joinsOnBestReadings(fields []string, cost *[ColumnCount + 1][maxExtra + 1]int, best int, step func(j, e, pieces int) int) []int {
	extra := len(fields) - ColumnCount
	var after [ColumnCount + 1][maxExtra + 1]int
	for j := range after {
		for e := range after[j] {
			after[j][e] = 1 << 30
		}
	}
	after[ColumnCount][extra] = 0
	for j := ColumnCount - 1; j >= 0; j-- {
		for e := 0; e <= extra; e++ {
			for p := 1; p <= maxPieces && e+p-1 <= extra; p++ {
				after[j][e] = min(after[j][e], step(j, e, p)+after[j+1][e+p-1])
			}
		}
	}
	var cols []int
	for j := range ColumnCount {
		for e := 0; e <= extra && (len(cols) == 0 || cols[len(cols)-1] != j); e++ {
			for p := 2; p <= maxPieces && e+p-1 <= extra; p++ {
				if cost[j][e]+step(j, e, p)+after[j+1][e+p-1] == best {
					cols = append(cols, j)
					break
				}
			}
		}
	}
	return cols
}

// readingCost is what it costs to read pieces (one or more of a row's
// values) as one value of the column.
func (c *Column) readingCost(pieces []string) int {
	if len(pieces) == 1 {
		if bad, ok := c.check(pieces[0]); ok && bad.rule != RuleStateCode {
			return wrongValue
		}
		return 0
	}
	cost := join
	for _, p := range pieces {
		if p == "" {
			return wrongValue * len(pieces)
		}
	}
	for _, p := range pieces[1:] {
		if p[0] != ' ' {
			cost += joinBare - join
		}
	}
	v := strings.Join(pieces, ",")
	switch c.Kind {
	case Text:
		if _, bad := c.check(v); !bad {
			return cost
		}
	case Amount:
		if splitAmount(v) != "" {
			return join
		}
	}
	return wrongValue * len(pieces)
}

// splitAmount is what to type for an amount that commas not in quotes
// cut, "" when the pieces are not one amount written with grouping
// commas.
func splitAmount(v string) string {
	var d diagnosis
	s := diagnoseAmount(&d, v)
	grouping := false
	for _, r := range d.rules {
		switch r {
		case RuleThousands:
			grouping = true
		case RuleDecimalComma, RuleCurrency, RuleCredit, RuleDrCr:
		default:
			return ""
		}
	}
	if !grouping {
		return "" // 12000,0 is more likely two amounts than a decimal comma
	}
	return s
}

// csvQuoted is a value as CSV writes it in quotes.
func csvQuoted(v string) string { return `"` + strings.ReplaceAll(v, `"`, `""`) + `"` }
