package receivables

import (
	"cmp"
	"hash/maphash"
	"slices"
)

// The same account on two rows is no error of the format (SPEC §3 has no
// such rule), but the import would take it twice: the report warns,
// naming both rows, and says when the later row is a copy of the first,
// value for value.
//
// A map of the accounts would cost 25 to 40 bytes a row and a cache miss
// at every row. accountLog keeps 16 bytes a row, the account's hash and
// the row's, appended in order to one of 256 lists by the account's hash,
// and finds the rows that repeat one at the end, a list at a time, in a
// table small enough to stay in the processor's cache.

// maxAccounts is how many rows' accounts are remembered (64 MiB of them,
// over ten times the rows of the site checker's largest file). Rows past
// it are not compared.
const maxAccounts = 1 << 22

// accountChunk is how many rows one chunk of a list holds: lists grow a
// chunk at a time, so no row is ever copied while reading.
const accountChunk = 512

// accountLog remembers each account row's account and contents.
type accountLog struct {
	seed    maphash.Seed
	buckets [256][][]accountRow // by the account hash's top byte, in chunks
	count   int
	// shifts are where the file's lines stop being the rows plus the same
	// number (a value with line breaks, Excel's hidden sep= line), for the
	// warnings' lines.
	shifts []lineShift
}

type accountRow struct {
	account uint64 // the account's hash
	row     uint32
	content uint32 // the row's hash, to tell a copy
}

// lineShift says that from row on, a row's line is row + delta.
type lineShift struct{ row, delta int }

// add remembers a row's account and the hash of its contents.
func (l *accountLog) add(account string, contents uint64, at position) {
	if l.count >= maxAccounts {
		return
	}
	l.count++
	if d := at.line - at.row; len(l.shifts) == 0 && d != 0 || len(l.shifts) > 0 && l.shifts[len(l.shifts)-1].delta != d {
		l.shifts = append(l.shifts, lineShift{at.row, d})
	}
	h := maphash.String(l.seed, account)
	b := &l.buckets[h>>56]
	if n := len(*b); n == 0 || len((*b)[n-1]) == accountChunk {
		*b = append(*b, make([]accountRow, 0, accountChunk))
	}
	last := &(*b)[len(*b)-1]
	*last = append(*last, accountRow{account: h, row: uint32(at.row), content: uint32(contents)})
}

// duplicate is a row whose account a row before it has.
type duplicate struct{ row, first int }

// warnings lists the rows whose account an earlier row has, in row order:
// the first n, and how many there are.
func (l *accountLog) warnings(n int) (listed []Problem, count int) {
	var found []duplicate
	var copies []bool
	var table []uint32 // index+1 of the first row of each account hash
	for i := range l.buckets {
		var rows []accountRow
		for _, chunk := range l.buckets[i] {
			rows = append(rows, chunk...)
		}
		l.buckets[i] = nil
		size := 1
		for size < 2*len(rows) {
			size *= 2
		}
		table = slices.Grow(table[:0], size)[:size]
		clear(table)
		for k, r := range rows {
			for slot := int(r.account) & (size - 1); ; slot = (slot + 1) & (size - 1) {
				if table[slot] == 0 {
					table[slot] = uint32(k + 1)
					break
				}
				if first := rows[table[slot]-1]; first.account == r.account {
					found = append(found, duplicate{int(r.row), int(first.row)})
					copies = append(copies, first.content == r.content)
					break
				}
			}
		}
	}
	order := make([]int, len(found))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(found[a].row, found[b].row) })
	for _, i := range order[:min(n, len(order))] {
		p := Problem{Line: l.line(found[i].row), Row: found[i].row, Rule: RuleDuplicateAccount, SameAs: found[i].first}
		if copies[i] {
			p.Rule = RuleDuplicateRow
		}
		listed = append(listed, p)
	}
	return listed, len(found)
}

// line is the file line of a row.
func (l *accountLog) line(row int) int {
	i, found := slices.BinarySearchFunc(l.shifts, row, func(s lineShift, r int) int { return cmp.Compare(s.row, r) })
	if !found {
		i--
	}
	if i < 0 {
		return row
	}
	return row + l.shifts[i].delta
}
