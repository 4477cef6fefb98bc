package cmd

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"html"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"freightsite/data"
	"freightsite/generator"
	"freightsite/internal/pgtest"
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

// TestBuildBeforeTheAPIsFirstStartShowsTheSeed: on a new machine the
// first build runs before the API has created its database (no SQLite
// file, nor its folder; a PostgreSQL database just made with createdb).
// The build succeeds, says in one line that it used the seed, shows the
// seed's news and members, and leaves the database as it was: no file
// made, no table created.
func TestBuildBeforeTheAPIsFirstStartShowsTheSeed(t *testing.T) {
	var seed []struct {
		Title string `json:"newsFeedTitle"`
	}
	if err := json.Unmarshal(data.File("news.json"), &seed); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "var", "lib", "freightsite", "freightsite.db")
	cases := []struct {
		name, db string
		created  func() bool
	}{{"a SQLite file in a folder not made yet", missing, func() bool {
		_, err := os.Stat(filepath.Dir(missing))
		return err == nil
	}}}
	if cluster := startPostgreSQL(t); cluster != nil {
		url, err := cluster.NewDatabase(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct {
			name, db string
			created  func() bool
		}{"an empty PostgreSQL database", url, func() bool {
			db, err := sql.Open("pgx", url)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var tables int
			if err := db.QueryRow(`SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&tables); err != nil {
				t.Fatal(err)
			}
			return tables > 0
		}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dist := filepath.Join(t.TempDir(), "dist")
			code, _, stderr := execute(t, nil, "build", "--root", "..", "--out", dist, "--db", c.db)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if want := "no database there yet (freightsite api creates it when it first starts): the pages show the news seed of data/news.json"; strings.Count(stderr, want) != 1 {
				t.Errorf("the build does not say once that it used the seed:\n%s", stderr)
			}
			if c.created() {
				t.Errorf("the build created the database")
			}
			for i, item := range seed {
				page, err := os.ReadFile(filepath.Join(dist, "news-feed", "news", strconv.Itoa(i+1), "index.html"))
				if err != nil || !strings.Contains(string(page), html.EscapeString(item.Title)) {
					t.Errorf("news item %d of the seed: %v, or its page lacks %q", i+1, err, item.Title)
				}
			}
			if members, err := os.ReadFile(filepath.Join(dist, "members-profile", "index.html")); err != nil || !strings.Contains(string(members), "Sharma Roadlines") {
				t.Errorf("the members' page lacks the members of data/members.json: %v", err)
			}
		})
	}
}

// TestBuildWithADatabaseItCannotReadExits2: a database that exists but
// cannot be read is no reason to publish the seed; the build stops
// before it renders anything, naming it.
func TestBuildWithADatabaseItCannotReadExits2(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	closed := freeLoopbackPort(t)
	for _, c := range []struct{ db, want string }{
		{filepath.Join(file, "site.db"), "not a directory"},
		{"postgres://site:secret@127.0.0.1:" + closed + "/freight?sslmode=disable&connect_timeout=5", "127.0.0.1"},
	} {
		code, _, stderr := execute(t, nil, "build", "--root", "..", "--out", t.TempDir()+"/dist", "--db", c.db)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "secret") {
			t.Errorf("--db %s: exit %d, stderr %q; want 2 naming %q, without the password", c.db, code, stderr, c.want)
		}
	}
}

// freeLoopbackPort is a loopback port nothing listens on.
func freeLoopbackPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// startPostgreSQL starts a throwaway cluster for the test (nil, skipping
// the PostgreSQL cases, where PostgreSQL is not installed and CI is unset).
func startPostgreSQL(t *testing.T) *pgtest.Cluster {
	t.Helper()
	if _, err := pgtest.Bin(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Log(err)
		return nil
	}
	c, err := pgtest.Start(pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}
