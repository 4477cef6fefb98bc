package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestMissingYardstickNamesTheCommand: on a machine without one of the
// programs the benchmark compares with, it says in one line which
// command installs them all.
func TestMissingYardstickNamesTheCommand(t *testing.T) {
	_, err := needTool("freightsite-no-such-yardstick", "no-such-package")
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "sudo make yardsticks") {
		t.Errorf("a missing yardstick: %v; want one line naming `sudo make yardsticks`", err)
	}
}

// TestMakeBenchInstallsItsYardsticks: `make bench` and `make
// bench-quick` first run `make yardsticks`, which installs every package
// the benchmark's needTool calls name, and PostgreSQL; where they are
// installed, as where the tests run, it does nothing and succeeds.
func TestMakeBenchInstallsItsYardsticks(t *testing.T) {
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"bench", "bench-quick"} {
		rule := regexp.MustCompile(`(?m)^` + target + `:(.*)$`).FindSubmatch(makefile)
		if rule == nil || !strings.Contains(" "+string(rule[1])+" ", " yardsticks ") {
			t.Errorf("make %s does not run make yardsticks first: %q", target, rule)
		}
	}
	recipe := regexp.MustCompile(`(?s)\nyardsticks:\n(.*?)\n\n`).FindSubmatch(append(makefile, '\n', '\n'))
	if recipe == nil {
		t.Fatal("the Makefile has no yardsticks target")
	}
	install := regexp.MustCompile(`apt-get install -y -qq ([^;]+);`).FindSubmatch(recipe[1])
	if install == nil {
		t.Fatalf("make yardsticks installs nothing as root:\n%s", recipe[1])
	}
	packages := strings.Fields(string(install[1]))
	sources, _ := os.ReadDir(".")
	wanted := []string{"postgresql"}
	for _, f := range sources {
		if strings.HasSuffix(f.Name(), ".go") && !strings.HasSuffix(f.Name(), "_test.go") {
			src, _ := os.ReadFile(f.Name())
			for _, m := range regexp.MustCompile(`needTool\("[^"]+", "([^"]+)"`).FindAllSubmatch(src, -1) {
				wanted = append(wanted, string(m[1]))
			}
		}
	}
	for _, p := range wanted {
		found := false
		for _, q := range packages {
			found = found || q == p
		}
		if !found {
			t.Errorf("make yardsticks does not install %s (it installs %v)", p, packages)
		}
	}
	if _, err := exec.LookPath("hugo"); err == nil {
		if out, err := exec.Command("make", "-s", "-C", "..", "yardsticks").CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("make yardsticks with every yardstick installed: %v\n%s", err, out)
		}
	}
}
