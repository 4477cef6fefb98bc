package formapi

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"freightsite/data"
)

// The field rules of data/forms.json, the one source the React forms
// (pages/lib/form.ts) read too. The API re-validates every submission with
// them, so a request that skips the browser gets the same answers.

// fieldError is one item of SPEC's errorMessageList: the field and the
// locales key of what is wrong with it.
type fieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

type check struct {
	Pattern   string `json:"pattern"`
	MinLength int    `json:"minLength"`
	MaxLength int    `json:"maxLength"`
	Message   string `json:"message"`
	re        *regexp.Regexp
}

type fieldRule struct {
	Field    string  `json:"field"`
	Required string  `json:"required"` // message key when blank; empty: optional
	Checks   []check `json:"checks"`
	// Multiline fields (a message) may hold line breaks; every other
	// field ends with forms.json's oneLine check.
	Multiline bool `json:"multiline"`
}

// formRules are one form's fields, in the order errors are listed.
type formRules []fieldRule

// parseForms reads forms.json: form name to its rules, each field that
// is not multiline ending with the oneLine check. Keys starting with "$"
// are comments.
func parseForms(raw []byte) (map[string]formRules, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("reading forms.json: %w", err)
	}
	var oneLine check
	if err := json.Unmarshal(top["oneLine"], &oneLine); err != nil || oneLine.Pattern == "" || oneLine.Message == "" {
		return nil, fmt.Errorf("reading forms.json: oneLine must be a check with a pattern and a message (%v)", err)
	}
	forms := map[string]formRules{}
	for name, body := range top {
		if strings.HasPrefix(name, "$") || name == "oneLine" {
			continue
		}
		var rules formRules
		if err := json.Unmarshal(body, &rules); err != nil {
			return nil, fmt.Errorf("reading forms.json, form %q: %w", name, err)
		}
		for i, f := range rules {
			if f.Field == "" {
				return nil, fmt.Errorf("forms.json, form %q: field %d has no name", name, i+1)
			}
			if !f.Multiline {
				f.Checks = append(f.Checks, oneLine)
				rules[i].Checks = f.Checks
			}
			for j, c := range f.Checks {
				if c.Message == "" {
					return nil, fmt.Errorf("forms.json, %s.%s check %d: no message", name, f.Field, j+1)
				}
				if c.Pattern == "" && c.MinLength == 0 && c.MaxLength == 0 {
					return nil, fmt.Errorf("forms.json, %s.%s check %d: neither pattern nor length", name, f.Field, j+1)
				}
				if c.Pattern != "" {
					re, err := regexp.Compile(c.Pattern)
					if err != nil {
						return nil, fmt.Errorf("forms.json, %s.%s check %d: %w", name, f.Field, j+1, err)
					}
					rules[i].Checks[j].re = re
				}
			}
		}
		forms[name] = rules
	}
	return forms, nil
}

func (f formRules) has(field string) bool {
	for _, r := range f {
		if r.Field == field {
			return true
		}
	}
	return false
}

// validate checks every field and returns the first failure of each, in
// the form's order. A blank optional field passes.
func (f formRules) validate(values map[string]string) []fieldError {
	var errs []fieldError
	for _, r := range f {
		if msg := r.check(values[r.Field]); msg != "" {
			errs = append(errs, fieldError{Field: r.Field, Message: msg})
		}
	}
	return errs
}

// check validates a request (a request type) against the rules.
func (f formRules) check(req any) []fieldError { return f.validate(fieldsOf(req)) }

func (r fieldRule) check(v string) string {
	if strings.TrimSpace(v) == "" {
		return r.Required
	}
	n := utf8.RuneCountInString(v)
	for _, c := range r.Checks {
		if (c.MinLength > 0 && n < c.MinLength) || (c.MaxLength > 0 && n > c.MaxLength) || (c.re != nil && !c.re.MatchString(v)) {
			return c.Message
		}
	}
	return ""
}

// mustParseForms reads the embedded data/forms.json; a broken file is a
// build mistake that the tests catch, so it panics.
func mustParseForms() map[string]formRules {
	forms, err := parseForms(data.File("forms.json"))
	if err != nil {
		panic(err)
	}
	return forms
}
