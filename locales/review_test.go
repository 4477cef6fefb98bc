package locales

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTranslationsAreReviewed: every Hindi and Marathi text was reviewed
// against the English as en.json reads now. When a text of en.json
// changes, its translations fail here until they are updated and recorded
// again; a new key needs its record too (docs/translations.md).
func TestTranslationsAreReviewed(t *testing.T) {
	pending, stale, err := CheckReview(".", Translations())
	if err != nil {
		t.Fatal(err)
	}
	changed := map[string][]string{}
	added := 0
	for _, p := range pending {
		if p.New {
			added++
			t.Errorf("%s.json %s: no review record. Once it translates %q, record it (below)", p.Lang, p.Key, p.English)
			continue
		}
		changed[p.Lang] = append(changed[p.Lang], p.Key)
		t.Errorf("%s.json %s: en.json changed since this translation was reviewed; the English now reads %q. Update %s.json, then record it (below)",
			p.Lang, p.Key, p.English, p.Lang)
	}
	for _, s := range stale {
		t.Errorf("%s %s: reviewed for a key en.json no longer has", ReviewFile, s)
	}
	for _, lang := range sortedKeys(changed) {
		t.Logf("after updating %s.json, run: go run . locales reviewed --lang %s %s", lang, lang, strings.Join(changed[lang], " "))
	}
	if added > 0 || len(stale) > 0 {
		t.Logf("to record new keys (and drop records of removed ones), run: go run . locales reviewed --new")
	}
}

// reviewTree writes en, hi and ma files into a temporary locales folder.
func reviewTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func pendingKeys(t *testing.T, dir string) []string {
	t.Helper()
	pending, stale, err := CheckReview(dir, []string{"hi", "ma"})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pending {
		s := p.Lang + " " + p.Key
		if p.New {
			s += " new"
		}
		out = append(out, s)
	}
	return append(out, stale...)
}

func TestReviewFlagsChangedEnglish(t *testing.T) {
	dir := reviewTree(t, map[string]string{
		"en": `{"nav": {"home": "Home", "faq": "FAQ"}, "title": "Welcome"}`,
		"hi": `{"nav": {"home": "होम", "faq": "प्रश्न"}, "title": "स्वागत"}`,
		"ma": `{"nav": {"home": "मुख्यपृष्ठ", "faq": "प्रश्न"}, "title": "स्वागत"}`,
	})
	if got := pendingKeys(t, dir); len(got) != 6 || got[0] != "hi nav.faq new" {
		t.Fatalf("before any review: %v", got)
	}
	if _, err := MarkReviewed(dir, []string{"hi", "ma"}, nil, true); err != nil {
		t.Fatal(err)
	}
	if got := pendingKeys(t, dir); len(got) != 0 {
		t.Fatalf("after --new: %v", got)
	}

	// The English changes: both translations are flagged, with the new text.
	os.WriteFile(filepath.Join(dir, "en.json"), []byte(`{"nav": {"home": "Home page", "faq": "FAQ"}, "title": "Welcome"}`), 0o644)
	pending, _, _ := CheckReview(dir, []string{"hi", "ma"})
	if len(pending) != 2 || pending[0].Key != "nav.home" || pending[0].English != "Home page" || pending[0].New {
		t.Fatalf("after changing en nav.home: %+v", pending)
	}
	// --new does not clear a changed text: only naming it does.
	MarkReviewed(dir, []string{"hi", "ma"}, nil, true)
	if got := pendingKeys(t, dir); !slices.Equal(got, []string{"hi nav.home", "ma nav.home"}) {
		t.Fatalf("--new cleared a changed text: %v", got)
	}
	marked, err := MarkReviewed(dir, []string{"hi"}, []string{"nav.home"}, false)
	if err != nil || !slices.Equal(marked["hi"], []string{"nav.home"}) {
		t.Fatalf("marking hi nav.home: %v, %v", marked, err)
	}
	if got := pendingKeys(t, dir); !slices.Equal(got, []string{"ma nav.home"}) {
		t.Fatalf("after reviewing hi only: %v", got)
	}
	// A namespace names every key under it.
	if _, err := MarkReviewed(dir, []string{"ma"}, []string{"nav"}, false); err != nil {
		t.Fatal(err)
	}
	if got := pendingKeys(t, dir); len(got) != 0 {
		t.Fatalf("after reviewing ma nav: %v", got)
	}
}

func TestReviewNewAndRemovedKeys(t *testing.T) {
	dir := reviewTree(t, map[string]string{
		"en": `{"a": "One", "b": "Two"}`,
		"hi": `{"a": "एक", "b": "दो"}`,
		"ma": `{"a": "एक", "b": "दोन"}`,
	})
	MarkReviewed(dir, []string{"hi", "ma"}, nil, true)
	// Another branch adds c and drops b.
	os.WriteFile(filepath.Join(dir, "en.json"), []byte(`{"a": "One", "c": "Three"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "hi.json"), []byte(`{"a": "एक", "c": "तीन"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "ma.json"), []byte(`{"a": "एक", "c": "तीन"}`), 0o644)
	if got := pendingKeys(t, dir); !slices.Equal(got, []string{"hi c new", "ma c new", "hi b", "ma b"}) {
		t.Fatalf("after adding c and removing b: %v", got)
	}
	if _, err := MarkReviewed(dir, []string{"hi", "ma"}, nil, true); err != nil {
		t.Fatal(err)
	}
	if got := pendingKeys(t, dir); len(got) != 0 {
		t.Fatalf("after --new: %v", got)
	}
	review, _ := ReadReview(dir)
	if _, ok := review["hi"]["b"]; ok || review["ma"]["c"] != EnglishHash("Three") {
		t.Errorf("review file: %v", review)
	}
}

func TestReviewRefusesWhatIsNotThere(t *testing.T) {
	dir := reviewTree(t, map[string]string{
		"en": `{"a": "One", "b": "Two"}`,
		"hi": `{"a": "एक"}`,
		"ma": `{"a": "एक", "b": "दोन"}`,
	})
	if _, err := MarkReviewed(dir, []string{"ma"}, []string{"nav"}, false); err == nil || !strings.Contains(err.Error(), `"nav"`) {
		t.Errorf("an unknown key: %v", err)
	}
	if _, err := MarkReviewed(dir, []string{"hi"}, []string{"b"}, false); err == nil || !strings.Contains(err.Error(), "hi.json has no text b") {
		t.Errorf("a key hi.json lacks: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ReviewFile)); err == nil {
		t.Error("a refused call wrote the review file")
	}
}
