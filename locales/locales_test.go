package locales

import "testing"

func TestN(t *testing.T) {
	for _, c := range []struct {
		lang  string
		count int
		want  string
	}{
		{"en", 1, "1 day ago"}, {"en", 10, "10 days ago"},
		{"hi", 1, "1 घंटा पहले"}, {"hi", 3, "3 घंटे पहले"},
		{"ma", 1, "1 तासापूर्वी"}, {"ma", 5, "5 तासांपूर्वी"},
	} {
		key := "newsFeed.ago.days"
		if c.lang != "en" {
			key = "newsFeed.ago.hours"
		}
		if got := N(c.lang, key, c.count); got != c.want {
			t.Errorf("N(%s, %s, %d) = %q, want %q", c.lang, key, c.count, got, c.want)
		}
	}
}

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
