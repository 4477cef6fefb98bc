package receivables

import (
	"math/big"
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
	if strings.IndexFunc(v, isControl) >= 0 {
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
	switch up := strings.ToUpper(v); up {
	case "IND", "INDIA", "BHARAT", "भारत":
		return "IN"
	default:
		if len(up) == 2 && isCountryCode(up) {
			return up
		}
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

// diagnoseAmount undoes what spreadsheets and accounting exports do to
// amounts: ₹ and Rs. signs, thousands separators (1,250.50 and Indian
// 1,25,000.00), credits in brackets or with a trailing minus, Excel's
// scientific notation and a decimal comma; each is a rule of its own, and
// all of them are reported at once.
func diagnoseAmount(d *diagnosis, v string) string {
	negative := false
	for changed := true; changed; {
		changed = false
		v = strings.TrimSpace(v)
		if rest, ok := withoutCurrency(v); ok {
			d.addOnce(RuleCurrency)
			v, changed = rest, true
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
	switch {
	case isScientific(v):
		d.add(RuleScientific)
		if v = plainNumber(v); v == "" {
			return "" // more decimals than an amount may have: no sure correction
		}
	case strings.IndexByte(v, ',') >= 0:
		if grouped(v) {
			d.add(RuleThousands)
			v = strings.ReplaceAll(v, ",", "")
		} else if decimalComma(v) {
			d.add(RuleDecimalComma)
			v = strings.Replace(v, ",", ".", 1)
		}
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
	if v == "" {
		d.addOnce(RuleAmount)
		return ""
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
