package receivables

import (
	"hash/maphash"
	"math/bits"
	"slices"
	"unsafe"
)

// The shortest way to "valid" for a whole row read by place: most rows of
// most files are valid, so checking them costs the most. encoding/csv
// makes a record's values slices of one string, one after the other;
// when they are (rowText checks that they are), one pass over that string
// eight bytes at a time says whether every byte is plain text, so a text
// value needs no closer look than its length and ends. validRow then
// looks at every value once, column kind by column kind, without a call
// per value; a row it does not clear is checked value by value (check),
// which finds what is wrong.

// columnPlan is what validRow needs of a column.
type columnPlan struct {
	i        uint8 // the column's place
	required bool
	size     uint8 // MaxLength of Text and PostalCode, Length of Digits
}

// plans are the columns of each kind, in order.
var plans = func() (p [Amount + 1][]columnPlan) {
	for i, c := range Format.Columns {
		p[c.Kind] = append(p[c.Kind], columnPlan{i: uint8(i), required: c.Required, size: uint8(max(c.MaxLength, c.Length))})
	}
	return p
}()

// amountRun is where the amount columns are when they stand next to one
// another (ok): their values are then one string too.
var amountRun = func() (r struct {
	first, last int
	ok          bool
}) {
	cols := plans[Amount]
	r.first, r.last = int(cols[0].i), int(cols[len(cols)-1].i)
	r.ok = r.last-r.first == len(cols)-1 && slices.IndexFunc(cols, func(c columnPlan) bool { return !c.required }) < 0
	return r
}()

// plainAmounts reports whether every one of the required amounts passes
// checkAmount, given that the values are one string (rowText): one pass
// counts the bytes that are not digits in all of them, and each must
// account for its own (a minus first, a point before its last one or two
// digits) with the count matching.
func plainAmounts(amounts []string) bool {
	for _, v := range amounts {
		if v == "" {
			return false
		}
	}
	first, last := amounts[0], amounts[len(amounts)-1]
	n := int(uintptr(unsafe.Pointer(unsafe.StringData(last))) + uintptr(len(last)) - uintptr(unsafe.Pointer(unsafe.StringData(first))))
	others := notDigits(unsafe.String(unsafe.StringData(first), n))
	for _, v := range amounts {
		whole := len(v)
		if v[0] == '-' {
			others--
			whole--
		}
		switch {
		case len(v) >= 2 && v[len(v)-2] == '.':
			others--
			whole -= 2
		case len(v) >= 3 && v[len(v)-3] == '.':
			others--
			whole -= 3
		}
		if whole < 1 || whole > Format.AmountDigits {
			return false
		}
	}
	return others == 0
}

// notDigits counts the bytes of s that are not digits 0-9, eight at a
// time: within each byte's low seven bits, adding 0x50 sets the top bit
// from '0' up and adding 0x46 from ':' up, never carrying into the next
// byte; a byte with its own top bit set is no digit either.
func notDigits(s string) int {
	const low7, from0, fromColon, highs = 0x7f7f7f7f7f7f7f7f, 0x5050505050505050, 0x4646464646464646, 0x8080808080808080
	p := unsafe.Pointer(unsafe.StringData(s))
	count := 0
	word := func(x, keep uint64) {
		y := x & low7
		digits := (y + from0) &^ (y + fromColon) &^ x
		count += bits.OnesCount64(^digits & highs & keep)
	}
	i := 0
	for ; i+8 <= len(s); i += 8 {
		word(*(*uint64)(unsafe.Add(p, i)), ^uint64(0))
	}
	switch {
	case i == len(s):
	case len(s) >= 8:
		// The last bytes, as the top ones of the last eight.
		word(*(*uint64)(unsafe.Add(p, len(s)-8)), ^uint64(0)<<(8*(8-(len(s)-i))))
	default:
		for ; i < len(s); i++ {
			if s[i]-'0' > 9 {
				count++
			}
		}
	}
	return count
}

// rowText is the row's values as the one string encoding/csv made them
// from: every value is a slice of it, one after the other (a test keeps
// to that), so it runs from the first non-empty value to the end of the
// last (an empty one may point anywhere in it). Values that are not so (a
// row spliced together) give "" and false.
func rowText(fields []string) (string, bool) {
	i, j := 0, len(fields)-1
	for i < j && fields[i] == "" {
		i++
	}
	for j > i && fields[j] == "" {
		j--
	}
	first, last := fields[i], fields[j]
	if last == "" {
		return "", true
	}
	start, end := uintptr(unsafe.Pointer(unsafe.StringData(first))), uintptr(unsafe.Pointer(unsafe.StringData(last)))+uintptr(len(last))
	if end < start || end-start > MaxRowBytes {
		return "", false
	}
	return unsafe.String(unsafe.StringData(first), end-start), true
}

// plainBytes reports whether s is all printable ASCII but '?', eight bytes
// at a time.
func plainBytes(s string) bool {
	const c01, c20, c40, c7f, highs = 0x0101010101010101, 0x2020202020202020, 0x4040404040404040, 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	p := unsafe.Pointer(unsafe.StringData(s))
	odd, i := uint64(0), 0
	for ; i+8 <= len(s); i += 8 {
		x := *(*uint64)(unsafe.Add(p, i)) // unaligned loads are fine on the platforms Go runs on
		// Below ' ' borrows, from 0x80 has the top bit; '?' (0x3f) and DEL
		// (0x7f) are both 0x7f once 0x40 is set, a zero byte once xored.
		z := (x | c40) ^ c7f
		odd |= (x - c20) | x | ((z - c01) &^ z)
	}
	if odd&highs != 0 {
		return false
	}
	for ; i < len(s); i++ {
		if c := s[i]; c-' ' > '~'-' ' || c == '?' {
			return false
		}
	}
	return true
}

// validRow reports whether every value of a row of ColumnCount values,
// read by place, passes check (a State value only when it is an Indian
// code: others depend on the row's country). It also returns a hash of
// the values, to tell a copy of the row, when it has them at hand and a
// seed (nil: no hash wanted).
func validRow(fields []string, seed *maphash.Seed) (valid bool, sum uint64) {
	fields = fields[:ColumnCount]
	text, whole := rowText(fields)
	plain := whole && plainBytes(text)
	for _, c := range plans[Text] {
		v := fields[c.i]
		if v == "" {
			if c.required {
				return false, 0
			}
			continue
		}
		if len(v) > int(c.size) || v[0] == '#' || v[0] == ' ' || v[len(v)-1] == ' ' || !plain && !plainText(v) {
			return false, 0
		}
	}
	if whole && amountRun.ok {
		if !plainAmounts(fields[amountRun.first : amountRun.last+1]) {
			return false, 0
		}
	} else {
		for _, c := range plans[Amount] {
			if v := fields[c.i]; v == "" || !plainAmount(v) {
				return false, 0
			}
		}
	}
	for _, c := range plans[Digits] {
		if v := fields[c.i]; v != "" && (len(v) != int(c.size) || !allDigits(v)) {
			return false, 0
		}
	}
	for _, c := range plans[State] {
		if v := fields[c.i]; v != "" && (len(v) != 2 || !isCapital(v[0]) || !isCapital(v[1]) || !indianStates.codes[pairIndex(v)]) {
			return false, 0
		}
	}
	for _, c := range plans[Country] {
		if v := fields[c.i]; v != "" && (len(v) != 2 || !isCountryCode(v)) {
			return false, 0
		}
	}
	for _, c := range plans[PostalCode] {
		if v := fields[c.i]; v != "" && (len(v) > int(c.size) || !postalText(v)) {
			return false, 0
		}
	}
	if whole && seed != nil {
		sum = maphash.String(*seed, text) | 1 // never 0: none
	}
	return true, sum
}

// postalText reports whether v is letters, digits, spaces and hyphens,
// without a space at either end.
func postalText(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; !isDigit(b) && !isLetter(b) && b != ' ' && b != '-' {
			return false
		}
	}
	return v[0] != ' ' && v[len(v)-1] != ' '
}

// plainAmount reports whether v passes checkAmount, in fewer steps: a
// minus, then digits with at most one point.
func plainAmount(v string) bool {
	if v[0] == '-' {
		v = v[1:]
	}
	point := -1
	for i := 0; i < len(v); i++ {
		if c := v[i]; c-'0' > 9 {
			if c != '.' || point >= 0 {
				return false
			}
			point = i
		}
	}
	whole, decimals := len(v), 0
	if point >= 0 {
		whole, decimals = point, len(v)-point-1
		if decimals == 0 {
			return false
		}
	}
	return whole > 0 && whole <= Format.AmountDigits && decimals <= Format.AmountDecimals
}
