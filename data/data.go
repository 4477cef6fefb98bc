// Package data holds the site's content and reference data (the JSON files
// beside this one) and their Go types. The files are embedded, so the API
// binary carries them; the generator reads the same files from the source
// tree it builds.
package data

import (
	"embed"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strings"
)

//go:embed *.json
var files embed.FS

// Language is one language of the site (SPEC §9: en, hi, ma).
type Language struct {
	Code     string `json:"code"`     // the SPEC code: en, hi, ma
	HTMLLang string `json:"htmlLang"` // the BCP 47 tag: en, hi, mr
	Prefix   string `json:"prefix"`   // URL prefix: "", "/hi", "/ma"
	Label    string `json:"label"`
	Locale   string `json:"locale"` // og:locale: en_IN, hi_IN, mr_IN
}

// Provider is the company behind the site.
type Provider struct {
	Name    string `json:"name"`
	Address string `json:"address"`
	Email   string `json:"email"`
	Phone   string `json:"phone"`
}

// Payment configures the external card payment provider of the donate page.
type Payment struct {
	DonationURL     string `json:"donationURL"`
	SubscriptionURL string `json:"subscriptionURL"`
	Currency        string `json:"currency"`
	ItemName        string `json:"itemName"`
}

// Settings is data/site.json.
type Settings struct {
	Name               string     `json:"name"`
	BaseURL            string     `json:"baseURL"`
	Languages          []Language `json:"languages"`
	Provider           Provider   `json:"provider"`
	CopyrightStartYear int        `json:"copyrightStartYear"`
	Payment            Payment    `json:"payment"`
	App                struct {
		AndroidURL string `json:"androidURL"`
		// ShortName and ThemeColor are the web app manifests' (the name
		// under the icon on a phone's home screen; the title bar's colour).
		ShortName  string `json:"shortName"`
		ThemeColor string `json:"themeColor"`
	} `json:"app"`
	Analytics struct {
		DataLayer     string `json:"dataLayer"`
		PageViewEvent string `json:"pageViewEvent"`
	} `json:"analytics"`
	// KeyFigures are the home page's figures: which it shows, in order,
	// and the least count of each that it shows (a smaller one would
	// undercut the page's claims rather than prove them).
	KeyFigures struct {
		Show    []string       `json:"show"`
		Minimum map[string]int `json:"minimum"`
	} `json:"keyFigures"`
}

// ParseSettings reads site.json's bytes.
func ParseSettings(raw []byte) (Settings, error) {
	var s Settings
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("reading site.json: %w", err)
	}
	if len(s.Languages) == 0 || s.Languages[0].Prefix != "" {
		return s, fmt.Errorf("reading site.json: the first language must be the unprefixed default")
	}
	return s, nil
}

// Site returns the embedded site.json.
func Site() Settings {
	raw, err := files.ReadFile("site.json")
	if err != nil {
		panic(err)
	}
	s, err := ParseSettings(raw)
	if err != nil {
		panic(err)
	}
	return s
}

// File returns one embedded file of this folder (forms.json, states.json,
// countries.json, news.json); the names are fixed at build time, so a
// missing one is a programming error.
func File(name string) []byte {
	raw, err := files.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return raw
}

// Count is the number of items of one embedded file that is a JSON array
// (members.json, news.json).
func Count(name string) int {
	var items []json.RawMessage
	if err := json.Unmarshal(File(name), &items); err != nil {
		panic(fmt.Errorf("data/%s: %w", name, err))
	}
	return len(items)
}

// IsLocalHost reports whether a host name (or IP address) can only be a
// development or example value: a loopback address, localhost, or a
// name reserved for examples and tests (RFC 2606, RFC 6761).
func IsLocalHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return ip.IsLoopback()
	}
	for _, reserved := range []string{"localhost", "example", "example.com", "example.net", "example.org", "test", "invalid"} {
		if host == reserved || strings.HasSuffix(host, "."+reserved) {
			return true
		}
	}
	return false
}

// IsLoopbackHost reports whether host names this machine only (localhost
// or a loopback address).
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return ip.IsLoopback()
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// Placeholders lists the settings that still hold a value no real site
// has (a loopback base URL, an example domain), as "name value", for the
// warnings of build, serve and api.
func (s Settings) Placeholders() []string {
	var out []string
	for _, v := range []struct{ name, value string }{
		{"baseURL", s.BaseURL},
		{"provider.email", s.Provider.Email},
		{"payment.donationURL", s.Payment.DonationURL},
		{"payment.subscriptionURL", s.Payment.SubscriptionURL},
		{"app.androidURL", s.App.AndroidURL},
	} {
		host := v.value
		if _, domain, ok := strings.Cut(v.value, "@"); ok && !strings.Contains(v.value, "/") {
			host = domain
		} else if u, err := url.Parse(v.value); err == nil {
			host = u.Hostname()
		}
		if IsLocalHost(host) {
			out = append(out, v.name+" "+v.value)
		}
	}
	return out
}

// KeyValue is an entry of countries.json and states.json (SPEC §3's
// country and state lists): the code and the English name.
type KeyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// State is an entry of states.json: the code and English name, and the
// name in the site's other languages.
type State struct {
	KeyValue
	Translations map[string]struct {
		Value string `json:"value"`
	} `json:"translations"`
}

// States returns states.json: each country's states and union
// territories by its ISO code (keys starting with $ are comments).
func States() map[string][]State {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(File("states.json"), &raw); err != nil {
		panic("data/states.json: " + err.Error())
	}
	states := map[string][]State{}
	for country, list := range raw {
		if country[0] == '$' {
			continue
		}
		var entries []State
		if err := json.Unmarshal(list, &entries); err != nil {
			panic("data/states.json, " + country + ": " + err.Error())
		}
		states[country] = entries
	}
	return states
}
