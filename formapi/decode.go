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
	"reflect"
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

// Requests are read into request types: structs whose fields are all
// strings, each named by its json tag as SPEC (and data/forms.json) names
// it. A request type validates itself against its form's rules
// (formRules.check) and any rule of its own.

// requestFields are the json names of a request type's fields, in order.
func requestFields(t reflect.Type) []string {
	names := make([]string, t.NumField())
	for i := range names {
		f := t.Field(i)
		if f.Type.Kind() != reflect.String {
			panic("formapi: request field " + t.Name() + "." + f.Name + " is not a string")
		}
		names[i], _, _ = strings.Cut(f.Tag.Get("json"), ",")
	}
	return names
}

// fill sets the fields of req (a pointer to a request type) that values
// names.
func fill(req any, values map[string]string) {
	v := reflect.ValueOf(req).Elem()
	for i, name := range requestFields(v.Type()) {
		v.Field(i).SetString(values[name])
	}
}

// fieldsOf is a request's fields by name.
func fieldsOf(req any) map[string]string {
	v := reflect.ValueOf(req)
	out := map[string]string{}
	for i, name := range requestFields(v.Type()) {
		out[name] = v.Field(i).String()
	}
	return out
}

// decodeJSON reads a JSON body into a T (a request type), and also returns
// the fields as they were sent (the Idempotency-Key's fingerprint hashes
// them). A field may be absent or null (then ""). A body that is not JSON
// by its Content-Type (application/json or a +json type), malformed JSON,
// trailing data, other value types, fields T does not have and control
// characters are refused with a message naming the problem.
func decodeJSON[T any](r *http.Request) (T, map[string]string, error) {
	var req T
	names := requestFields(reflect.TypeFor[T]())
	fields, err := readJSONFields(r, func(name string) bool { return slices.Contains(names, name) })
	if err != nil {
		return req, nil, err
	}
	fill(&req, fields)
	return req, fields, nil
}

// readJSONFields reads a JSON object of string fields whose names known
// accepts.
func readJSONFields(r *http.Request, known func(string) bool) (map[string]string, error) {
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
		if !known(name) {
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

// decodeForm reads a form-encoded body into a T (a request type): every
// name and value checked as checkText checks a field, fields T does not
// have and fields given more than once refused.
func decodeForm[T any](r *http.Request) (T, error) {
	var req T
	if err := r.ParseForm(); err != nil {
		return req, badRequest("the body must be form-encoded: " + err.Error())
	}
	if err := checkValues("field", r.PostForm); err != nil {
		return req, err
	}
	names := requestFields(reflect.TypeFor[T]())
	fields := map[string]string{}
	for name, values := range r.PostForm {
		if !slices.Contains(names, name) {
			return req, badRequest("unknown field " + strconv.Quote(name))
		}
		if len(values) > 1 {
			return req, badRequest("field " + strconv.Quote(name) + " is given more than once")
		}
		fields[name] = values[0]
	}
	fill(&req, fields)
	return req, nil
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
