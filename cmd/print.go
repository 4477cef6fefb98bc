package cmd

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// printable is s as the commands print stored text a visitor may have
// typed: every control character (C0, DEL, C1), format character (bidi
// overrides and isolates, zero-width marks) and line or paragraph
// separator is written as a Go escape (\r, \u202e), bytes that are not
// UTF-8 as \xff, and a backslash as \\, so a value stays one cell of one
// row and shows in its own order. keepLines keeps line breaks and tabs, for
// a message body. ZWJ and ZWNJ stay: Devanagari needs them to join letters,
// and they can neither reorder text nor break a row.
func printable(s string, keepLines bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\u200c' || r == '\u200d':
			b.WriteRune(r)
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}
