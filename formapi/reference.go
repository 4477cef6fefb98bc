package formapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"freightsite/data"
	"freightsite/internal/store"
)

// keyValue is an entry of the country and state lists (SPEC §3).
type keyValue = data.KeyValue

// stateLists are the states of data/states.json by country code.
type stateLists map[string][]data.State

// in returns a country's states with their names in lang (a language code
// of the site; "" or one without a translation gives English); nil for a
// country with none listed.
func (s stateLists) in(country, lang string) []keyValue {
	var out []keyValue
	for _, e := range s[country] {
		kv := e.KeyValue
		if t, ok := e.Translations[lang]; ok && t.Value != "" {
			kv.Value = t.Value
		}
		out = append(out, kv)
	}
	return out
}

// referenceLists reads data/countries.json and data/states.json once.
func referenceLists() (countries []keyValue, states stateLists) {
	if err := json.Unmarshal(data.File("countries.json"), &countries); err != nil {
		panic("data/countries.json: " + err.Error())
	}
	return countries, data.States()
}

// cacheable lets browsers and proxies keep an answer that changes only
// with a release.
func cacheable(w http.ResponseWriter, seconds string) {
	w.Header().Set("Cache-Control", "public, max-age="+seconds)
}

// handleCountries answers GET /countries.
func handleCountries(countries []keyValue) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cacheable(w, "86400")
		writeJSON(w, http.StatusOK, countries)
	})
}

var countryCode = regexp.MustCompile(`^[A-Za-z]{2}$`)

// handleStates answers GET /states?country_id=IN[&lang=hi]: the country's
// states, named in the language asked for (English by default), or an
// empty list for a country with none listed.
func handleStates(states stateLists, site siteInfo) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		q, err := query(r)
		if err != nil {
			return err
		}
		id := q.Get("country_id")
		if !countryCode.MatchString(id) {
			return badRequest("country_id must be a two-letter ISO country code such as IN")
		}
		lang := q.Get("lang")
		if lang != "" && site.language(lang) != lang {
			return badRequest(fmt.Sprintf("lang %q is not a language of the site (en, hi, ma)", lang))
		}
		list := states.in(strings.ToUpper(id), lang)
		if list == nil {
			list = []keyValue{}
		}
		cacheable(w, "86400")
		writeJSON(w, http.StatusOK, list)
		return nil
	})
}

// The e-mail uniqueness call (SPEC §7) speaks a versioned JSON media type
// and must carry the Ajax marker header.
const (
	uniquenessMediaType = "application/vnd.freightsite.v1+json"
	ajaxHeader          = "X-Requested-With"
	ajaxMarker          = "XMLHttpRequest"
)

// uniquenessRequest is the body of POST /api/email/uniqueness.
type uniquenessRequest struct {
	Email string `json:"email"`
}

func (u uniquenessRequest) validate(rules formRules) []fieldError { return rules.check(u) }

// handleEmailUniqueness answers POST /api/email/uniqueness {email}: true
// when no account uses the address (case-insensitively).
func handleEmailUniqueness(s *store.Store, rules formRules) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		if err := requireMediaType(r, uniquenessMediaType); err != nil {
			return err
		}
		if r.Header.Get(ajaxHeader) != ajaxMarker {
			return badRequest(ajaxHeader + ": " + ajaxMarker + " is required")
		}
		u, _, err := decodeJSON[uniquenessRequest](r)
		if err != nil {
			return err
		}
		if errs := u.validate(rules); len(errs) > 0 {
			writeJSON(w, http.StatusBadRequest, map[string]any{"errorMessageList": errs})
			return nil
		}
		taken, err := s.LoginTaken(r.Context(), loginID(u.Email))
		if err != nil {
			return err
		}
		writeJSONAs(w, http.StatusOK, uniquenessMediaType, !taken)
		return nil
	})
}

// PublicTotals are counts anyone may see: GET /public_totals.json answers
// them, and the build shows them on the home page (build --db).
type PublicTotals struct {
	Members        int `json:"members"`        // registered member accounts
	MemberProfiles int `json:"memberProfiles"` // profiles on the members page
	NewsItems      int `json:"newsItems"`
}

// memberProfiles counts the profiles of data/members.json.
func memberProfiles() int {
	var profiles []json.RawMessage
	if err := json.Unmarshal(data.File("members.json"), &profiles); err != nil {
		panic("data/members.json: " + err.Error())
	}
	return len(profiles)
}

// ReadPublicTotals reads the counts from the database at path (a SQLite
// file or a PostgreSQL URL) without writing to it; a missing file, or one
// without the API's tables, is an error naming it.
func ReadPublicTotals(path string) (PublicTotals, error) {
	c, err := store.ReadCounts(context.Background(), path)
	if err != nil {
		return PublicTotals{}, err
	}
	return PublicTotals{Members: c.Members, MemberProfiles: memberProfiles(), NewsItems: c.NewsItems}, nil
}

func handlePublicTotals(s *store.Store) http.Handler {
	profiles := memberProfiles()
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.Counts(r.Context())
		if err != nil {
			return err
		}
		cacheable(w, "300")
		writeJSON(w, http.StatusOK, PublicTotals{Members: c.Members, MemberProfiles: profiles, NewsItems: c.NewsItems})
		return nil
	})
}
