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
	// primary counts the errors whose first rule this is.
	primary int
	places  []place
	first   Problem // the first problem counted
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

func (g *grouper) add(column, format int, rule Rule, p *Problem) *tally {
	if g.tallies == nil {
		g.tallies = map[groupKey]*tally{}
	}
	k := groupKey{column, rule}
	t := g.last
	if t == nil || g.lastKey != k {
		if t = g.tallies[k]; t == nil {
			t = &tally{format: format, limit: p.Limit, first: *p}
			g.tallies[k] = t
		}
		g.last, g.lastKey = t, k
	}
	t.count++
	g.total++
	if len(t.places) < firstPlaces {
		t.places = append(t.places, place{p.Row, p.Line})
	}
	return t
}

// Column causes: one problem that runs through a column is said once,
// first, with how to fix the column in Excel, and its cells are left out
// of the list of the other errors (JSON keeps them, marked InCause).

// runsThrough reports whether count cells of a column, of rows checked,
// are one problem running through it: at least 3, and half the rows or a
// whole report's list of errors.
func runsThrough(count, rows int) bool {
	return count >= 3 && (2*count >= rows || count >= DefaultMaxErrors)
}

// accountingRules are what Excel's Accounting format does to amounts:
// spaces around them, grouping, a ₹ sign, credits in brackets and zero as
// "-".
var accountingRules = []Rule{RuleSpaces, RuleThousands, RuleCurrency, RuleCredit, RuleZero}

// columnRule says whether a rule can run through a column as a cause:
// value rules can, but not those a cause of the file says already, nor a
// row's values cut at commas.
func columnRule(r Rule) bool {
	switch r {
	case RuleEncoding, RuleLostText, RuleUnquotedComma, RuleSplitAmount:
		return false
	}
	return true
}

// columnCauses finds the problems that run through columns, of rows
// checked: a column of amounts in Excel's Accounting format (spaces
// around most values, and grouping, signs, brackets or "-" in some) is
// one cause for all of them; any other rule one cause for the columns it
// runs through. covered says which column's rule the causes say.
func (g *grouper) columnCauses(rows int) (causes []Problem, covered map[groupKey]bool) {
	covered = map[groupKey]bool{}
	accounting := map[int]bool{}
	for k, t := range g.tallies {
		if k.rule == RuleSpaces && k.column > 0 && Format.Columns[t.format].Kind == Amount && runsThrough(t.count, rows) {
			for _, r := range accountingRules[1:] {
				if g.tallies[groupKey{k.column, r}] != nil {
					accounting[k.column] = true
				}
			}
		}
	}
	byRule := map[Rule][]groupKey{}
	for k, t := range g.tallies {
		switch {
		case k.column == 0 || !columnRule(k.rule):
		case accounting[k.column] && slices.Contains(accountingRules, k.rule):
			covered[k] = true
			byRule[RuleAccounting] = append(byRule[RuleAccounting], k)
		case runsThrough(t.count, rows):
			covered[k] = true
			byRule[k.rule] = append(byRule[k.rule], k)
		}
	}
	for rule, keys := range byRule {
		slices.SortFunc(keys, func(a, b groupKey) int { return cmp.Or(cmp.Compare(a.column, b.column), cmp.Compare(a.rule, b.rule)) })
		first := g.tallies[keys[0]]
		p := first.first
		p.Rule, p.Also, p.Count, p.Fix, p.InCause = rule, nil, 0, true, false
		for _, k := range keys {
			t := g.tallies[k]
			if len(p.Columns) == 0 || p.Columns[len(p.Columns)-1].Column != k.column {
				c := Format.Columns[t.format]
				p.Columns = append(p.Columns, ColumnRef{Column: k.column, Letter: ColumnLetter(k.column), ID: c.ID, Name: c.Name})
			}
			if rule == RuleAccounting {
				// Each cell counted once, by its first rule.
				p.Count += t.primary
				if k.rule != RuleSpaces && !slices.Contains(p.Also, k.rule) {
					p.Also = append(p.Also, k.rule)
				}
			} else {
				p.Count += t.count
			}
			p.Fix = p.Fix && certain(k.rule)
			if t.places[0].line < p.Line {
				p.Line, p.Row, p.Value, p.Suggestion = t.places[0].line, t.places[0].row, t.first.Value, t.first.Suggestion
			}
		}
		slices.Sort(p.Also)
		causes = append(causes, p)
	}
	slices.SortFunc(causes, func(a, b Problem) int { return cmp.Compare(a.Line, b.Line) })
	return causes, covered
}

// summary is the groups in column order, neighbouring columns of the same
// kind with the same rule merged into one ("Days 1-15 … Over 91 Days"),
// or nil when there are summaryFrom problems or fewer. What column causes
// say (covered) is left out.
func (g *grouper) summary(covered map[groupKey]bool) []Group {
	keys := make([]groupKey, 0, len(g.tallies))
	total := 0
	for k, t := range g.tallies {
		if !covered[k] {
			keys = append(keys, k)
			total += t.count
		}
	}
	if total <= summaryFrom {
		return nil
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
