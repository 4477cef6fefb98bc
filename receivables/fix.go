package receivables

// certain reports whether `freightsite csv fix` corrects a value of this
// rule for certain, when the report has a suggestion for it: the value
// is written the format's way and means what it meant (grouping,
// separators and signs, a decimal comma, Dr and Cr, Excel's zero, a state
// or country written out, spaces and invisible characters around or in
// it, a phone's +91 and separators). What could change an amount or an
// account (scientific notation, lakh and crore written short, a zero
// Excel dropped, an empty amount) is left to the clerk.
func certain(r Rule) bool {
	switch r {
	case RuleThousands, RuleDecimalComma, RuleCurrency, RuleCredit, RuleDrCr, RuleZero, RuleAccounting,
		RuleSpaces, RuleInvisible, RuleOneLine, RuleCode, RuleStateCode, RuleCountry, RuleDigits, RulePostalCode, RuleAmount:
		return true
	}
	return false
}

// fixable reports whether csv fix corrects a value's problem p.
func fixable(p *Problem) bool {
	if p.Suggestion == "" || !certain(p.Rule) {
		return false
	}
	for _, r := range p.Also {
		if !certain(r) {
			return false
		}
	}
	return true
}
