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

func TestBuildPrintsTheWeightTable(t *testing.T) {
	code, stdout, stderr := execute(t, nil, "build", "--root", "..", "--out", t.TempDir()+"/dist")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"html KB", "/hi/faq", "/ma/404", "Total in"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

func TestBuildWithAMissingDatabaseExits2(t *testing.T) {
	code, _, stderr := execute(t, nil, "build", "--root", "..", "--out", t.TempDir()+"/dist", "--db", t.TempDir()+"/none.db")
	if code != 2 || !strings.Contains(stderr, "none.db") {
		t.Errorf("exit %d, stderr %q; want 2 naming the file", code, stderr)
	}
}
