package data

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"testing"

	"freightsite/internal/plaintext"
)

// TestTextHoldsNoHiddenCharacters: no text of the data files the pages
// show (names, addresses, news, states) holds a control character other
// than line breaks and tabs, or an invisible format character, which the
// forms and the commands refuse too. forms.json's patterns name such
// characters on purpose.
func TestTextHoldsNoHiddenCharacters(t *testing.T) {
	names, _ := fs.Glob(files, "*.json")
	for _, name := range names {
		if name == "forms.json" {
			continue
		}
		var doc any
		if err := json.Unmarshal(File(name), &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch v := v.(type) {
			case string:
				if err := plaintext.CheckText(v); err != nil {
					t.Errorf("%s %s: %v", name, path, err)
				}
			case []any:
				for i, e := range v {
					walk(fmt.Sprintf("%s[%d]", path, i), e)
				}
			case map[string]any:
				for k, e := range v {
					walk(path+"."+k, e)
				}
			}
		}
		walk("", doc)
	}
	if len(names) < 5 {
		t.Errorf("only %v found", names)
	}
}
