package formapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// requireMediaType refuses a body whose Content-Type is not one of want
// (parameters such as charset=utf-8 are allowed).
func requireMediaType(r *http.Request, want ...string) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || !slices.Contains(want, strings.ToLower(mt)) {
		return &httpError{http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type must be %s, not %q", strings.Join(want, " or "), r.Header.Get("Content-Type")), "api.errors.badRequest"}
	}
	return nil
}

// decodeFields reads a JSON object of string fields: the form's fields
// plus any extra names allowed. A body that is not JSON by its
// Content-Type (application/json or a +json type), malformed JSON,
// trailing data, other value types, unknown fields and control characters
// are refused with a message naming the problem.
func decodeFields(r *http.Request, rules formRules, extra ...string) (map[string]string, error) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); !strings.HasSuffix(strings.ToLower(mt), "+json") {
		if err := requireMediaType(r, "application/json"); err != nil {
			return nil, err
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return nil, badRequest("the body must be one JSON object: " + describeJSONError(err))
	}
	if dec.More() || dec.InputOffset() < int64(len(bytes.TrimRight(body, " \t\r\n"))) {
		return nil, badRequest("the body must be one JSON object with nothing after it")
	}
	fields := map[string]string{}
	for name, value := range raw {
		if !rules.has(name) && !slices.Contains(extra, name) {
			return nil, badRequest(fmt.Sprintf("unknown field %q", name))
		}
		// encoding/json would turn bytes that are not UTF-8, and escapes
		// of half a surrogate pair, into U+FFFD without a word; they are
		// refused, as in a multipart field.
		if !utf8.Valid(value) {
			return nil, notUTF8(name)
		}
		var s *string
		if err := json.Unmarshal(value, &s); err != nil {
			return nil, badRequest(fmt.Sprintf("field %q must be a string", name))
		}
		if s == nil {
			continue
		}
		if hasLoneSurrogate(value) {
			return nil, notUTF8(name)
		}
		if err := checkText(name, *s); err != nil {
			return nil, err
		}
		fields[name] = *s
	}
	return fields, nil
}

func describeJSONError(err error) string {
	var syn *json.SyntaxError
	switch {
	case err == nil:
		return "got null"
	case errors.As(err, &syn):
		return fmt.Sprintf("malformed JSON at byte %d: %v", syn.Offset, err)
	case errors.Is(err, io.EOF):
		return "the body is empty"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON: it ends too early"
	default:
		return "malformed JSON: " + err.Error()
	}
}

// hasLoneSurrogate reports whether a JSON string (valid JSON) holds a
// \u escape of half a UTF-16 surrogate pair without its other half, such
// as "\ud800": no character, which encoding/json would also turn into
// U+FFFD without a word.
func hasLoneSurrogate(v []byte) bool {
	escape := func(i int) rune { // the \uXXXX at v[i:], or -1
		if i+6 > len(v) || v[i] != '\\' || v[i+1] != 'u' {
			return -1
		}
		n, err := strconv.ParseUint(string(v[i+2:i+6]), 16, 16)
		if err != nil {
			return -1
		}
		return rune(n)
	}
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			continue
		}
		r := escape(i)
		if r < 0 {
			i++ // another escape: skip the character it escapes
			continue
		}
		i += 5
		if !utf16.IsSurrogate(r) {
			continue
		}
		if utf16.DecodeRune(r, escape(i+1)) == unicode.ReplacementChar {
			return true
		}
		i += 6
	}
	return false
}

func notUTF8(field string) error {
	return badRequest(fmt.Sprintf("field %q is not valid UTF-8", field))
}

// checkText refuses text that is not UTF-8, and control characters other
// than tab and line breaks: no form field needs them and they only serve
// to confuse logs and mail, and PostgreSQL refuses such text (NUL above
// all) with an error, not an answer. (One-line fields refuse more, with
// their field message: forms.json's oneLine.)
func checkText(field, s string) error { return checkNamedText("field", field, s) }

func checkNamedText(kind, name, s string) error {
	if !utf8.ValidString(s) {
		return badRequest(fmt.Sprintf("%s %q is not valid UTF-8", kind, name))
	}
	for _, c := range s {
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
			return badRequest(fmt.Sprintf("%s %q contains a control character (U+%04X)", kind, name, c))
		}
	}
	return nil
}

// query is the request's query parameters, each name and value checked
// as checkText checks a field, so no call passes such text on to the
// database. Pairs that are not percent-encoded properly are left out, as
// url.URL.Query leaves them.
func query(r *http.Request) (url.Values, error) {
	q, _ := url.ParseQuery(r.URL.RawQuery)
	return q, checkValues("query parameter", q)
}

// checkValues checks every name and value of a query or a form-encoded
// body (kind says which, for the message).
func checkValues(kind string, v url.Values) error {
	for name, values := range v {
		if err := checkNamedText(kind+" name", name, name); err != nil {
			return err
		}
		for _, s := range values {
			if err := checkNamedText(kind, name, s); err != nil {
				return err
			}
		}
	}
	return nil
}
