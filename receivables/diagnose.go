package receivables

import (
	"math/big"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// diagnosis is everything wrong with one value, at once, and what to type
// instead when that can be known.
type diagnosis struct {
	rules        []Rule
	limit, found int
	// suggestion is the value corrected; "" when no correction is sure
	// (too long, digits lost, an unknown code).
	suggestion string
	// char is the first invisible character of the value and charAt its
	// place (1 is the first character).
	char   rune
	charAt int
}

func (d *diagnosis) add(r Rule) { d.rules = append(d.rules, r) }

// diagnose looks at a value check refused. india says whether the row's
// country puts a State value on the Indian list. A diagnosis with no rules
// means the value is fine after all (a state code of a row outside India).
func (c *Column) diagnose(v string, india bool) diagnosis {
	var d diagnosis
	if !utf8.ValidString(v) {
		d.add(RuleEncoding)
		return d
	}
	fixed := v
	if i := strings.IndexFunc(v, invisible); i >= 0 {
		d.add(RuleInvisible)
		d.char, _ = utf8.DecodeRuneInString(v[i:])
		d.charAt = utf8.RuneCountInString(v[:i]) + 1
		fixed = withoutInvisible(fixed)
	}
	if strings.IndexFunc(fixed, isControl) >= 0 {
		d.add(RuleOneLine)
		fixed = strings.Join(strings.FieldsFunc(fixed, isControl), " ")
	}
	if trimmed := strings.TrimSpace(fixed); trimmed != fixed {
		d.add(RuleSpaces)
		fixed = trimmed
	}
	if fixed == "" {
		if c.Required {
			d.rules = []Rule{RuleRequired}
			if c.Kind == Amount {
				d.suggestion = "0"
			}
		}
		return d
	}
	if fixed[0] == '#' && formulaError(fixed) {
		d.add(RuleFormulaError)
		return d
	}
	if !c.accepts(fixed, india) {
		switch c.Kind {
		case Text:
			fixed = c.diagnoseText(&d, fixed)
		case Digits:
			fixed = c.diagnoseDigits(&d, fixed)
		case State:
			fixed = c.diagnoseState(&d, fixed, india)
		case Country:
			fixed = diagnoseCountry(&d, fixed)
		case PostalCode:
			fixed = c.diagnosePostalCode(&d, fixed)
		case Amount:
			fixed = diagnoseAmount(&d, fixed)
		}
	}
	if fixed != "" && fixed != v && len(d.rules) > 0 && c.accepts(fixed, india) {
		d.suggestion = fixed
	}
	return d
}

// withoutInvisible drops a value's invisible characters: a no-break space
// between words becomes a space, the others go.
func withoutInvisible(v string) string {
	v = strings.Map(func(r rune) rune {
		switch {
		case noBreakSpace(r):
			return '\u00a0' // kept to tell from the value's own spaces
		case invisible(r):
			return -1
		}
		return r
	}, v)
	v = strings.Trim(v, "\u00a0")
	return strings.ReplaceAll(v, "\u00a0", " ")
}

// accepts reports whether v passes the column's checks in a row whose
// country is India or not.
func (c *Column) accepts(v string, india bool) bool {
	bad, ok := c.check(v)
	return !ok || (bad.rule == RuleStateCode && !india)
}

func isControl(r rune) bool { return r < ' ' || unicode.IsControl(r) }

func (c *Column) diagnoseText(d *diagnosis, v string) string {
	if n := utf8.RuneCountInString(v); n > c.MaxLength {
		d.add(RuleMaxLength)
		d.limit, d.found = c.MaxLength, n
		return ""
	}
	if lostText(v) {
		d.add(RuleLostText)
		return ""
	}
	return v
}

// diagnoseDigits reads phone, fax and MC numbers as people write them:
// +91 98765 43210, 098765-43210, (022) 2741 2345, Devanagari digits, or
// 9876543210.0 from a number column.
func (c *Column) diagnoseDigits(d *diagnosis, v string) string {
	if isScientific(v) {
		d.add(RuleDigitsLost)
		return ""
	}
	if c.LeadingZeros && allDigits(v) && len(v) < c.Length && len(v) >= c.Length-2 {
		d.add(RuleLeadingZero)
		d.limit = c.Length
		return strings.Repeat("0", c.Length-len(v)) + v
	}
	d.add(RuleDigits)
	d.limit = c.Length
	v = strings.TrimSuffix(strings.TrimSuffix(v, ".00"), ".0")
	var digits strings.Builder
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case r >= '०' && r <= '९':
			digits.WriteRune('0' + r - '०')
		case strings.ContainsRune(" -().+/", r):
		default:
			return ""
		}
	}
	s := digits.String()
	switch {
	case len(s) == c.Length:
		return s
	case c.Length == 10 && len(s) == 12 && strings.HasPrefix(s, "91"):
		return s[2:]
	case c.Length == 10 && len(s) == 11 && s[0] == '0':
		return s[1:]
	}
	return ""
}

func (c *Column) diagnoseState(d *diagnosis, v string, india bool) string {
	if len(v) == c.Length && allCapitals(v) {
		if !india || indianStates.has(v) {
			return v
		}
		d.add(RuleStateCode)
		return indianStates.former[pairIndex(v)]
	}
	d.add(RuleCode)
	d.limit = c.Length
	if !india {
		if up := strings.ToUpper(v); len(up) == c.Length && allCapitals(up) {
			return up
		}
		return ""
	}
	return indianStates.suggest(v)
}

func diagnoseCountry(d *diagnosis, v string) string {
	d.add(RuleCountry)
	if inIndia(v) {
		return "IN"
	}
	if up := strings.ToUpper(v); len(up) == 2 && isCountryCode(up) {
		return up
	}
	return ""
}

func (c *Column) diagnosePostalCode(d *diagnosis, v string) string {
	if n := utf8.RuneCountInString(v); n > c.MaxLength {
		d.add(RuleMaxLength)
		d.limit, d.found = c.MaxLength, n
	} else {
		d.add(RulePostalCode)
	}
	// 411001.0: a PIN code kept in a number column.
	v = strings.TrimSuffix(v, ".0")
	return strings.Map(func(r rune) rune {
		if r >= '०' && r <= '९' {
			return '0' + r - '०'
		}
		return r
	}, v)
}

// diagnoseAmount undoes what spreadsheets and accounting programs do to
// amounts: ₹ and Rs. signs, thousands separators (1,250.50, Indian
// 1,25,000.00, European 1.250,50), credits in brackets, with a trailing
// minus (SAP's 1.500,00-) or marked Cr, Excel's scientific notation, a
// decimal comma, zero shown as "-" or NIL, and lakh, crore and thousand
// written short; each is a rule of its own, and all are reported at once.
// Words, dates and formula errors are said as such.
func diagnoseAmount(d *diagnosis, v string) string {
	if zeroWord(v) {
		d.add(RuleZero)
		return "0"
	}
	if isDate(v) {
		d.add(RuleDate)
		return ""
	}
	negative := false
	var multiplier int64
	for changed := true; changed; {
		changed = false
		v = strings.TrimSpace(v)
		if rest, ok := withoutCurrency(v); ok {
			d.addOnce(RuleCurrency)
			v, changed = rest, true
			continue
		}
		if rest, credit, ok := withoutDrCr(v); ok {
			d.addOnce(RuleDrCr)
			v, negative, changed = rest, negative || credit, true
			continue
		}
		if rest, m, ok := withoutShorthand(v); ok && multiplier == 0 {
			d.addOnce(RuleShorthand)
			v, multiplier, changed = rest, m, true
			continue
		}
		switch {
		case len(v) > 2 && v[0] == '(' && v[len(v)-1] == ')':
			d.addOnce(RuleCredit)
			v, negative, changed = v[1:len(v)-1], true, true
		case len(v) > 1 && v[len(v)-1] == '-':
			d.addOnce(RuleCredit)
			v, negative, changed = v[:len(v)-1], true, true
		case len(v) > 1 && v[0] == '-':
			v, negative, changed = v[1:], true, true
		case len(v) > 1 && v[0] == '+':
			d.addOnce(RuleAmount)
			v, changed = v[1:], true
		}
	}
	if zeroWord(v) {
		d.addOnce(RuleZero)
		return "0"
	}
	switch {
	case isScientific(v):
		d.add(RuleScientific)
		if v = plainNumber(v); v == "" {
			return "" // more decimals than an amount may have: no sure correction
		}
	case strings.IndexByte(v, ',') >= 0 && strings.IndexByte(v, '.') > 0 && strings.IndexByte(v, '.') < strings.IndexByte(v, ','):
		if europeanGrouped(v) {
			d.add(RuleThousands)
			d.add(RuleDecimalComma)
			v = strings.Replace(strings.ReplaceAll(v, ".", ""), ",", ".", 1)
		}
	case strings.IndexByte(v, ',') >= 0:
		if grouped(v) {
			d.add(RuleThousands)
			v = strings.ReplaceAll(v, ",", "")
		} else if decimalComma(v) {
			d.add(RuleDecimalComma)
			v = strings.Replace(v, ",", ".", 1)
		}
	case strings.Count(v, ".") > 1 && europeanGrouped(v):
		d.add(RuleThousands)
		v = strings.ReplaceAll(v, ".", "")
	}
	// .5 and 5. are amounts with a digit missing on one side.
	if strings.HasPrefix(v, ".") {
		d.addOnce(RuleAmount)
		v = "0" + v
	}
	if strings.HasSuffix(v, ".") {
		d.addOnce(RuleAmount)
		v = strings.TrimSuffix(v, ".")
	}
	if v == "" || strings.IndexFunc(v, unicode.IsDigit) < 0 {
		if len(d.rules) == 0 {
			d.add(RuleAmountNeeded) // TBD, N/A, pending
		} else {
			d.addOnce(RuleAmount)
		}
		return ""
	}
	if multiplier != 0 {
		if v = scaled(v, multiplier); v == "" {
			d.addOnce(RuleAmount)
			return ""
		}
	}
	if bad, ok := checkAmount(v); ok {
		d.addOnce(bad.rule)
		d.limit = bad.limit
		return ""
	}
	if len(d.rules) == 0 {
		d.add(RuleAmount) // only a sign moved: "- 75" written with a space
	}
	if negative && strings.Trim(v, "0.") != "" {
		v = "-" + v
	}
	return v
}

// zeroWord reports whether v is zero as accounting programs and Excel's
// Accounting format write it: "-" (with ₹ or Rs. before it), or NIL.
func zeroWord(v string) bool {
	if rest, ok := withoutCurrency(v); ok {
		v = strings.TrimSpace(rest)
	}
	switch strings.ToLower(strings.TrimSuffix(v, ".")) {
	case "-", "--", "–", "—", "nil", "zero":
		return true
	}
	return false
}

// withoutDrCr strips the Dr (debit) or Cr (credit) that Tally and Busy
// write after an amount: 1,200.00 Dr, 500.00 Cr., 500.00 (Cr). A Cr after
// an amount without exactly two decimals or grouping is crore written
// short (2 Cr, 1.5 Cr), which withoutShorthand reads.
func withoutDrCr(v string) (rest string, credit, ok bool) {
	s := v
	bracketed := strings.HasSuffix(s, ")")
	if bracketed {
		s = s[:len(s)-1]
	}
	s = strings.TrimSuffix(s, ".")
	if len(s) < 3 {
		return v, false, false
	}
	mark := strings.ToLower(s[len(s)-2:])
	if mark != "dr" && mark != "cr" {
		return v, false, false
	}
	rest = strings.TrimSpace(s[:len(s)-2])
	if bracketed {
		var found bool
		if rest, found = strings.CutSuffix(rest, "("); !found {
			return v, false, false
		}
		rest = strings.TrimSpace(rest)
	}
	if rest == "" || !isDigit(rest[len(rest)-1]) && rest[len(rest)-1] != ')' {
		return v, false, false
	}
	if mark == "cr" && !accountsAmount(strings.Trim(rest, "()-")) {
		return v, false, false
	}
	return rest, mark == "cr", true
}

// accountsAmount reports whether v is written as accounting programs write
// amounts: with exactly two decimals, or with grouping commas.
func accountsAmount(v string) bool {
	if strings.IndexByte(v, ',') >= 0 {
		return true
	}
	_, frac, ok := strings.Cut(v, ".")
	return ok && len(frac) == 2 && allDigits(frac)
}

// shorthands are the suffixes of lakh (1,00,000), crore (1,00,00,000) and
// thousand written short, lower case, longest first.
var shorthands = []struct {
	suffix     string
	multiplier int64
}{
	{"thousand", 1e3}, {"crores", 1e7}, {"crore", 1e7}, {"lakhs", 1e5}, {"lakh", 1e5}, {"lacs", 1e5}, {"lac", 1e5},
	{"cr", 1e7}, {"l", 1e5}, {"k", 1e3},
}

// withoutShorthand strips a lakh, crore or thousand suffix: 1.5 L, 2 Cr,
// 12k, 1.25 lakh.
func withoutShorthand(v string) (rest string, multiplier int64, ok bool) {
	v = strings.TrimSuffix(v, ".")
	for _, s := range shorthands {
		if len(v) > len(s.suffix) && strings.EqualFold(v[len(v)-len(s.suffix):], s.suffix) {
			rest = strings.TrimSpace(v[:len(v)-len(s.suffix)])
			if rest == "" || !isDigit(rest[len(rest)-1]) {
				return v, 0, false
			}
			return rest, s.multiplier, true
		}
	}
	return v, 0, false
}

// scaled is the amount v (digits and a point) times m, with at most
// Format.AmountDecimals decimals, or "".
func scaled(v string, m int64) string {
	r, ok := new(big.Rat).SetString(v)
	if !ok {
		return ""
	}
	r.Mul(r, new(big.Rat).SetInt64(m))
	return plainNumber(r.RatString())
}

// months are the months' short names as Excel writes dates (12-Mar-25).
var months = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// isDate reports whether v is a date as Excel writes one in a cell
// formatted as a date: 12/03/2025, 12-03-25, 12.03.2025, 2025-03-12,
// 12-Mar-25, 12 Mar 2025, Mar-25, with a time after it or not.
func isDate(v string) bool {
	v = strings.ToLower(v)
	sep := v[strings.IndexFunc(v, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })+1:]
	if len(sep) == len(v) || sep == "" {
		return false // no separator, or only at the end
	}
	mark := v[len(v)-len(sep)-1]
	if mark != ' ' {
		v, _, _ = strings.Cut(v, " ") // a time after the date
	}
	parts := strings.Split(v, string(mark))
	if len(parts) < 2 || len(parts) > 3 || len(v) > 11 {
		return false
	}
	numbers := 0
	for _, p := range parts {
		switch {
		case p != "" && allDigits(p) && len(p) <= 4:
			numbers++
		case len(p) < 3 || !slices.Contains(months, p[:3]) || !allLetters(p):
			return false
		}
	}
	if numbers < len(parts) {
		return numbers >= 1
	}
	if len(parts) != 3 || mark == ' ' {
		return false
	}
	// 12.03.2025 is a date; 1.250.000 is a European amount.
	day, month, year := len(parts[0]), len(parts[1]), len(parts[2])
	return month <= 2 && (day <= 2 && (year == 2 || year == 4) || day == 4 && year <= 2)
}

func allLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return true
}

func (d *diagnosis) addOnce(r Rule) {
	for _, have := range d.rules {
		if have == r {
			return
		}
	}
	d.add(r)
}

// withoutCurrency strips a rupee sign: ₹, Rs, Rs., INR before the number
// or /- after it (Rs. 500/-).
func withoutCurrency(v string) (string, bool) {
	for _, sign := range []string{"₹", "rs.", "rs", "inr"} {
		if len(v) > len(sign) && strings.EqualFold(v[:len(sign)], sign) {
			return v[len(sign):], true
		}
	}
	for _, sign := range []string{"/-", "₹"} {
		if rest, ok := strings.CutSuffix(v, sign); ok && rest != "" {
			return rest, true
		}
	}
	return v, false
}

// grouped reports whether the commas of v separate thousands, the Western
// way (1,250,000.50) or the Indian way (12,50,000.50).
func grouped(v string) bool {
	whole, _, _ := strings.Cut(v, ".")
	groups := strings.Split(whole, ",")
	if len(groups[0]) == 0 || len(groups[0]) > 3 || !allDigits(groups[0]) {
		return false
	}
	last := groups[len(groups)-1]
	if len(last) != 3 || !allDigits(last) {
		return false
	}
	western, indian := true, true
	for _, g := range groups[1 : len(groups)-1] {
		western = western && len(g) == 3 && allDigits(g)
		indian = indian && len(g) == 2 && allDigits(g)
	}
	return western || (indian && len(groups[0]) <= 2)
}

// europeanGrouped reports whether the points of v separate thousands and
// a comma, if any, is the decimal mark: 1.250,50, 12.500.000, 1.500,00.
func europeanGrouped(v string) bool {
	whole, frac, comma := strings.Cut(v, ",")
	if comma && (frac == "" || len(frac) > 2 || !allDigits(frac)) {
		return false
	}
	groups := strings.Split(whole, ".")
	if len(groups) < 2 || len(groups[0]) == 0 || len(groups[0]) > 3 || !allDigits(groups[0]) {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 || !allDigits(g) {
			return false
		}
	}
	return true
}

// decimalComma: 1250,50 or 0,5, digits with one comma and at most two
// digits after it (three would be a thousands separator).
func decimalComma(v string) bool {
	whole, frac, _ := strings.Cut(v, ",")
	return whole != "" && allDigits(whole) && len(frac) >= 1 && len(frac) <= 2 && allDigits(frac)
}

// isScientific reports Excel's way of showing a long number: 1.25E+05,
// 9.88E+09, 1E6.
func isScientific(v string) bool {
	mantissa, exponent, ok := strings.Cut(strings.ToUpper(v), "E")
	if !ok || mantissa == "" || exponent == "" {
		return false
	}
	whole, frac, _ := strings.Cut(mantissa, ".")
	exponent = strings.TrimLeft(exponent, "+-")
	return whole != "" && allDigits(whole) && allDigits(frac) && exponent != "" && allDigits(exponent) && len(exponent) <= 3
}

// plainNumber writes a scientific-notation number out in full, with at
// most Format.AmountDecimals decimals when it has any ("" when it has more).
func plainNumber(v string) string {
	r, ok := new(big.Rat).SetString(v)
	if !ok {
		return ""
	}
	if r.IsInt() {
		return r.Num().String()
	}
	s := r.FloatString(Format.AmountDecimals + 1)
	if !strings.HasSuffix(s, "0") {
		return ""
	}
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}
