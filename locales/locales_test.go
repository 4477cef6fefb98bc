package locales

import "testing"

func TestT(t *testing.T) {
	for _, c := range []struct {
		lang, key string
		vars      map[string]string
		want      string
	}{
		{"en", "member.welcome", map[string]string{"name": "Meera Joshi"}, "Welcome, Meera Joshi!"},
		{"hi", "member.welcome", map[string]string{"name": "मीरा"}, "स्वागत है, मीरा!"},
		{"ma", "member.signOut", nil, "साइन आउट करा"},
		{"xx", "member.signOut", nil, "Sign out"},           // unknown language: the default
		{"en", "member.welcome", nil, "Welcome, {{name}}!"}, // a missing value stays visible
		{"en", "member.nothing", nil, "member.nothing"},     // a missing key gives the key
		{"en", "member", nil, "member"},                     // a namespace is not a text
		{"en", "member.title.deeper", nil, "member.title.deeper"},
	} {
		if got := T(c.lang, c.key, c.vars); got != c.want {
			t.Errorf("T(%s, %s) = %q, want %q", c.lang, c.key, got, c.want)
		}
	}
}
