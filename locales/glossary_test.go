package locales

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"freightsite/data"
)

// Tests that keep the translations to locales/glossary.json: one word per
// term and language, no forbidden words, one nukta policy, rules that take
// only English input saying so, buttons quoted as they read, and the
// placeholders and line structure of the English.

type glossary struct {
	Terms []struct {
		Term  string              `json:"term"`
		Use   map[string]string   `json:"use"`
		Match map[string]string   `json:"match"`
		Avoid map[string][]string `json:"avoid"`
		Keys  []string            `json:"keys"`
	} `json:"terms"`
	Nukta struct {
		Hi []string `json:"hi"`
	} `json:"nukta"`
	EnglishInput struct {
		Markers map[string]map[string]string `json:"markers"`
		Keys    map[string][]string          `json:"keys"`
	} `json:"englishInput"`
}

func readGlossary(t *testing.T) glossary {
	t.Helper()
	raw, err := os.ReadFile("glossary.json")
	if err != nil {
		t.Fatal(err)
	}
	var g glossary
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatalf("glossary.json: %v", err)
	}
	return g
}

// siteTexts reads every language's texts: code -> key -> text.
func siteTexts(t *testing.T) map[string]map[string]string {
	t.Helper()
	all := map[string]map[string]string{}
	for _, l := range data.Site().Languages {
		texts, err := ReadTexts(".", l.Code)
		if err != nil {
			t.Fatal(err)
		}
		all[l.Code] = texts
	}
	return all
}

// dataTexts reads what the visible data files show in each translation
// language: every text under a record's translations.<lang> in data/*.json
// (the provider's address, members' names, states, the seed news), by
// where it is: "data/news.json[3].translations.hi.content".
func dataTexts(t *testing.T) map[string]map[string]string {
	t.Helper()
	names, err := filepath.Glob("../data/*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no data files: %v", err)
	}
	all := map[string]map[string]string{}
	for _, lang := range Translations() {
		all[lang] = map[string]string{}
	}
	for _, name := range names {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var tree any
		if err := json.Unmarshal(raw, &tree); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		walkTranslations("data/"+filepath.Base(name), tree, func(lang, at, text string) {
			if all[lang] != nil {
				all[lang][at] = text
			}
		})
	}
	return all
}

// walkTranslations calls found for every text under a translations object
// in the tree at path: its language, where it is, and the text.
func walkTranslations(path string, tree any, found func(lang, at, text string)) {
	switch v := tree.(type) {
	case []any:
		for i, item := range v {
			walkTranslations(fmt.Sprintf("%s[%d]", path, i), item, found)
		}
	case map[string]any:
		for _, k := range sortedKeys(v) {
			if tr, ok := v[k].(map[string]any); ok && k == "translations" {
				for _, lang := range sortedKeys(tr) {
					var texts func(at string, x any)
					texts = func(at string, x any) {
						switch x := x.(type) {
						case string:
							found(lang, at, x)
						case map[string]any:
							for _, kk := range sortedKeys(x) {
								texts(at+"."+kk, x[kk])
							}
						}
					}
					texts(path+".translations."+lang, tr[lang])
				}
				continue
			}
			walkTranslations(path+"."+k, v[k], found)
		}
	}
}

// TestDataFilesAreTranslated: every record of a visible data file that
// carries translations has them in every translation language, for the
// same fields, each a real Devanagari text wherever the English has
// words; every seed news item has its title and content in each.
func TestDataFilesAreTranslated(t *testing.T) {
	names, _ := filepath.Glob("../data/*.json")
	for _, name := range names {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var tree any
		if err := json.Unmarshal(raw, &tree); err != nil {
			t.Fatal(err)
		}
		var check func(path string, x any)
		check = func(path string, x any) {
			switch v := x.(type) {
			case []any:
				for i, item := range v {
					check(fmt.Sprintf("%s[%d]", path, i), item)
				}
			case map[string]any:
				if tr, ok := v["translations"].(map[string]any); ok {
					var fields []string
					for _, lang := range Translations() {
						texts, _ := tr[lang].(map[string]any)
						if len(texts) == 0 {
							t.Errorf("%s: no %s translation", path, lang)
							continue
						}
						got := sortedKeys(texts)
						if fields == nil {
							fields = got
						} else if !slices.Equal(fields, got) {
							t.Errorf("%s: %s translates %v, %s %v", path, lang, got, Translations()[0], fields)
						}
						for _, f := range got {
							en, _ := v[f].(string)
							text, _ := texts[f].(string)
							if en == "" {
								t.Errorf("%s.translations.%s.%s translates no English field", path, lang, f)
							}
							if strings.ContainsFunc(en, unicode.IsLetter) && !strings.ContainsFunc(text, func(r rune) bool { return unicode.Is(unicode.Devanagari, r) }) {
								t.Errorf("%s.translations.%s.%s is not translated: %q", path, lang, f, text)
							}
						}
					}
				}
				for _, k := range sortedKeys(v) {
					if k != "translations" {
						check(path+"."+k, v[k])
					}
				}
			}
		}
		check("data/"+filepath.Base(name), tree)
	}

	raw, err := os.ReadFile("../data/news.json")
	if err != nil {
		t.Fatal(err)
	}
	var news []struct {
		Title        string                       `json:"newsFeedTitle"`
		Translations map[string]map[string]string `json:"translations"`
	}
	if err := json.Unmarshal(raw, &news); err != nil {
		t.Fatal(err)
	}
	for i, item := range news {
		for _, lang := range Translations() {
			if item.Translations[lang]["newsFeedTitle"] == "" || item.Translations[lang]["content"] == "" {
				t.Errorf("data/news.json[%d] %q: no %s title and content", i, item.Title, lang)
			}
		}
	}
}

// The glossary holds on the locales and on the data files alike.
func TestGlossaryWordsAreUsedConsistently(t *testing.T) {
	g, texts, data := readGlossary(t), siteTexts(t), dataTexts(t)
	for _, term := range g.Terms {
		for lang := range texts {
			if term.Use[lang] == "" {
				t.Errorf("glossary.json %q: no word for %s", term.Term, lang)
			}
		}
		for lang, words := range term.Avoid {
			for _, key := range sortedKeys(texts[lang]) {
				for _, w := range words {
					if contains(lang, texts[lang][key], w) {
						t.Errorf("%s.json %s: %q is not said for %q; the glossary's word is %q:\n  %s",
							lang, key, w, term.Term, term.Use[lang], texts[lang][key])
					}
				}
			}
			for _, at := range sortedKeys(data[lang]) {
				for _, w := range words {
					if contains(lang, data[lang][at], w) {
						t.Errorf("%s: %q is not said for %q; the glossary's word is %q:\n  %s", at, w, term.Term, term.Use[lang], data[lang][at])
					}
				}
			}
		}
		for _, key := range term.Keys {
			if _, ok := texts["en"][key]; !ok {
				t.Errorf("glossary.json %q names %s, which en.json lacks", term.Term, key)
				continue
			}
			for lang, word := range term.Use {
				if m := term.Match[lang]; m != "" {
					word = m
				}
				if !contains(lang, texts[lang][key], word) {
					t.Errorf("%s.json %s should say %q for %q (glossary.json):\n  %s", lang, key, word, term.Term, texts[lang][key])
				}
			}
		}
	}
}

// contains compares English without case: "Members" has "member".
func contains(lang, text, word string) bool {
	if lang == "en" {
		return strings.Contains(strings.ToLower(text), strings.ToLower(word))
	}
	return strings.Contains(text, word)
}

const nukta = '\u093c'

// withoutNukta drops the nukta of क़ ख़ ग़ ज़ फ़ (ड़ and ढ़ are letters
// of their own, in Hindi and Marathi alike).
func withoutNukta(s string) string {
	r := []rune(s)
	out := r[:0:0]
	for i, c := range r {
		if c == nukta && i > 0 && strings.ContainsRune("कखगजफ", r[i-1]) {
			continue
		}
		out = append(out, c)
	}
	return string(out)
}

var reWord = regexp.MustCompile(`[\x{0900}-\x{0963}\x{0971}-\x{097F}\x{200C}\x{200D}]+`)

// The policy holds on the locales and on the data files alike: texts are
// named "hi.json faq.title" or "data/news.json[0].translations.hi.content".
func TestOneNuktaPolicy(t *testing.T) {
	g, texts := readGlossary(t), map[string]map[string]string{}
	for lang, keys := range siteTexts(t) {
		texts[lang] = map[string]string{}
		for key, text := range keys {
			texts[lang][lang+".json "+key] = text
		}
	}
	for lang, at := range dataTexts(t) {
		for where, text := range at {
			texts[lang][where] = text
		}
	}
	for _, lang := range Translations() {
		for _, key := range sortedKeys(texts[lang]) {
			// क़ (U+0958) and क + nukta look alike but compare unequal:
			// the files hold only the second, Unicode's normal form.
			if strings.ContainsFunc(texts[lang][key], func(r rune) bool { return r >= 0x958 && r <= 0x95f }) {
				t.Errorf("%s: a precomposed nukta letter (U+0958–U+095F); write the letter and U+093C", key)
			}
		}
	}
	for _, key := range sortedKeys(texts["ma"]) {
		if withoutNukta(texts["ma"][key]) != texts["ma"][key] {
			t.Errorf("%s: Marathi writes no nukta: %s", key, texts["ma"][key])
		}
	}
	// Every Hindi word written with a nukta anywhere, and every word the
	// glossary lists, is written with it everywhere.
	bare := map[string]string{} // word without nukta -> with
	for _, text := range texts["hi"] {
		for _, w := range reWord.FindAllString(text, -1) {
			if s := withoutNukta(w); s != w {
				bare[s] = w
			}
		}
	}
	var stems []string
	for _, w := range g.Nukta.Hi {
		if withoutNukta(w) == w {
			t.Errorf("glossary.json nukta: %q has no nukta", w)
		}
		stems = append(stems, withoutNukta(w))
	}
	for _, key := range sortedKeys(texts["hi"]) {
		for _, w := range reWord.FindAllString(texts["hi"][key], -1) {
			if withoutNukta(w) != w {
				continue
			}
			if with, ok := bare[w]; ok {
				t.Errorf("%s: %q is written %q elsewhere; Hindi writes the nukta everywhere", key, w, with)
			}
			for i, s := range stems {
				if strings.HasPrefix(w, s) {
					t.Errorf("%s: %q lacks its nukta (glossary.json: %s)", key, w, g.Nukta.Hi[i])
				}
			}
		}
	}
}

// formsFile is data/forms.json: form -> fields -> checks.
type formsFile map[string]json.RawMessage

// englishOnlyRules are the texts that describe an input accepting only
// English letters or only digits 0–9: key -> "letters", "digits".
func englishOnlyRules(t *testing.T, g glossary) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile("../data/forms.json")
	if err != nil {
		t.Fatal(err)
	}
	var forms formsFile
	if err := json.Unmarshal(raw, &forms); err != nil {
		t.Fatal(err)
	}
	rules := map[string][]string{}
	add := func(key, kind string) {
		if !slices.Contains(rules[key], kind) {
			rules[key] = append(rules[key], kind)
		}
	}
	for name, body := range forms {
		// oneLine is the check every one-line field ends with, not a form.
		if strings.HasPrefix(name, "$") || name == "oneLine" {
			continue
		}
		var fields []struct {
			Checks []struct {
				Pattern string `json:"pattern"`
				Message string `json:"message"`
			} `json:"checks"`
		}
		if err := json.Unmarshal(body, &fields); err != nil {
			t.Fatalf("forms.json %s: %v", name, err)
		}
		for _, f := range fields {
			for _, c := range f.Checks {
				switch {
				case strings.Contains(c.Pattern, "A-Z") || strings.Contains(c.Pattern, "a-z"):
					add(c.Message, "letters")
				case strings.Contains(c.Pattern, "0-9"):
					add(c.Message, "digits")
				}
			}
		}
	}
	for key, kinds := range g.EnglishInput.Keys {
		for _, k := range kinds {
			add(key, k)
		}
	}
	return rules
}

var englishOnly = map[string]string{"letters": "English letters (A–Z, a–z)", "digits": "the digits 0–9"}

func TestEnglishOnlyInputIsNamed(t *testing.T) {
	g, texts := readGlossary(t), siteTexts(t)
	rules := englishOnlyRules(t, g)
	for _, must := range []string{"registration.errors.passwordRule", "RESET.RESET9", "forms.emailInvalid", "registration.errors.postalCode"} {
		if len(rules[must]) == 0 {
			t.Errorf("%s is not found to describe an English-only rule", must)
		}
	}
	for _, key := range sortedKeys(rules) {
		if _, ok := texts["en"][key]; !ok {
			t.Errorf("%s describes an English-only rule but en.json lacks it", key)
			continue
		}
		for _, lang := range Translations() {
			for _, kind := range rules[key] {
				marker := g.EnglishInput.Markers[kind][lang]
				if marker == "" {
					t.Fatalf("glossary.json englishInput: no %s marker for %s", kind, lang)
				}
				if !strings.Contains(texts[lang][key], marker) {
					t.Errorf("%s.json %s: the rule takes only %s; say so with %q:\n  %s", lang, key, englishOnly[kind], marker, texts[lang][key])
				}
			}
		}
	}
}

var reQuoted = regexp.MustCompile(`“([^”]*)”`)

// TestQuotedNamesReadAsOnScreen: a button or field named in a sentence is
// quoted (“…”) exactly as the site shows it, so readers can find it.
func TestQuotedNamesReadAsOnScreen(t *testing.T) {
	texts := siteTexts(t)
	for _, lang := range Translations() {
		shown := map[string]bool{}
		for _, v := range texts[lang] {
			shown[v] = true
		}
		for _, key := range sortedKeys(texts[lang]) {
			for _, q := range reQuoted.FindAllStringSubmatch(texts[lang][key], -1) {
				if !shown[q[1]] {
					t.Errorf("%s.json %s quotes “%s”, which no text of %s.json reads; quote the button or page as it reads", lang, key, q[1], lang)
				}
			}
		}
	}
}

var rePlaceholder = regexp.MustCompile(`\{\{\s*([\w.]+)\s*\}\}`)

// TestTranslationsKeepTheEnglishShape: the same placeholders, the same
// line breaks (paragraphs and list items), and real Devanagari text
// wherever the English has words.
func TestTranslationsKeepTheEnglishShape(t *testing.T) {
	texts := siteTexts(t)
	names := func(s string) []string {
		var out []string
		for _, m := range rePlaceholder.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for _, lang := range Translations() {
		for _, key := range sortedKeys(texts["en"]) {
			en, tr := texts["en"][key], texts[lang][key]
			if a, b := names(en), names(tr); !slices.Equal(a, b) {
				t.Errorf("%s.json %s: placeholders %v, English has %v", lang, key, b, a)
			}
			if a, b := strings.Count(en, "\n"), strings.Count(tr, "\n"); a != b {
				t.Errorf("%s.json %s: %d line breaks, English has %d", lang, key, b, a)
			}
			words := strings.ContainsFunc(rePlaceholder.ReplaceAllString(en, ""), unicode.IsLetter)
			if words && !strings.ContainsFunc(tr, func(r rune) bool { return unicode.Is(unicode.Devanagari, r) }) {
				t.Errorf("%s.json %s is not translated: %q", lang, key, tr)
			}
		}
	}
}
