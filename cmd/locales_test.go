package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocalesReviewed: the translators' command records keys in the
// review file of --root's locales/ and refuses what it cannot record.
func TestLocalesReviewed(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "locales")
	os.Mkdir(dir, 0o755)
	for name, body := range map[string]string{
		"en": `{"nav": {"home": "Home", "faq": "FAQ"}}`,
		"hi": `{"nav": {"home": "होम", "faq": "प्रश्न"}}`,
		"ma": `{"nav": {"home": "मुख्यपृष्ठ"}}`,
	} {
		os.WriteFile(filepath.Join(dir, name+".json"), []byte(body), 0o644)
	}
	code, out, errOut := execute(t, nil, "locales", "reviewed", "--root", root, "--lang", "hi", "--new")
	if code != 0 || out != "hi: recorded nav.faq, nav.home\n" {
		t.Fatalf("--new: exit %d, %q %q", code, out, errOut)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "reviewed.json"))
	if !strings.Contains(string(raw), `"nav.home": "`) || strings.Contains(string(raw), `"ma"`) {
		t.Errorf("reviewed.json:\n%s", raw)
	}
	if code, out, _ := execute(t, nil, "locales", "reviewed", "--root", root, "--lang", "hi", "nav"); code != 0 || out != "hi: nothing new to record\n" {
		t.Errorf("again: exit %d, %q", code, out)
	}
	for _, args := range [][]string{
		{"--lang", "en", "--new"},   // the source language
		{"--lang", "hi"},            // nothing named
		{"--lang", "hi", "nav.top"}, // no such key
		{"--lang", "ma", "nav.faq"}, // not translated yet
	} {
		code, _, errOut := execute(t, nil, append([]string{"locales", "reviewed", "--root", root}, args...)...)
		if code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}
