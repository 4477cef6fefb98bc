// Package data holds the site's content and reference data (the JSON files
// beside this one) and their Go types. The files are embedded, so the API
// binary carries them; the generator reads the same files from the source
// tree it builds.
package data

import (
	"embed"
	"encoding/json"
	"fmt"
)

//go:embed *.json
var files embed.FS

// Language is one language of the site (SPEC §9: en, hi, ma).
type Language struct {
	Code     string `json:"code"`     // the SPEC code: en, hi, ma
	HTMLLang string `json:"htmlLang"` // the BCP 47 tag: en, hi, mr
	Prefix   string `json:"prefix"`   // URL prefix: "", "/hi", "/ma"
	Label    string `json:"label"`
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
	} `json:"app"`
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

// KeyValue is an entry of countries.json and states.json (SPEC §3's
// country and state lists): the code and the English name.
type KeyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// States returns states.json: each country's states and union
// territories by its ISO code (keys starting with $ are comments).
func States() map[string][]KeyValue {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(File("states.json"), &raw); err != nil {
		panic("data/states.json: " + err.Error())
	}
	states := map[string][]KeyValue{}
	for country, list := range raw {
		if country[0] == '$' {
			continue
		}
		var kv []KeyValue
		if err := json.Unmarshal(list, &kv); err != nil {
			panic("data/states.json, " + country + ": " + err.Error())
		}
		states[country] = kv
	}
	return states
}
