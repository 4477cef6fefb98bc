package receivables

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rule names what a problem breaks. The names are stable: JSON reports
// carry them and the help page translates them (importFormat.rules.<rule>).
type Rule string

// Rules of one value.
const (
	RuleRequired     Rule = "required"     // an empty required value
	RuleMaxLength    Rule = "maxLength"    // more than Limit characters
	RuleDigits       Rule = "digits"       // not exactly Limit digits
	RuleCode         Rule = "code"         // not exactly Limit capital letters
	RuleCountry      Rule = "country"      // not an ISO 3166-1 alpha-2 code
	RulePostalCode   Rule = "postalCode"   // a character other than letters, digits, space, hyphen
	RuleAmount       Rule = "amount"       // not a plain decimal number
	RuleAmountDigits Rule = "amountDigits" // more than Limit digits before the point
	RuleDecimals     Rule = "decimals"     // more than Limit decimals
	RuleSpaces       Rule = "spaces"       // starts or ends with white space
	RuleOneLine      Rule = "oneLine"      // a line break, tab or other control character
	RuleEncoding     Rule = "encoding"     // bytes that are not UTF-8
)

// Rules of a row or of the whole file.
const (
	RuleColumns   Rule = "columns"   // not ColumnCount columns (Limit); Found says how many
	RuleQuote     Rule = "quote"     // a quoted field not closed, or text after its closing quote
	RuleBareQuote Rule = "bareQuote" // a quote inside a field that is not quoted
	RuleRowLength Rule = "rowLength" // a row over Limit bytes: reading stops
	RuleEmpty     Rule = "empty"     // no heading line at all
	RuleNotCSV    Rule = "notCsv"    // a workbook, UTF-16 text or other binary file: reading stops
	RuleLineEnds  Rule = "lineEnds"  // lines end with a bare carriage return: reading stops
	// RuleHeadingIsData is a warning, not an error: the first line is
	// always skipped as the heading, but it looks like a data row.
	RuleHeadingIsData Rule = "headingIsData"
)

// violation is a broken rule with its numbers.
type violation struct {
	rule         Rule
	limit, found int
}

// check returns the rule v breaks, if any.
func (c *Column) check(v string) (violation, bool) {
	if v == "" {
		return violation{rule: RuleRequired}, c.Required
	}
	runes, ascii := len(v), printableASCII(v)
	if !ascii {
		runes = 0
		if !utf8.ValidString(v) {
			return violation{rule: RuleEncoding}, true
		}
		for _, r := range v {
			if r < ' ' || unicode.IsControl(r) {
				return violation{rule: RuleOneLine}, true
			}
			runes++
		}
	}
	if startsOrEndsWithSpace(v, ascii) {
		if c.Required && strings.TrimSpace(v) == "" {
			return violation{rule: RuleRequired}, true
		}
		return violation{rule: RuleSpaces}, true
	}
	switch c.Kind {
	case Text:
		if runes > c.MaxLength {
			return violation{rule: RuleMaxLength, limit: c.MaxLength, found: runes}, true
		}
	case Digits:
		if len(v) != c.Length || !allDigits(v) {
			return violation{rule: RuleDigits, limit: c.Length}, true
		}
	case Code:
		if len(v) != c.Length || !allCapitals(v) {
			return violation{rule: RuleCode, limit: c.Length}, true
		}
	case Country:
		if len(v) != 2 || !isCountryCode(v) {
			return violation{rule: RuleCountry}, true
		}
	case PostalCode:
		for i := 0; i < len(v); i++ {
			if b := v[i]; !isDigit(b) && !isLetter(b) && b != ' ' && b != '-' {
				return violation{rule: RulePostalCode}, true
			}
		}
		if runes > c.MaxLength {
			return violation{rule: RuleMaxLength, limit: c.MaxLength, found: runes}, true
		}
	case Amount:
		return checkAmount(v)
	}
	return violation{}, false
}

// checkAmount accepts -?D+(.D+)? with at most Format.AmountDigits digits
// before the point and Format.AmountDecimals after it.
func checkAmount(v string) (violation, bool) {
	i := 0
	if v[0] == '-' {
		i = 1
	}
	start := i
	for i < len(v) && isDigit(v[i]) {
		i++
	}
	whole := i - start
	decimals := -1
	if i < len(v) && v[i] == '.' {
		i++
		d := i
		for i < len(v) && isDigit(v[i]) {
			i++
		}
		decimals = i - d
	}
	switch {
	case whole == 0 || decimals == 0 || i != len(v):
		return violation{rule: RuleAmount}, true
	case whole > Format.AmountDigits:
		return violation{rule: RuleAmountDigits, limit: Format.AmountDigits}, true
	case decimals > Format.AmountDecimals:
		return violation{rule: RuleDecimals, limit: Format.AmountDecimals}, true
	}
	return violation{}, false
}

// printableASCII reports whether s holds only the bytes ' ' to '~': the
// common case, checked without decoding runes.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i]-' ' > '~'-' ' {
			return false
		}
	}
	return true
}

// startsOrEndsWithSpace: in ASCII text without control characters the
// only white space left is ' '.
func startsOrEndsWithSpace(v string, ascii bool) bool {
	if ascii {
		return v[0] == ' ' || v[len(v)-1] == ' '
	}
	first, _ := utf8.DecodeRuneInString(v)
	last, _ := utf8.DecodeLastRuneInString(v)
	return unicode.IsSpace(first) || unicode.IsSpace(last)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func allCapitals(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isCapital(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(b byte) bool   { return '0' <= b && b <= '9' }
func isCapital(b byte) bool { return 'A' <= b && b <= 'Z' }
func isLetter(b byte) bool  { return isCapital(b) || ('a' <= b && b <= 'z') }

// reason is the plain English reason of a problem, for people reading the
// command's output.
func reason(v violation) string {
	switch v.rule {
	case RuleRequired:
		return "required"
	case RuleMaxLength:
		return fmt.Sprintf("at most %d characters (has %d)", v.limit, v.found)
	case RuleDigits:
		return fmt.Sprintf("must be exactly %d digits", v.limit)
	case RuleCode:
		return fmt.Sprintf("must be %d capital letters, like MH", v.limit)
	case RuleCountry:
		return "must be a 2-letter ISO 3166 country code in capitals, like IN"
	case RulePostalCode:
		return "may hold only letters, digits, spaces and hyphens"
	case RuleAmount:
		return "must be an amount like 1250.50 or -75 (digits, optional minus for credits, no commas or symbols)"
	case RuleAmountDigits:
		return fmt.Sprintf("at most %d digits before the decimal point", v.limit)
	case RuleDecimals:
		return fmt.Sprintf("at most %d decimal places", v.limit)
	case RuleSpaces:
		return "must not start or end with a space"
	case RuleOneLine:
		return "must be on one line, without line breaks, tabs or other control characters"
	case RuleEncoding:
		return "is not UTF-8 text: save the file as \"CSV UTF-8\""
	case RuleColumns:
		return fmt.Sprintf("expected %d columns, found %d", v.limit, v.found)
	case RuleQuote:
		return `a quoted field is not closed, or has text after its closing quote (write a quote inside quotes as "")`
	case RuleBareQuote:
		return `a quote (") inside a field that does not start with a quote: put the field in quotes and double the quote ("")`
	case RuleRowLength:
		return fmt.Sprintf("this row is longer than %d bytes, so reading stopped (is a quote left open?)", v.limit)
	case RuleEmpty:
		return "the file is empty: the first line must be the heading, then one line per account"
	case RuleNotCSV:
		return "this is not CSV text (an Excel workbook, UTF-16 text or another binary file): save it as \"CSV UTF-8\""
	case RuleLineEnds:
		return "lines end with a bare carriage return (old Mac format): save the file with Windows (CRLF) or Unix (LF) line ends"
	case RuleHeadingIsData:
		return "the first line is always skipped as the heading, but it looks like data: add a heading line"
	}
	return string(v.rule)
}
