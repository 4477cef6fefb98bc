package site_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"freightsite/generator"
	"freightsite/internal/testkit"
)

// testDist is the site the tests serve: the real build of the source
// tree, as generator's tests build it.
var testDist string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "freightsite-site-")
	if err != nil {
		panic(err)
	}
	testDist = filepath.Join(dir, "dist")
	if _, err := generator.Build(generator.Options{Root: "../..", Out: testDist, BaseURL: "https://freight.example", Year: 2030}); err != nil {
		fmt.Fprintln(os.Stderr, "building the site for the tests:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func readDist(t *testing.T, name string) string { return testkit.ReadFile(t, testDist, name) }
