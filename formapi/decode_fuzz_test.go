package formapi

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// FuzzDecodeJSON: any body either decodes into the form's request type
// or is refused with a 4xx httpError; it never panics or accepts an
// unknown field. (go test -fuzz FuzzDecodeJSON ./formapi runs it beyond
// the seeds.)
func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{`{"name":"Ravi","email":"r@x.in"}`, `{"name":null}`, `{"name":5}`, `[]`, `{`, `{"x":"y"}`, `{"name":"a"}{}`, "{\"name\":\"\\u0000\"}", `"str"`, ``} {
		f.Add([]byte(seed))
	}
	rules := mustParseForms()["contact"]
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/api/contact_us", bytes.NewReader(body))
		req, fields, err := decodeJSON[contactRequest](r)
		if err != nil {
			var he *httpError
			if !errors.As(err, &he) || he.status < 400 || he.status >= 500 {
				t.Fatalf("body %q: error %v is not a 4xx answer", body, err)
			}
			return
		}
		for name, v := range fields {
			if !rules.has(name) {
				t.Fatalf("body %q: unknown field %q accepted", body, name)
			}
			if checkText(name, v) != nil {
				t.Fatalf("body %q: control character accepted in %q", body, name)
			}
			if fieldsOf(req)[name] != v {
				t.Fatalf("body %q: field %q decoded as %q, sent as %q", body, name, fieldsOf(req)[name], v)
			}
		}
	})
}
