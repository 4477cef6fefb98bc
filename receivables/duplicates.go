package receivables

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"
)

// The same account on two rows is no error of the format (SPEC §3 has no
// such rule), but the import would take it twice: the report warns,
// naming both rows, and says when the later row is a copy of an earlier
// one, value for value.
//
// A map of the accounts would cost 25 to 40 bytes a row. accountLog costs
// about 18: each row's account and contents as hashes (16 bytes) in lists
// sorted only at the end, and a Bloom filter (10 to 20 bits a row) that
// notes, as the rows come, the few whose account may have come before,
// keeping their account to name it.

// maxAccounts is how many rows' accounts are remembered (64 MiB of them,
// over ten times the rows of the site checker's largest file). Rows past
// it are not compared.
const maxAccounts = 1 << 22

// accountChunk is how many rows one chunk of a list holds: lists grow a
// chunk at a time, so no row is ever copied while reading.
const accountChunk = 512

// accountLog remembers each account row's account.
type accountLog struct {
	seed    maphash.Seed
	buckets [256][][]accountRow // by the account hash's top byte, in chunks
	count   int
	bloom   []uint64
	// maybe are the rows whose account the filter had seen (true
	// duplicates and a percent or two of others), in row order.
	maybe []maybeDuplicate
}

type accountRow struct {
	account uint64 // the account's hash
	row     uint32
	content uint32 // the row's hash, to tell a copy
}

type maybeDuplicate struct {
	row, line int
	account   string
}

// add remembers a row's account and its contents.
func (l *accountLog) add(account string, contents []byte, at position) {
	if l.count >= maxAccounts {
		return
	}
	if l.count == 0 {
		l.seed, l.bloom = maphash.MakeSeed(), make([]uint64, 1<<10)
	}
	h := maphash.String(l.seed, account)
	if l.seen(h) {
		l.maybe = append(l.maybe, maybeDuplicate{at.row, at.line, strings.Clone(account)})
	}
	b := &l.buckets[h>>56]
	if n := len(*b); n == 0 || len((*b)[n-1]) == accountChunk {
		*b = append(*b, make([]accountRow, 0, accountChunk))
	}
	last := &(*b)[len(*b)-1]
	*last = append(*last, accountRow{account: h, row: uint32(at.row), content: uint32(maphash.Bytes(l.seed, contents))})
	l.count++
	l.note(h)
	if l.count > len(l.bloom)*64/10 {
		l.grow()
	}
}

// The filter keeps three bits of one 64-bit word for each hash: one
// memory access a row.
func (l *accountLog) word(h uint64) (*uint64, uint64) {
	w := &l.bloom[h&uint64(len(l.bloom)-1)]
	return w, 1<<(h>>32&63) | 1<<(h>>38&63) | 1<<(h>>44&63)
}

func (l *accountLog) seen(h uint64) bool {
	w, bits := l.word(h)
	return *w&bits == bits
}

func (l *accountLog) note(h uint64) {
	w, bits := l.word(h)
	*w |= bits
}

// grow doubles the filter and notes every account again, so it keeps 10
// to 20 bits a row (a few rows in a hundred noted as maybe seen).
func (l *accountLog) grow() {
	l.bloom = make([]uint64, 2*len(l.bloom))
	for i := range l.buckets {
		for _, chunk := range l.buckets[i] {
			for _, r := range chunk {
				l.note(r.account)
			}
		}
	}
}

// warnings lists the rows whose account an earlier row has, in row order:
// the first n, and how many there are.
func (l *accountLog) warnings(n int) (listed []Problem, count int) {
	type duplicate struct{ row, sameAs, copyOf int }
	var found []duplicate
	var rows []accountRow
	for i := range l.buckets {
		rows = rows[:0]
		for _, chunk := range l.buckets[i] {
			rows = append(rows, chunk...)
		}
		l.buckets[i] = nil
		slices.SortFunc(rows, func(x, y accountRow) int { return cmp.Or(cmp.Compare(x.account, y.account), cmp.Compare(x.row, y.row)) })
		for start := 0; start < len(rows); {
			end := start + 1
			for end < len(rows) && rows[end].account == rows[start].account {
				end++
			}
			for k := start + 1; k < end; k++ {
				d := duplicate{row: int(rows[k].row), sameAs: int(rows[start].row)}
				for e := start; e < k; e++ {
					if rows[e].content == rows[k].content {
						d.copyOf = int(rows[e].row)
						break
					}
				}
				found = append(found, d)
			}
			start = end
		}
	}
	slices.SortFunc(found, func(x, y duplicate) int { return cmp.Compare(x.row, y.row) })
	for _, d := range found[:min(n, len(found))] {
		// Every duplicate is among the rows maybe seen: the filter forgets
		// nothing.
		i, _ := slices.BinarySearchFunc(l.maybe, d.row, func(m maybeDuplicate, row int) int { return cmp.Compare(m.row, row) })
		m := l.maybe[min(i, len(l.maybe)-1)]
		p := Problem{Line: m.line, Row: d.row, Value: shorten(m.account), Rule: RuleDuplicateAccount, SameAs: d.sameAs}
		if d.copyOf != 0 {
			p.Rule, p.SameAs = RuleDuplicateRow, d.copyOf
		}
		listed = append(listed, p)
	}
	return listed, len(found)
}
