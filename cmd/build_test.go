package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"freightsite/data"
	"freightsite/generator"
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

// TestBuildPrintsTheWeightTable: the text report lists every page; without
// --db the news pages have no snapshot, and there are no item pages.
func TestBuildPrintsTheWeightTable(t *testing.T) {
	code, stdout, stderr := execute(t, nil, "build", "--root", "..", "--out", t.TempDir()+"/dist")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Without a database the news seed's items have their pages, summed
	// up in one line.
	items := fmt.Sprintf("news archive: %d item pages", 3*data.Count("news.json"))
	for _, want := range []string{"html KB", "/hi/faq", "/ma/404", "/news-feed/news/:newsId", "/hi/news-feed ", items, "Total in"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "/news-feed/news/1 ") {
		t.Errorf("the news items' pages are listed one by one:\n%s", stdout)
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

// TestBuildReportsJSON: `build --report json` prints one JSON object with
// every figure of the text report (what make bench reads), and nothing else;
// the pages of the news items of --db are among its pages (a database that
// `news list` created, with the news seed, as serve creates it).
func TestBuildReportsJSON(t *testing.T) {
	db := t.TempDir() + "/site.db"
	if code, _, stderr := execute(t, nil, "news", "list", "--db", db); code != 0 {
		t.Fatalf("news list: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := execute(t, nil, "build", "--root", "..", "--out", t.TempDir()+"/dist", "--report", "json", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var figures struct {
		Pages []struct {
			URL     string   `json:"url"`
			Islands []string `json:"islands"`
			HTML    int      `json:"htmlBytes"`
			Images  int      `json:"imageBytes"`
		} `json:"pages"`
		Files      int  `json:"files"`
		OverBudget *int `json:"overBudget"`
		Budgets    struct {
			StaticHTMLCSS int `json:"staticHtmlCssBytes"`
			IslandJS      int `json:"islandJsBytes"`
			Images        int `json:"imageBytes"`
		} `json:"budgets"`
		RenderMs  float64 `json:"renderMs"`
		MsPerPage float64 `json:"msPerPage"`
		TotalMs   float64 `json:"totalMs"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&figures); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Errorf("stdout holds more than one JSON value:\n%s", stdout)
	}
	if len(figures.Pages) < 80 || figures.Files <= len(figures.Pages) || figures.OverBudget == nil || *figures.OverBudget != 0 ||
		figures.Budgets.StaticHTMLCSS != generator.BudgetStaticHTMLCSS || figures.Budgets.IslandJS != generator.BudgetIslandJS ||
		figures.Budgets.Images != generator.BudgetImages || figures.RenderMs <= 0 || figures.MsPerPage <= 0 || figures.TotalMs < figures.RenderMs {
		t.Errorf("figures %+v", figures)
	}
	hindiFAQ, appQR, newsItems := false, false, 0
	for _, p := range figures.Pages {
		hindiFAQ = hindiFAQ || p.URL == "/hi/faq" && p.HTML > 0
		appQR = appQR || p.URL == "/mobile-app" && p.Images > 0 // the QR code image
		if p.URL == "/news-feed/news/1" || p.URL == "/ma/news-feed/news/8" {
			newsItems++
		}
	}
	if !hindiFAQ || !appQR || newsItems != 2 {
		t.Errorf("no HTML weight for /hi/faq, no image weight for /mobile-app or not the pages of news items 1 and 8 (/ma) in %+v", figures.Pages)
	}
	// The default base URL and the example provider are fine here only.
	for _, want := range []string{"WARNING", "baseURL http://localhost:8080: set --base-url", "provider.email support@bharatfreight.example: set --set provider.email=VALUE"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestBuildRefusesAnUnknownReportFormat(t *testing.T) {
	code, _, stderr := execute(t, nil, "build", "--out", t.TempDir()+"/dist", "--report", "yaml")
	if code != 2 || !strings.Contains(stderr, "--report") {
		t.Errorf("exit %d, stderr %q; want 2 naming --report", code, stderr)
	}
}

func TestBuildWithAMissingDatabaseExits2(t *testing.T) {
	code, _, stderr := execute(t, nil, "build", "--root", "..", "--out", t.TempDir()+"/dist", "--db", t.TempDir()+"/none.db")
	if code != 2 || !strings.Contains(stderr, "none.db") {
		t.Errorf("exit %d, stderr %q; want 2 naming the file", code, stderr)
	}
}
