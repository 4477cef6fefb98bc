package cmd

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hiddenCharacters are what the commands refuse in text pages or mail
// show: bidi controls, which reorder what is shown, and the other
// invisible format characters, which make one name look like another.
var hiddenCharacters = []rune{'\u202e', '\u2066', '\u200e', '\u200b', '\u200d', '\u00ad', '\u2060', '\ufeff'}

// TestCommandsRefuseHiddenCharacters: tenant add, news add (English and
// a translation), news import and build --set refuse text with a hidden
// character, exit 2 naming the field and the character, and store
// nothing; Devanagari with a joiner after a virama is text.
func TestCommandsRefuseHiddenCharacters(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "site.db")
	var logo bytes.Buffer
	png.Encode(&logo, image.NewGray(image.Rect(0, 0, 4, 4)))
	logoFile := filepath.Join(dir, "logo.png")
	if err := os.WriteFile(logoFile, logo.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := execute(t, nil, "news", "add", "--db", db, "--title", "Port strike ends", "--content", "Work resumed at JNPT.")
	if code != 0 {
		t.Fatalf("news add: exit %d, %s", code, stderr)
	}
	id := strings.TrimSpace(strings.TrimPrefix(stdout, "added news item"))
	countNews := func() string {
		_, stdout, _ := execute(t, nil, "news", "list", "--db", db)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		return lines[len(lines)-1]
	}
	news := countNews()

	for _, c := range hiddenCharacters {
		h := string(c)
		code := fmt.Sprintf("U+%04X", c)
		importFile := filepath.Join(dir, "news-"+code+".json")
		os.WriteFile(importFile, []byte(`[{"newsFeedTitle":"Toll rates","content":"New rates."},{"newsFeedTitle":"Toll`+h+`rates","content":"New rates."}]`), 0o600)
		for _, run := range []struct {
			args []string
			want string
		}{
			{[]string{"tenant", "add", "acme", "--name", "Acme" + h + "Transport", "--logo", logoFile}, "name: contains " + code},
			{[]string{"news", "add", "--title", "Port" + h + "strike", "--content", "Work resumed."}, "newsFeedTitle: contains " + code},
			{[]string{"news", "add", "--title", "Port strike", "--content", "Work\nresumed" + h + "."}, "content: contains " + code},
			{[]string{"news", "add", "--title", "Port strike", "--content", "Work resumed.", "--url", "https://news.example/" + h + "a"}, "newsUrl: contains " + code},
			{[]string{"news", "add", "--id", id, "--lang", "hi", "--title", "हड़ताल" + h + "खत्म", "--content", "काम शुरू।"}, "newsFeedTitle: contains " + code},
			{[]string{"news", "import", importFile}, "item 2: newsFeedTitle: contains " + code},
			{[]string{"build", "--root", "..", "--out", filepath.Join(dir, "dist"), "--set", "provider.name=Acme" + h + "Freight"}, `invalid setting "provider.name": contains ` + code},
		} {
			args := append(run.args, "--db", db)
			if run.args[0] == "build" {
				args = run.args
			}
			exit, _, stderr := execute(t, nil, args...)
			if exit != 2 || !strings.Contains(stderr, run.want) {
				t.Errorf("%s: exit %d, %q; want 2 and %q", strings.Join(args[:2], " "), exit, stderr, run.want)
			}
		}
	}
	_, stdout, _ = execute(t, nil, "tenant", "list", "--db", db)
	if !strings.Contains(stdout, "0 tenants") {
		t.Errorf("tenants stored from refused names:\n%s", stdout)
	}
	if after := countNews(); after != news {
		t.Errorf("news stored from refused text: %s before, %s after", news, after)
	}

	if code, _, stderr := execute(t, nil, "tenant", "add", "sahyadri", "--name", "सह्याद्री र्\u200dया ट्रान्सपोर्ट", "--logo", logoFile, "--db", db); code != 0 {
		t.Errorf("a Devanagari name with an eyelash ra: exit %d, %s", code, stderr)
	}
}
