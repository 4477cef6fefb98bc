// Package plaintext says what text the site shows to people may hold: no
// control characters but line breaks and tabs in running text, no line or
// paragraph separators, and no format characters (Unicode category Cf:
// bidi controls that reorder what is shown, zero-width spaces and joiners,
// soft hyphens, word joiners, byte order marks), which make one name look
// like another or hide text in mail, pages and logs. The one exception is
// a zero-width joiner or non-joiner right after a virama, which Devanagari
// and the other Indic scripts need to choose a letter's form (Marathi's
// eyelash ra is र्‍). data/forms.json's oneLine pattern is the same rule for
// the forms; a test keeps the two equal.
package plaintext

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Viramas are the virama signs of the Indic scripts, after which a
// zero-width joiner (U+200D) or non-joiner (U+200C) is allowed.
const Viramas = "\u094d\u09cd\u0a4d\u0acd\u0b4d\u0bcd\u0c4d\u0ccd\u0d4d"

// Hidden reports whether r is a character text shown to people never
// needs (outside the joiners after a virama): a control character, a
// format character, or a line or paragraph separator.
func Hidden(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// CheckLine refuses what a one-line value (a name, a title, a subject)
// must not hold: every Hidden character, line breaks and tabs included.
// The error names the first such character and what it is.
func CheckLine(s string) error { return check(s, false) }

// CheckText is CheckLine for running text that may have several lines:
// line breaks (LF, CR) and tabs are allowed.
func CheckText(s string) error { return check(s, true) }

func check(s string, lines bool) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("not valid UTF-8")
	}
	var prev rune
	for _, r := range s {
		switch {
		case lines && (r == '\n' || r == '\r' || r == '\t'):
		case (r == '\u200c' || r == '\u200d') && isVirama(prev):
		case Hidden(r):
			return fmt.Errorf("contains U+%04X, %s", r, describe(r))
		}
		prev = r
	}
	return nil
}

func isVirama(r rune) bool {
	for _, v := range Viramas {
		if r == v {
			return true
		}
	}
	return false
}

func describe(r rune) string {
	switch {
	case r == '\n' || r == '\r' || r == '\u0085':
		return "a line break"
	case r == '\t':
		return "a tab"
	case unicode.Is(unicode.Cc, r):
		return "a control character"
	case unicode.In(r, unicode.Zl, unicode.Zp):
		return "a line or paragraph separator"
	case unicode.Is(unicode.Bidi_Control, r):
		return "a bidi control, which reorders the text shown"
	default:
		return "an invisible format character"
	}
}
