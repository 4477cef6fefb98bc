package receivables

import (
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Rule names what a problem breaks. The names are stable: JSON reports
// carry them and the help page translates them (importFormat.rules.<rule>).
type Rule string

// Rules of one value.
const (
	RuleRequired     Rule = "required"     // an empty required value (suggestion 0 for an amount)
	RuleMaxLength    Rule = "maxLength"    // more than Limit characters
	RuleDigits       Rule = "digits"       // not exactly Limit digits
	RuleDigitsLost   Rule = "digitsLost"   // Excel wrote the number as 9.88E+09: its last digits are gone
	RuleCode         Rule = "code"         // not exactly Limit capital letters
	RuleStateCode    Rule = "stateCode"    // not a code of data/states.json's Indian list
	RuleCountry      Rule = "country"      // not an ISO 3166-1 alpha-2 code
	RulePostalCode   Rule = "postalCode"   // a character other than letters, digits, space, hyphen
	RuleAmount       Rule = "amount"       // not a plain decimal number
	RuleThousands    Rule = "thousands"    // thousands separators: 1,250.50 or 1,25,000.00
	RuleCurrency     Rule = "currency"     // a ₹, Rs. or INR sign
	RuleCredit       Rule = "credit"       // a credit written (75.00) or 75.00- instead of -75.00
	RuleScientific   Rule = "scientific"   // Excel's scientific notation: 1.25E+05
	RuleDecimalComma Rule = "decimalComma" // a comma as the decimal mark: 1250,50
	RuleAmountDigits Rule = "amountDigits" // more than Limit digits before the point
	RuleDecimals     Rule = "decimals"     // more than Limit decimals
	RuleSpaces       Rule = "spaces"       // starts or ends with white space
	RuleOneLine      Rule = "oneLine"      // a line break, tab or other control character
	RuleInvisible    Rule = "invisible"    // a no-break or zero-width space (Char, at CharAt)
	RuleFormulaError Rule = "formulaError" // a spreadsheet formula's error: #REF!, #N/A, #VALUE!
	RuleLeadingZero  Rule = "leadingZero"  // a number Excel dropped the leading zero of: 12345 for 012345
	RuleDrCr         Rule = "drCr"         // an amount marked Dr (a debit) or Cr (a credit): 500.00 Cr
	RuleZero         Rule = "zero"         // zero written as Excel's Accounting format shows it (-) or NIL
	RuleAmountNeeded Rule = "amountNeeded" // a word where an amount belongs: TBD, N/A, pending
	RuleDate         Rule = "date"         // a date where an amount belongs: 12/03/2025
	RuleShorthand    Rule = "shorthand"    // lakh, crore or thousand written short: 1.5 L, 2 Cr, 12k
	// RuleEncoding and RuleLostText have one cause, the file's saving as
	// ANSI text: each is reported once for the file, and per column in
	// the summary.
	RuleEncoding Rule = "encoding" // bytes that are not UTF-8
	RuleLostText Rule = "lostText" // letters saved as ANSI turned into ???
)

// Rules of a row.
const (
	RuleColumns   Rule = "columns"   // not ColumnCount columns (Limit); Found says how many
	RuleQuote     Rule = "quote"     // a quoted field not closed, or text after its closing quote
	RuleBareQuote Rule = "bareQuote" // a quote inside a field that is not quoted
	RuleTotalsRow Rule = "totalsRow" // a totals row ("Grand Total"); at the end of the file, a cause
	// RuleUnquotedComma and RuleSplitAmount explain a row of more than
	// ColumnCount columns (Found) as one value cut at its commas: a text
	// value not in quotes, an amount with grouping commas (Parts).
	RuleUnquotedComma Rule = "unquotedComma"
	RuleSplitAmount   Rule = "splitAmount"
)

// Warnings: the file is valid with them.
const (
	RuleDuplicateAccount Rule = "duplicateAccount" // the account of an earlier row (SameAs)
	RuleDuplicateRow     Rule = "duplicateRow"     // a copy of an earlier row (SameAs), value for value
)

// Causes: what is wrong with the file as a whole, each reported once.
const (
	RuleEmpty             Rule = "empty"             // no heading line at all
	RuleNotCSV            Rule = "notCsv"            // a PDF or other binary file: unusable
	RuleWorkbook          Rule = "workbook"          // an Excel workbook (.xlsx, .xls): unusable
	RuleUnicodeText       Rule = "unicodeText"       // UTF-16, Excel's "Unicode Text": unusable
	RuleLineEnds          Rule = "lineEnds"          // lines end with a bare carriage return (Excel for Mac's "CSV (Macintosh)")
	RuleRowLength         Rule = "rowLength"         // a row over Limit bytes: reading stops
	RuleSeparator         Rule = "separator"         // values separated by Value (";", tab or "|"), not commas
	RuleSepLine           Rule = "sepLine"           // a first line "sep=," that Excel hides
	RuleLinesAboveHeading Rule = "linesAboveHeading" // a report title and such above the heading
	RuleHeadingMissing    Rule = "headingMissing"    // lines above the accounts, but no heading
	RuleHeadingIsData     Rule = "headingIsData"     // line 1 is an account, which the import skips
	RuleColumnOrder       Rule = "columnOrder"       // the heading names a column in another place
	RuleMissingColumn     Rule = "missingColumn"     // the heading lacks a column
	RuleExtraColumn       Rule = "extraColumn"       // the heading has a column the format has not
	RuleTrailingColumns   Rule = "trailingColumns"   // empty columns Z, AA... that Excel added
	RuleEmptyRows         Rule = "emptyRows"         // rows that are only commas
	RuleOtherFormat       Rule = "otherFormat"       // Count rows in a row without 25 columns (Found: the first's): reading stops
	RuleGroupHeadings     Rule = "groupHeadings"     // rows of a label only: a report's group headings
	// RuleAccounting is a column (or columns) in Excel's Accounting
	// format: amounts with spaces around them, grouping, a ₹ sign, credits
	// in brackets and zero as "-". Any value rule that runs through a
	// column is a cause of its own too (see Report.Causes).
	RuleAccounting Rule = "accounting"
)

// violation is a broken rule with its numbers.
type violation struct {
	rule         Rule
	limit, found int
}

// check returns the first rule v breaks, if any: the test every value
// goes through, so it first takes the shortest way to "valid" for each
// kind. A StateCode violation still depends on the row's country, which
// the caller knows. diagnose finds all of a bad value's problems and what
// to type instead.
func (c *Column) check(v string) (violation, bool) {
	if v == "" {
		return violation{rule: RuleRequired}, c.Required
	}
	switch c.Kind {
	case Text:
		if len(v) <= c.MaxLength && plainText(v) && v[0] != '#' {
			return violation{}, false
		}
	case Digits:
		if len(v) == c.Length && allDigits(v) {
			return violation{}, false
		}
	case State:
		if len(v) == c.Length && allCapitals(v) {
			if indianStates.has(v) {
				return violation{}, false
			}
			return violation{rule: RuleStateCode}, true
		}
	case Country:
		if len(v) == 2 && isCountryCode(v) {
			return violation{}, false
		}
	case Amount:
		if bad, ok := checkAmount(v); !ok || bad.rule != RuleAmount {
			return bad, ok
		}
	}
	return c.checkSlowly(v)
}

// plainText reports whether v is printable ASCII without a question mark
// and without a space at either end: a text value that needs no closer
// look. It looks at eight bytes at a time.
func plainText(v string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	b := unsafe.Slice(unsafe.StringData(v), len(v)) // read only
	i, odd := 0, uint64(0)
	word := func(x uint64) {
		// A byte below ' ' borrows in x - 0x20.., one from 0x80 has its
		// high bit, and DEL and '?' become zero bytes in the xors.
		del, mark := x^(0x7f*ones), x^('?'*ones)
		odd |= (x - ' '*ones) | x | ((del - ones) &^ del) | ((mark - ones) &^ mark)
	}
	for ; i+8 <= len(b); i += 8 {
		word(binary.LittleEndian.Uint64(b[i:]))
	}
	if i < len(b) && len(b) >= 8 {
		// The last bytes, as the last eight: no byte is read twice in vain.
		word(binary.LittleEndian.Uint64(b[len(b)-8:]))
		i = len(b)
	}
	if odd&highs != 0 {
		return false
	}
	for ; i < len(b); i++ {
		if c := b[i]; c-' ' > '~'-' ' || c == '?' {
			return false
		}
	}
	return v[0] != ' ' && v[len(v)-1] != ' '
}

// checkSlowly is check for values the shortest ways did not clear: it
// decodes the text and looks for each rule in turn.
func (c *Column) checkSlowly(v string) (violation, bool) {
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
			if invisible(r) {
				return violation{rule: RuleInvisible}, true
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
	if v[0] == '#' && formulaError(v) {
		return violation{rule: RuleFormulaError}, true
	}
	switch c.Kind {
	case Text:
		if runes > c.MaxLength {
			return violation{rule: RuleMaxLength, limit: c.MaxLength, found: runes}, true
		}
		if strings.IndexByte(v, '?') >= 0 && lostText(v) {
			return violation{rule: RuleLostText}, true
		}
	case Digits:
		if len(v) != c.Length || !allDigits(v) {
			return violation{rule: RuleDigits, limit: c.Length}, true
		}
	case State:
		if len(v) != c.Length || !allCapitals(v) {
			return violation{rule: RuleCode, limit: c.Length}, true
		}
		if !indianStates.has(v) {
			return violation{rule: RuleStateCode}, true
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

// lostText reports whether v is text that Excel's ANSI "CSV (Comma
// delimited)" could not store: each Devanagari letter became a "?", so the
// value is mostly question marks, or holds a run of three or more.
func lostText(v string) bool {
	marks, others := 0, 0
	run, longest := 0, 0
	for _, r := range v {
		switch {
		case r == '?':
			marks++
			run++
			longest = max(longest, run)
			continue
		case r != ' ' && r != '.' && r != ',' && r != '-':
			others++
		}
		run = 0
	}
	return longest >= 3 || (marks >= 2 && marks >= others)
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

// invisible reports whether r is a character a spreadsheet shows as
// nothing or as a space, which a value copied from a web page or a PDF
// brings along: no-break spaces, zero-width spaces, word joiners, a byte
// order mark, a soft hyphen, direction marks. The zero-width joiner and
// non-joiner are not among them: Hindi and Marathi spelling uses them.
func invisible(r rune) bool {
	switch r {
	case '\u00a0', '\u2007', '\u202f', '\u200b', '\u2060', '\ufeff', '\u00ad', '\u200e', '\u200f', '\u180e':
		return true
	}
	return false
}

// invisibleChars are the characters invisible reports, for the Table
// Schema's pattern.
const invisibleChars = "\u00a0\u2007\u202f\u200b\u2060\ufeff\u00ad\u200e\u200f\u180e"

// noBreakSpace reports whether r is an invisible character that stands
// for a space (a value's words keep a space there).
func noBreakSpace(r rune) bool { return r == '\u00a0' || r == '\u2007' || r == '\u202f' }

// formulaErrors are the error values Excel, LibreOffice and Google Sheets
// show (and save) in a cell whose formula failed.
var formulaErrors = []string{"#REF!", "#N/A", "#VALUE!", "#DIV/0!", "#NAME?", "#NUM!", "#NULL!", "#SPILL!", "#CALC!", "#ERROR!", "#N/A!", "#GETTING_DATA", "#FIELD!", "#BLOCKED!", "#UNKNOWN!", "#BUSY!", "#CONNECT!", "#PYTHON!"}

// formulaError reports whether v is a formula's error value.
func formulaError(v string) bool {
	for _, e := range formulaErrors {
		if strings.EqualFold(v, e) {
			return true
		}
	}
	return false
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
