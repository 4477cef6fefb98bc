// Command pagetest runs the unit tests of pages/ (every pages/**/*.test.ts)
// with Node's own test runner: esbuild bundles each test file with what it
// imports into a temporary folder, and `node --test` runs them. It exits
// with node's code. npm test and make test (a step of .ci/test) run it.
//
//	go run ./.ci/pagetest
package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

func main() {
	code, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pagetest:", err)
		code = 1
	}
	os.Exit(code)
}

// run returns node's exit code, or an error when the tests could not run.
func run() (int, error) {
	var tests []string
	err := filepath.WalkDir("pages", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".test.ts") {
			tests = append(tests, path)
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("finding the tests under pages/ (run from the source tree's root): %w", err)
	}
	if len(tests) == 0 {
		return 0, fmt.Errorf("no pages/**/*.test.ts")
	}
	out, err := os.MkdirTemp("", "freightsite-pagetest-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(out)
	res := api.Build(api.BuildOptions{
		EntryPoints:  tests,
		Outbase:      "pages",
		Outdir:       out,
		OutExtension: map[string]string{".js": ".mjs"},
		Bundle:       true,
		Format:       api.FormatESModule,
		Platform:     api.PlatformNode,
		Target:       api.ESNext,
		// The failures point at the lines of the .ts files.
		Sourcemap: api.SourceMapInline,
		Write:     true,
		LogLevel:  api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		return 0, fmt.Errorf("bundling the tests:\n%s", strings.Join(api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage}), ""))
	}
	args := []string{"--enable-source-maps", "--test", "--test-reporter=spec"}
	for _, f := range res.OutputFiles {
		if strings.HasSuffix(f.Path, ".mjs") {
			args = append(args, f.Path)
		}
	}
	cmd := exec.Command("node", args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() > 0 {
			return exit.ExitCode(), nil
		}
		return 0, fmt.Errorf("running node: %w", err)
	}
	return 0, nil
}
