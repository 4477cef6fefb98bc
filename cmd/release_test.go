package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseCommandsWhereThereAreNone: run from a folder that holds no
// build (the default --out is ./dist), `release list` says so and exits
// 1, naming the absolute folder it looked in and how to build one;
// `release publish` exits 2 the same way.
func TestReleaseCommandsWhereThereAreNone(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	want := filepath.Join(dir, "dist")
	code, stdout, stderr := execute(t, nil, "release", "list")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "no releases at "+want) || !strings.Contains(stderr, "freightsite build --out "+want) {
		t.Errorf("release list where there are none: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = execute(t, nil, "release", "publish", "20260101T000000.000Z")
	if code != 2 || !strings.Contains(stderr, "no releases at "+want) {
		t.Errorf("release publish where there are none: exit %d, stderr %q", code, stderr)
	}
}
