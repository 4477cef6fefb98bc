package formapi

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// FuzzDecodeFields: any body either decodes into fields of the form or is
// refused with a 4xx httpError; it never panics or accepts an unknown
// field. (go test -fuzz FuzzDecodeFields ./formapi runs it beyond the seeds.)
func FuzzDecodeFields(f *testing.F) {
	for _, seed := range []string{`{"name":"Ravi","email":"r@x.in"}`, `{"name":null}`, `{"name":5}`, `[]`, `{`, `{"x":"y"}`, `{"name":"a"}{}`, "{\"name\":\"\\u0000\"}", `"str"`, ``} {
		f.Add([]byte(seed))
	}
	rules := mustParseForms()["contact"]
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/api/contact_us", bytes.NewReader(body))
		fields, err := decodeFields(r, rules)
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
		}
	})
}
