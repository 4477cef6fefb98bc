package generator

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestTypeScriptTypes runs the TypeScript compiler over pages/, and over
// its unit tests (with Node's types, which the pages must not see):
// esbuild strips types without checking them, so this is where a wrong
// prop or a misspelt field is caught.
func TestTypeScriptTypes(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is missing and CI is set: the type check must run")
		}
		t.Skip("node is missing; the type check needs it")
	}
	root, _ := filepath.Abs("..")
	for _, config := range []string{"tsconfig.json", "tsconfig.test.json"} {
		cmd := exec.Command(node, filepath.Join(root, "node_modules", "typescript", "bin", "tsc"), "-p", filepath.Join(root, "pages", config))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("tsc -p pages/%s found type errors:\n%s", config, out)
		}
	}
}
