package receivables

import (
	"cmp"
	"slices"
)

// firstPlaces is how many rows a summary group names.
const firstPlaces = 3

// groupKey is a summary group before neighbouring columns are merged: a
// rule in one column of the file (0 for a row's rule).
type groupKey struct {
	column int
	rule   Rule
}

type tally struct {
	format int // the Format column checked; -1 for a row's rule
	limit  int
	count  int
	places []place
}

// place is where a problem is: its Excel row and file line.
type place struct{ row, line int }

// grouper counts problems per column and rule for the summary.
type grouper struct {
	tallies map[groupKey]*tally
	total   int
	// last is the tally of the previous problem: the next one is mostly
	// in the same group (a column wrong all the way down), and finding it
	// here spares hashing the rule's name.
	last    *tally
	lastKey groupKey
}

func (g *grouper) add(column, format int, rule Rule, limit int, at place) {
	if g.tallies == nil {
		g.tallies = map[groupKey]*tally{}
	}
	k := groupKey{column, rule}
	t := g.last
	if t == nil || g.lastKey != k {
		if t = g.tallies[k]; t == nil {
			t = &tally{format: format, limit: limit}
			g.tallies[k] = t
		}
		g.last, g.lastKey = t, k
	}
	t.count++
	g.total++
	if len(t.places) < firstPlaces {
		t.places = append(t.places, at)
	}
}

// summary is the groups in column order, neighbouring columns of the same
// kind with the same rule merged into one ("Days 1-15 … Over 91 Days"),
// or nil when there are summaryFrom problems or fewer.
func (g *grouper) summary() []Group {
	if g.total <= summaryFrom {
		return nil
	}
	keys := make([]groupKey, 0, len(g.tallies))
	for k := range g.tallies {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b groupKey) int {
		return cmp.Or(cmp.Compare(a.rule, b.rule), cmp.Compare(a.column, b.column))
	})
	var groups []Group
	var places [][]place
	var kinds []Kind // the kind of each group's last column
	for _, k := range keys {
		t := g.tallies[k]
		ref := func() []ColumnRef {
			if k.column == 0 {
				return nil
			}
			c := Format.Columns[t.format]
			return []ColumnRef{{Column: k.column, Letter: ColumnLetter(k.column), ID: c.ID, Name: c.Name}}
		}
		if n := len(groups); n > 0 && k.column > 0 {
			last := &groups[n-1]
			if cols := last.Columns; last.Rule == k.rule && last.Limit == t.limit && len(cols) > 0 &&
				cols[len(cols)-1].Column == k.column-1 && Format.Columns[t.format].Kind == kinds[n-1] {
				last.Columns = append(last.Columns, ref()...)
				last.Count += t.count
				places[n-1] = append(places[n-1], t.places...)
				continue
			}
		}
		groups = append(groups, Group{Rule: k.rule, Columns: ref(), Limit: t.limit, Count: t.count})
		places = append(places, slices.Clone(t.places))
		kinds = append(kinds, Text)
		if t.format >= 0 {
			kinds[len(kinds)-1] = Format.Columns[t.format].Kind
		}
	}
	for i := range groups {
		p := places[i]
		slices.SortFunc(p, func(a, b place) int { return cmp.Compare(a.line, b.line) })
		p = slices.Compact(p)
		groups[i].Rows, groups[i].Lines = []int{}, []int{}
		for _, at := range p[:min(len(p), firstPlaces)] {
			groups[i].Rows = append(groups[i].Rows, at.row)
			groups[i].Lines = append(groups[i].Lines, at.line)
		}
		groups[i].Text = describeGroup(&groups[i])
	}
	slices.SortStableFunc(groups, func(a, b Group) int { return cmp.Compare(firstColumn(a), firstColumn(b)) })
	return groups
}

func firstColumn(g Group) int {
	if len(g.Columns) == 0 {
		return 0
	}
	return g.Columns[0].Column
}
