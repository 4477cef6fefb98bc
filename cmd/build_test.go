package cmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

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

// TestBuildReportsJSON: `build --report json` prints one JSON object with
// every figure of the text report (what make bench reads), and nothing else.
func TestBuildReportsJSON(t *testing.T) {
	code, stdout, stderr := execute(t, nil, "build", "--root", "..", "--out", t.TempDir()+"/dist", "--report", "json")
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
	hindiFAQ, appQR := false, false
	for _, p := range figures.Pages {
		hindiFAQ = hindiFAQ || p.URL == "/hi/faq" && p.HTML > 0
		appQR = appQR || p.URL == "/mobile-app" && p.Images > 0 // the QR code image
	}
	if !hindiFAQ || !appQR {
		t.Errorf("no HTML weight for /hi/faq or no image weight for /mobile-app in %+v", figures.Pages)
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
