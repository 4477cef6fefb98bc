package receivables

import (
	"fmt"
	"strconv"
	"strings"
)

// errorReason is a value's or row's problem in plain English, for people
// reading the command's output, with what to type instead when known.
func errorReason(p *Problem) string {
	switch p.Rule {
	case RuleUnquotedComma:
		return fmt.Sprintf("expected %d columns, found %d: the comma in %q is not inside quotes, so %s went into the next %s: put the value in double quotes, %s",
			p.Limit, p.Found, p.Value, quotedParts(p.Parts[1:]), plural(len(p.Parts)-1, "column", "columns"), p.Suggestion)
	case RuleSplitAmount:
		return fmt.Sprintf("expected %d columns, found %d: the commas of %s are not inside quotes, so the amount was cut into %s: type %s instead (no thousands separators)",
			p.Limit, p.Found, p.Value, strings.Join(p.Parts, " / "), p.Suggestion)
	}
	parts := []string{requirement(p.Rule, p)}
	for _, r := range p.Also {
		parts = append(parts, requirement(r, p))
	}
	s := strings.Join(parts, "; ")
	switch {
	case p.Suggestion == "0" && p.Rule == RuleRequired:
		s += ": type 0 when nothing is due"
	case p.Suggestion != "" && p.Rule == RuleShorthand:
		s += ": type the whole figure, " + p.Suggestion
	case p.Suggestion != "":
		s += ": type " + typed(p.Suggestion) + " instead"
	}
	return s
}

// quotedParts shows a value's pieces: " Pune" and "Maharashtra".
func quotedParts(parts []string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = strconv.Quote(p)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// invisibleNames name the invisible characters as a person would.
var invisibleNames = map[string]string{
	"U+00A0": "a no-break space", "U+2007": "a figure space", "U+202F": "a narrow no-break space",
	"U+200B": "a zero-width space", "U+2060": "a word joiner", "U+FEFF": "a zero-width no-break space (byte order mark)",
	"U+00AD": "a soft hyphen", "U+200E": "a left-to-right mark", "U+200F": "a right-to-left mark", "U+180E": "a Mongolian vowel separator",
}

// invisiblePlace says where a value's invisible character sits.
func invisiblePlace(p *Problem) string {
	switch p.CharPlace {
	case "start":
		return "at the start"
	case "end":
		return "at the end"
	}
	runes := []rune(p.Value)
	if p.CharAt-1 > len(runes) || p.CharAt < 2 {
		return fmt.Sprintf("as character %d", p.CharAt)
	}
	before := runes[max(0, p.CharAt-1-12) : p.CharAt-1]
	return fmt.Sprintf("after %q", string(before))
}

// typed shows a value to type: bare when it has no space, quoted otherwise.
func typed(v string) string {
	if strings.ContainsRune(v, ' ') {
		return strconv.Quote(v)
	}
	return v
}

// requirement says what a value or row rule asks for.
func requirement(r Rule, p *Problem) string {
	limit, found := p.Limit, p.Found
	switch r {
	case RuleRequired:
		return "required"
	case RuleMaxLength:
		return fmt.Sprintf("at most %d characters (has %d)", limit, found)
	case RuleDigits:
		return fmt.Sprintf("must be exactly %d digits", limit)
	case RuleDigitsLost:
		return "Excel turned this number into scientific notation and its last digits are lost: format the column as Text, then type the number again"
	case RuleCode:
		return fmt.Sprintf("must be %d capital letters, like MH", limit)
	case RuleStateCode:
		return "is not the code of an Indian state or union territory"
	case RuleCountry:
		return "must be a 2-letter ISO 3166 country code in capitals, like IN"
	case RulePostalCode:
		return "may hold only letters, digits, spaces and hyphens"
	case RuleAmount:
		return "must be an amount like 1250.50 or -75 (digits, optional minus for credits, no commas or symbols)"
	case RuleThousands:
		return "no thousands separators"
	case RuleCurrency:
		return "no ₹, Rs. or INR sign"
	case RuleCredit:
		return "a credit is written with a leading minus"
	case RuleScientific:
		return "Excel wrote this amount in scientific notation (check it is the whole amount, and format the column as Number with 2 decimals before saving)"
	case RuleDecimalComma:
		return "the decimal mark is a point, not a comma"
	case RuleAmountDigits:
		return fmt.Sprintf("at most %d digits before the decimal point", limit)
	case RuleDecimals:
		return fmt.Sprintf("at most %d decimal places", limit)
	case RuleSpaces:
		return "must not start or end with a space"
	case RuleOneLine:
		return "must be on one line, without line breaks, tabs or other control characters"
	case RuleInvisible:
		return fmt.Sprintf("holds an invisible character, %s (%s), %s (copied from a web page or a PDF?)", invisibleNames[p.Char], p.Char, invisiblePlace(p))
	case RuleFormulaError:
		return "is a spreadsheet formula's error, not a value: correct the formula in Excel, or copy the column and use Paste Special, Values, then save again"
	case RuleLeadingZero:
		return fmt.Sprintf("Excel dropped the leading zero of this %d-digit number: format the column as Text (Format Cells, Text) and type the number with its zero", limit)
	case RuleDrCr:
		return "Dr and Cr are not written: a debit is the amount as it is, a credit takes a minus"
	case RuleZero:
		return `"-" (Excel's Accounting format) and NIL stand for zero here`
	case RuleAmountNeeded:
		return "an amount is needed here, not a word: type the amount due, or 0 when nothing is due"
	case RuleDate:
		return "is a date, not an amount: Excel formatted the cell as a date. Format it as Number (Format Cells, Number) and type the amount"
	case RuleShorthand:
		return "lakh (L), crore (Cr) and thousand (k) are not written short"
	case RuleUnquotedComma:
		return "a comma not inside quotes cut the value in two: put it in double quotes"
	case RuleSplitAmount:
		return "grouping commas not inside quotes cut the amount: type it without them"
	case RuleEncoding:
		return `is not UTF-8 text: save the file as "CSV UTF-8"`
	case RuleLostText:
		return `its letters were lost when the file was saved as ANSI: save it as "CSV UTF-8"`
	case RuleColumns:
		if len(p.Columns) > 0 {
			names := make([]string, len(p.Columns))
			for i, c := range p.Columns {
				names[i] = fmt.Sprintf("%s (%s)", c.Letter, c.Name)
			}
			list := names[0]
			if len(names) > 1 {
				list = strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
			}
			return fmt.Sprintf("expected %d columns, found %d: a comma not inside quotes has cut a value of %s: put that value in double quotes", limit, found, list)
		}
		return fmt.Sprintf("expected %d columns, found %d", limit, found)
	case RuleQuote:
		return `a quoted value is not closed, or has text after its closing quote (write a quote inside quotes as "")`
	case RuleBareQuote:
		return `a quote (") inside a value that does not start with a quote: put the value in quotes and double the quote ("")`
	case RuleTotalsRow:
		return "this is a totals row, not an account: delete it"
	}
	return string(r)
}

// warningReason says what a warning is about and what to do.
func warningReason(p *Problem) string {
	if p.Rule == RuleDuplicateRow {
		return fmt.Sprintf("this row is a copy of row %d, value for value: delete one of them", p.SameAs)
	}
	return fmt.Sprintf("the account of row %d again: the import would take it twice. Keep one row, or give each its own account number", p.SameAs)
}

const saveAsCSV = `"CSV UTF-8 (Comma delimited)"`

// causeReason says what is wrong with the file as a whole and what to do.
func causeReason(p *Problem) string {
	if len(p.Columns) > 0 && p.Rule != RuleColumns {
		return columnCauseReason(p)
	}
	switch p.Rule {
	case RuleEmpty:
		return "the file is empty: the first line must be the heading, then one line per account"
	case RuleNotCSV:
		return "this is not CSV text (a PDF or another binary file): save the receivables from Excel as " + saveAsCSV
	case RuleWorkbook:
		return "this is an Excel workbook, not a CSV file: open it in Excel and use Save As, " + saveAsCSV
	case RuleUnicodeText:
		return `this is Excel's "Unicode Text" (UTF-16, values separated by tabs), not CSV: open it in Excel and use Save As, ` + saveAsCSV
	case RuleLineEnds:
		return `lines end with a bare carriage return (Excel for Mac's "CSV (Macintosh)"): the rows were checked, but the import reads Windows (CRLF) or Unix (LF) line ends only. In Excel use Save As, ` + saveAsCSV
	case RuleGroupHeadings:
		if p.Count == 1 {
			return fmt.Sprintf("row %d holds only a label (%q): a group heading of a report with merged cells, not an account: delete it", p.Row, p.Value)
		}
		return fmt.Sprintf("%s rows hold only a label (%q, first row %d): group headings of a report with merged cells, not accounts: delete them", count(p.Count), p.Value, p.Row)
	case RuleRowLength:
		return fmt.Sprintf("this row is longer than %d bytes, so reading stopped (is a quote left open?)", p.Limit)
	case RuleOtherFormat:
		return fmt.Sprintf("none of rows %s–%s has %d columns (row %s has %s): this is not a file in the import format, so checking stopped at row %s. Save the receivables in the columns of the sample file",
			count(p.Row), count(p.LastRow), p.Limit, count(p.Row), plural(p.Found, "1 column", count(p.Found)+" columns"), count(p.LastRow))
	case RuleSeparator:
		switch p.Value {
		case ";":
			return "the values are separated by semicolons (;), not commas: Excel used your computer's list separator. Set the list separator to a comma (Windows: Region, Additional settings) and save the file again as " + saveAsCSV
		case "\t":
			return `the values are separated by tabs (a "Text (Tab delimited)" file), not commas: open it in Excel and use Save As, ` + saveAsCSV
		}
		return fmt.Sprintf("the values are separated by %q, not commas: export the report as CSV again, or open it in Excel and use Save As, %s", p.Value, saveAsCSV)
	case RuleSepLine:
		return fmt.Sprintf("line 1 is %q, an instruction Excel reads and hides: the import would take it for the heading. Open the file in Excel and save it again as %s (Excel leaves the line out), or delete line 1 in Notepad", p.Value, saveAsCSV)
	case RuleLinesAboveHeading:
		rows, verb := rowRange(p, "comes", "come")
		return fmt.Sprintf("%s %s before the heading (%q: a report title?): delete %s so that the heading is row 1", rows, verb, p.Value, rows)
	case RuleHeadingMissing:
		rows, verb := rowRange(p, "is", "are")
		return fmt.Sprintf("%s (%q) %s neither the heading nor accounts, and the file has no heading: put the heading line of the sample file in place of %s", rows, p.Value, verb, rows)
	case RuleHeadingIsData:
		return fmt.Sprintf("row %d is the account %s, not the heading: the import skips the first row, so this account would be lost. Insert the heading line of the sample file above it", p.Row, p.Value)
	case RuleColumnOrder:
		s := fmt.Sprintf("column %s is headed %q, but %s belongs in column %s: put the columns in the order of the sample file",
			p.ColumnLetter, p.Value, p.ColumnName, ColumnLetter(p.Limit))
		if p.Column <= ColumnCount {
			s += fmt.Sprintf(" (%s is %s)", p.ColumnLetter, Format.Columns[p.Column-1].Name)
		}
		return s
	case RuleMissingColumn:
		return fmt.Sprintf("the heading has no %s column (column %s of the sample file): insert it, empty if you have no values for it", p.ColumnName, p.ColumnLetter)
	case RuleExtraColumn:
		if p.Value == "" {
			return fmt.Sprintf("column %s has no heading and is not a column of the format: delete it", p.ColumnLetter)
		}
		return fmt.Sprintf("column %s (%q) is not a column of the format, or is there twice: delete it", p.ColumnLetter, p.Value)
	case RuleTrailingColumns:
		cols := trailingColumns(p.Found)
		return fmt.Sprintf("%s %s empty cells after column %s, which Excel adds when cells there were once used: delete %s %s",
			count(p.Count), plural(p.Count, "row has", "rows have"), ColumnLetter(ColumnCount), plural(p.Found-ColumnCount, "column", "columns"), cols)
	case RuleEmptyRows:
		return fmt.Sprintf("%s %s only commas (no values), first row %d: delete %s", count(p.Count), plural(p.Count, "row holds", "rows hold"), p.Row, plural(p.Count, "it", "them"))
	case RuleTotalsRow:
		return fmt.Sprintf("the last row (row %d, %q) is a totals row, not an account: delete it", p.Row, p.Value)
	case RuleEncoding, RuleLostText:
		what := fmt.Sprintf("%s %s not UTF-8 text", count(p.Count), plural(p.Count, "value is", "values are"))
		if p.Rule == RuleLostText {
			what = fmt.Sprintf("Hindi or Marathi letters were lost in %s %s (they became question marks)", count(p.Count), plural(p.Count, "value", "values"))
		}
		return fmt.Sprintf("%s, first in %s%d (%s, %q): the file was saved as ANSI \"CSV (Comma delimited)\". Save the original again as %s",
			what, p.ColumnLetter, p.Row, p.ColumnName, p.Value, saveAsCSV)
	}
	return string(p.Rule)
}

// rowRange names the rows of a problem ("row 3", "rows 1–4") and picks
// the verb that goes with them.
func rowRange(p *Problem, one, other string) (rows, verb string) {
	if p.LastRow == p.Row {
		return fmt.Sprintf("row %d", p.Row), one
	}
	return fmt.Sprintf("rows %d–%d", p.Row, p.LastRow), other
}

// groupNames name the problems of a summary group: "amounts with thousands
// separators" (one form and other form).
var groupNames = map[Rule][2]string{
	RuleRequired:      {"empty value", "empty values"},
	RuleMaxLength:     {"value longer than %d characters", "values longer than %d characters"},
	RuleDigits:        {"value that is not exactly %d digits", "values that are not exactly %d digits"},
	RuleDigitsLost:    {"number Excel turned into scientific notation, its digits lost", "numbers Excel turned into scientific notation, their digits lost"},
	RuleCode:          {"value that is not %d capital letters", "values that are not %d capital letters"},
	RuleStateCode:     {"code that is not an Indian state or union territory", "codes that are not an Indian state or union territory"},
	RuleCountry:       {"value that is not a country code", "values that are not a country code"},
	RulePostalCode:    {"value with characters other than letters, digits, spaces and hyphens", "values with characters other than letters, digits, spaces and hyphens"},
	RuleAmount:        {"value that is not an amount", "values that are not amounts"},
	RuleThousands:     {"amount with thousands separators", "amounts with thousands separators"},
	RuleCurrency:      {"amount with a ₹, Rs. or INR sign", "amounts with a ₹, Rs. or INR sign"},
	RuleCredit:        {"credit in brackets or with a trailing minus", "credits in brackets or with a trailing minus"},
	RuleScientific:    {"amount in scientific notation", "amounts in scientific notation"},
	RuleDecimalComma:  {"amount with a decimal comma", "amounts with a decimal comma"},
	RuleAmountDigits:  {"amount with more than %d digits before the point", "amounts with more than %d digits before the point"},
	RuleDecimals:      {"amount with more than %d decimals", "amounts with more than %d decimals"},
	RuleSpaces:        {"value starting or ending with a space", "values starting or ending with a space"},
	RuleOneLine:       {"value with a line break or tab", "values with a line break or tab"},
	RuleInvisible:     {"value with an invisible character", "values with invisible characters"},
	RuleFormulaError:  {"formula error (#REF!, #N/A...)", "formula errors (#REF!, #N/A...)"},
	RuleLeadingZero:   {"number without its leading zero", "numbers without their leading zero"},
	RuleDrCr:          {"amount marked Dr or Cr", "amounts marked Dr or Cr"},
	RuleZero:          {`zero written "-" or NIL`, `zeros written "-" or NIL`},
	RuleAmountNeeded:  {"word where an amount belongs", "words where amounts belong"},
	RuleDate:          {"date where an amount belongs", "dates where amounts belong"},
	RuleShorthand:     {"amount in lakh, crore or thousand written short", "amounts in lakh, crore or thousand written short"},
	RuleUnquotedComma: {"value cut at a comma not in quotes", "values cut at commas not in quotes"},
	RuleSplitAmount:   {"amount cut at its grouping commas", "amounts cut at their grouping commas"},
	RuleAccounting:    {"amount in Excel's Accounting format", "amounts in Excel's Accounting format"},
	RuleEncoding:      {"value that is not UTF-8 text", "values that are not UTF-8 text"},
	RuleLostText:      {"value whose letters became question marks", "values whose letters became question marks"},
	RuleColumns:       {"row without 25 columns", "rows without 25 columns"},
	RuleQuote:         {"row with a quote not closed", "rows with a quote not closed"},
	RuleBareQuote:     {"row with a stray quote", "rows with a stray quote"},
	RuleTotalsRow:     {"totals row", "totals rows"},
}

// describeGroup is a summary line: "S: Days 1-15 … Y: Over 91 Days:
// 1,348,942 amounts with thousands separators, first on rows 2, 3 and 4".
func describeGroup(g *Group) string {
	names := groupNames[g.Rule]
	name := names[1]
	if g.Count == 1 {
		name = names[0]
	}
	if strings.Contains(name, "%d") {
		name = fmt.Sprintf(name, g.Limit)
	}
	var cols string
	switch n := len(g.Columns); {
	case n == 1:
		cols = g.Columns[0].Letter + ": " + g.Columns[0].Name + ": "
	case n > 1:
		cols = g.Columns[0].Letter + ": " + g.Columns[0].Name + " … " + g.Columns[n-1].Letter + ": " + g.Columns[n-1].Name + ": "
	}
	rows := make([]string, len(g.Rows))
	for i, r := range g.Rows {
		rows[i] = strconv.Itoa(r)
	}
	first := "row " + rows[0]
	if len(rows) > 1 {
		first = "rows " + strings.Join(rows[:len(rows)-1], ", ") + " and " + rows[len(rows)-1]
	}
	return fmt.Sprintf("%s%s %s, first on %s", cols, count(g.Count), name, first)
}

// columnList names columns: "S (Days 1-15)", "S–Y (Days 1-15 … Over 91
// Days)", "S, V and Y (Days 1-15, Days 46-60 and Over 91 Days)".
func columnList(cols []ColumnRef) (letters, names string) {
	n := len(cols)
	if n == 1 {
		return cols[0].Letter, cols[0].Name
	}
	if n > 2 && cols[n-1].Column-cols[0].Column == n-1 {
		return cols[0].Letter + "–" + cols[n-1].Letter, cols[0].Name + " … " + cols[n-1].Name
	}
	l, m := make([]string, n), make([]string, n)
	for i, c := range cols {
		l[i], m[i] = c.Letter, c.Name
	}
	and := func(s []string) string { return strings.Join(s[:n-1], ", ") + " and " + s[n-1] }
	return and(l), and(m)
}

// excelFixes say how to correct a whole column in Excel, for the rules
// that have a way ("%s" is the columns).
var excelFixes = map[Rule]string{
	RuleAccounting:   "select %s, Format Cells, Number: 2 decimal places, no 1000 separator, negative numbers as -1234.10; then save again as " + saveAsCSV,
	RuleThousands:    "select %s, Format Cells, Number, and clear Use 1000 Separator; then save again as " + saveAsCSV,
	RuleCurrency:     "select %s, Format Cells, Number (not Currency or Accounting); then save again as " + saveAsCSV,
	RuleCredit:       "select %s, Format Cells, Number, negative numbers as -1234.10; then save again as " + saveAsCSV,
	RuleZero:         "select %s, Format Cells, Number (the Accounting format writes zero as -), and replace NIL with 0 (Ctrl+H); then save again as " + saveAsCSV,
	RuleScientific:   "select %s, Format Cells, Number, 2 decimal places, and check the amounts are whole; then save again as " + saveAsCSV,
	RuleDecimalComma: "Excel used your region's decimal comma: set the decimal symbol to a point (Windows: Region, Additional settings) and save again, or replace the commas with points in %s (Ctrl+H)",
	RuleSpaces:       "for each column, type =TRIM() of its first cell in an empty column, fill it down, copy it and use Paste Special, Values over the column (%s); then save again as " + saveAsCSV,
	RuleRequired:     "select %s, Home, Find & Select, Go To Special, Blanks, type 0 and press Ctrl+Enter",
	RuleDate:         "select %s, Format Cells, Number, and type the amounts again",
	RuleLeadingZero:  "select %s, Format Cells, Text, and type the numbers again with their zeros",
	RuleDigitsLost:   "select %s, Format Cells, Text, and type the numbers again",
}

// columnCauseReason says a problem that runs through columns once, with
// how to correct them in Excel.
func columnCauseReason(p *Problem) string {
	letters, names := columnList(p.Columns)
	what := groupNames[p.Rule][1]
	if strings.Contains(what, "%d") {
		what = fmt.Sprintf(what, p.Limit)
	}
	first := fmt.Sprintf("%s%d", p.ColumnLetter, p.Row)
	if p.Value != "" {
		first += fmt.Sprintf(", %q", p.Value)
	}
	do := requirement(p.Rule, p)
	if fix, ok := excelFixes[p.Rule]; ok {
		cols := "column " + letters
		if len(p.Columns) > 1 {
			cols = "columns " + letters
		}
		do = fmt.Sprintf(fix, cols)
	}
	return fmt.Sprintf("%s (%s): %s %s, first %s: %s", letters, names, count(p.Count), what, first, do)
}

// trailingColumns names the columns after the last one of the format, up
// to column found: "Z", "Z–AB".
func trailingColumns(found int) string {
	if found == ColumnCount+1 {
		return ColumnLetter(found)
	}
	return ColumnLetter(ColumnCount+1) + "–" + ColumnLetter(found)
}
