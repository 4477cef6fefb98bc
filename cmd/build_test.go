package cmd

import (
	"bytes"
	"strings"
	"testing"
)

func execute(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Execute(args, func(k string) string { return env[k] }, &out, &errb)
	return code, out.String(), errb.String()
}

func TestBuildWithoutNodeModulesExits2(t *testing.T) {
	code, _, stderr := execute(t, nil, "build", "--root", t.TempDir(), "--out", t.TempDir()+"/dist")
	if code != 2 || !strings.Contains(stderr, "npm ci") {
		t.Errorf("exit %d, stderr %q; want 2 and advice to run npm ci", code, stderr)
	}
}

func TestUnknownFlagExits2(t *testing.T) {
	code, _, stderr := execute(t, nil, "build", "--no-such-flag")
	if code != 2 || !strings.Contains(stderr, "no-such-flag") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestFlagsFallBackToEnvironment(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := execute(t, map[string]string{"FREIGHTSITE_ROOT": dir}, "build", "--out", dir+"/dist")
	// The root from the environment has no node_modules, which proves it was used.
	if code != 2 || !strings.Contains(stderr, "node_modules") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestBuildPrintsTheWeightTable: the table lists every page, the pages of
// the news items of --db among them (a database that `news list` created,
// with the news seed, as serve creates it).
func TestBuildPrintsTheWeightTable(t *testing.T) {
	db := t.TempDir() + "/site.db"
	if code, _, stderr := execute(t, nil, "news", "list", "--db", db); code != 0 {
		t.Fatalf("news list: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := execute(t, nil, "build", "--root", "..", "--out", t.TempDir()+"/dist", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"html KB", "/hi/faq", "/ma/404", "/news-feed/news/1 ", "/ma/news-feed/news/8 ", "Total in"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestBuildWithoutADatabase: without --db the news pages have no
// snapshot, and there are no item pages.
func TestBuildWithoutADatabase(t *testing.T) {
	code, stdout, stderr := execute(t, nil, "build", "--root", "..", "--out", t.TempDir()+"/dist")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "/news-feed/news/:newsId") || strings.Contains(stdout, "/news-feed/news/1 ") {
		t.Errorf("without a database: want only the news shell page:\n%s", stdout)
	}
}

// TestNewsAddInAnotherLanguage: `news add --id N --lang hi` gives item N
// its Hindi title and content, which `news list --lang hi` shows; wrong
// uses exit 2 saying what is wrong.
func TestNewsAddInAnotherLanguage(t *testing.T) {
	db := t.TempDir() + "/site.db"
	code, stdout, stderr := execute(t, nil, "news", "add", "--db", db, "--title", "Port strike ends", "--content", "Work resumed at JNPT.")
	if code != 0 || !strings.Contains(stdout, "added news item") {
		t.Fatalf("add: exit %d, %s %s", code, stdout, stderr)
	}
	id := strings.TrimSpace(strings.TrimPrefix(stdout, "added news item"))
	code, stdout, stderr = execute(t, nil, "news", "add", "--db", db, "--id", id, "--lang", "hi", "--title", "बंदरगाह हड़ताल खत्म", "--content", "जेएनपीटी पर काम फिर शुरू हुआ।")
	if code != 0 || !strings.Contains(stdout, "hi title and content saved") {
		t.Fatalf("add --lang hi: exit %d, %s %s", code, stdout, stderr)
	}
	if _, stdout, _ := execute(t, nil, "news", "list", "--db", db, "--lang", "hi", "--search", "हड़ताल"); !strings.Contains(stdout, "बंदरगाह हड़ताल खत्म") || !strings.Contains(stdout, "1 items") {
		t.Errorf("list --lang hi:\n%s", stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--lang", "hi", "--title", "x", "--content", "y"}, "--lang and --id go together"},
		{[]string{"--id", id, "--title", "x", "--content", "y"}, "--lang and --id go together"},
		{[]string{"--id", id, "--lang", "fr", "--title", "x", "--content", "y"}, `language "fr"`},
		{[]string{"--id", "999", "--lang", "ma", "--title", "x", "--content", "y"}, "no news item 999"},
		{[]string{"--id", id, "--lang", "ma", "--title", "x"}, "content is empty"},
	} {
		code, _, stderr := execute(t, nil, append([]string{"news", "add", "--db", db}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("news add %v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestBuildWithAMissingDatabaseExits2(t *testing.T) {
	code, _, stderr := execute(t, nil, "build", "--root", "..", "--out", t.TempDir()+"/dist", "--db", t.TempDir()+"/none.db")
	if code != 2 || !strings.Contains(stderr, "none.db") {
		t.Errorf("exit %d, stderr %q; want 2 naming the file", code, stderr)
	}
}
