package formapi

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestCountries(t *testing.T) {
	a := newTestAPI(t)
	resp := a.get("/countries")
	if cc := resp.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "public") {
		t.Errorf("Cache-Control %q", cc)
	}
	list := decode[[]keyValue](t, resp)
	if len(list) < 240 || list[0] != (keyValue{Key: "IN", Value: "INDIA"}) {
		t.Errorf("%d countries, first %v: want INDIA first of ~249", len(list), list[0])
	}
}

// devanagari matches a text written in Devanagari (with spaces and
// punctuation), not in Latin letters.
var devanagari = regexp.MustCompile(`^[\p{Devanagari}\s.,()–-]+$`)

func TestStates(t *testing.T) {
	a := newTestAPI(t)
	list := decode[[]keyValue](t, a.get("/states?country_id=IN"))
	if len(list) != 36 {
		t.Fatalf("%d states and union territories, want 28 + 8", len(list))
	}
	keys := map[string]string{}
	for _, s := range list {
		keys[s.Key] = s.Value
	}
	for k, v := range map[string]string{"MH": "Maharashtra", "TN": "Tamil Nadu", "LA": "Ladakh", "DL": "Delhi", "JK": "Jammu and Kashmir"} {
		if keys[k] != v {
			t.Errorf("%s = %q, want %q", k, keys[k], v)
		}
	}
	if got := decode[[]keyValue](t, a.get("/states?country_id=in")); len(got) != 36 {
		t.Errorf("lower-case country_id: %d states", len(got))
	}
	if got := bodyText(a.get("/states?country_id=NP")); strings.TrimSpace(got) != "[]" {
		t.Errorf("a country without states: %s, want []", got)
	}
	// The names in Hindi and Marathi, in the same order with the same keys.
	for lang, want := range map[string]map[string]string{
		"hi": {"MH": "महाराष्ट्र", "TN": "तमिलनाडु", "KL": "केरल", "DL": "दिल्ली"},
		"ma": {"MH": "महाराष्ट्र", "TN": "तमिळनाडू", "KL": "केरळ", "DL": "दिल्ली"},
	} {
		got := decode[[]keyValue](t, a.get("/states?country_id=IN&lang="+lang))
		if len(got) != len(list) {
			t.Fatalf("%s: %d states, want %d", lang, len(got), len(list))
		}
		for i, s := range got {
			if s.Key != list[i].Key || !devanagari.MatchString(s.Value) {
				t.Errorf("%s: entry %d is %v, want key %s named in Devanagari", lang, i, s, list[i].Key)
			}
			if w, ok := want[s.Key]; ok && s.Value != w {
				t.Errorf("%s: %s = %q, want %q", lang, s.Key, s.Value, w)
			}
		}
	}
	if got := decode[[]keyValue](t, a.get("/states?country_id=IN&lang=en")); got[0] != list[0] {
		t.Errorf("lang=en: %v", got[0])
	}
	expectJSONError(t, a.get("/states?country_id=IN&lang=fr"), http.StatusBadRequest, "lang")
	expectJSONError(t, a.get("/states"), http.StatusBadRequest, "country_id")
	expectJSONError(t, a.get("/states?country_id=IND'--"), http.StatusBadRequest, "country_id")
}

func TestEmailUniqueness(t *testing.T) {
	a := newTestAPI(t, unlimited())
	a.exec(`INSERT INTO users (email, created_at) VALUES ('taken@example.in', '2026-01-01T00:00:00.000Z')`)
	ask := func(body string, header http.Header) *http.Response {
		header.Set(xsrfHeader, a.token())
		return a.do(http.MethodPost, "/api/email/uniqueness", uniquenessMediaType, strings.NewReader(body), header)
	}
	ajax := func() http.Header { return http.Header{ajaxHeader: {ajaxMarker}} }
	for _, c := range []struct {
		email, want string
	}{{"free@example.in", "true"}, {"taken@example.in", "false"}, {"TAKEN@Example.IN", "false"}} {
		resp := ask(`{"email":"`+c.email+`"}`, ajax())
		expectStatus(t, resp, http.StatusOK)
		if ct := resp.Header.Get("Content-Type"); ct != uniquenessMediaType {
			t.Errorf("Content-Type %q", ct)
		}
		if got := strings.TrimSpace(bodyText(resp)); got != c.want {
			t.Errorf("%s: %s, want %s", c.email, got, c.want)
		}
	}
	expectJSONError(t, a.post("/api/email/uniqueness", "application/json", []byte(`{"email":"a@b.in"}`)), http.StatusUnsupportedMediaType, uniquenessMediaType)
	expectJSONError(t, ask(`{"email":"a@b.in"}`, http.Header{}), http.StatusBadRequest, "X-Requested-With")
	expectJSONError(t, ask(`{"email":`, ajax()), http.StatusBadRequest, "malformed")
	resp := ask(`{"email":"not an address"}`, ajax())
	expectStatus(t, resp, http.StatusBadRequest)
	if got := decode[map[string][]fieldError](t, resp)["errorMessageList"]; len(got) != 1 || got[0].Message != "forms.emailInvalid" {
		t.Errorf("invalid address: %v", got)
	}
}

func TestPublicTotals(t *testing.T) {
	a := newTestAPI(t)
	a.exec(`INSERT INTO users (email, created_at) VALUES ('m@example.in', '2026-01-01T00:00:00.000Z')`)
	got := decode[map[string]int](t, a.get("/public_totals.json"))
	news := a.count(`SELECT COUNT(*) FROM news`)
	if got["members"] != 1 || got["newsItems"] != news || got["memberProfiles"] != 5 || len(got) != 3 {
		t.Errorf("totals %v", got)
	}
}

// TestReadPublicTotals: the build reads the same counts from a database
// file, without writing to it, and names a file it cannot read.
func TestReadPublicTotals(t *testing.T) {
	a := newTestAPI(t)
	a.exec(`INSERT INTO users (email, created_at) VALUES ('m@example.in', '2026-01-01T00:00:00.000Z'), ('n@example.in', '2026-01-01T00:00:00.000Z')`)
	got, err := ReadPublicTotals(a.db)
	if err != nil {
		t.Fatal(err)
	}
	if want := (PublicTotals{Members: 2, MemberProfiles: 5, NewsItems: a.count(`SELECT COUNT(*) FROM news`)}); got != want {
		t.Errorf("ReadPublicTotals = %+v, want %+v", got, want)
	}
	missing := filepath.Join(t.TempDir(), "none.db")
	if _, err := ReadPublicTotals(missing); err == nil || !strings.Contains(err.Error(), "none.db") {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("reading a missing file created it")
	}
	empty := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPublicTotals(empty); err == nil || !strings.Contains(err.Error(), "empty.db") {
		t.Errorf("a file without the tables: %v", err)
	}
}
