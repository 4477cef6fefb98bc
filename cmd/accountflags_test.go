package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccountFlagsAreChecked: a wrong account setting stops the server
// before it starts, with exit code 2 and the setting named, from a flag or
// from its environment variable.
func TestAccountFlagsAreChecked(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--site-origin", "https://pune.example.com/path"}, nil, `site origin "https://pune.example.com/path"`},
		{nil, map[string]string{"FREIGHTSITE_BASE_URL": "example.com"}, `base URL "example.com"`},
		{[]string{"--recaptcha-verify-url", "siteverify"}, nil, "verify URL"},
		{[]string{"--sign-in-lockout", "soon"}, nil, "sign-in-lockout"},
	} {
		var out, errOut bytes.Buffer
		args := append([]string{"api", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "api.db")}, c.args...)
		code := Execute(args, func(k string) string { return c.env[k] }, &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v %v: exit %d, %q; want 2 naming %s", c.args, c.env, code, errOut.String(), c.want)
		}
	}
}
