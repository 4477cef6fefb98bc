package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// capture sends what the runner prints to a buffer for the test.
func capture(t *testing.T) *bytes.Buffer {
	var buf bytes.Buffer
	old := stdout
	stdout = &buf
	t.Cleanup(func() { stdout = old })
	return &buf
}

// events is a `go test -json` stream of one package: a test that passes,
// one that fails, one whose subtest fails, a line that is no event (a
// panic's), and the package's failure.
const events = `{"Action":"start","Package":"freightsite/e2e"}
{"Action":"run","Package":"freightsite/e2e","Test":"TestGood"}
{"Action":"output","Package":"freightsite/e2e","Test":"TestGood","Output":"=== RUN   TestGood\n"}
{"Action":"pass","Package":"freightsite/e2e","Test":"TestGood","Elapsed":0.5}
{"Action":"run","Package":"freightsite/e2e","Test":"TestBad"}
{"Action":"output","Package":"freightsite/e2e","Test":"TestBad","Output":"    bad_test.go:9: the answer was 500\n"}
{"Action":"fail","Package":"freightsite/e2e","Test":"TestBad","Elapsed":1.5}
{"Action":"run","Package":"freightsite/e2e","Test":"TestLangs"}
{"Action":"run","Package":"freightsite/e2e","Test":"TestLangs/hi"}
{"Action":"output","Package":"freightsite/e2e","Test":"TestLangs/hi","Output":"    langs_test.go:4: no Hindi heading\n"}
{"Action":"fail","Package":"freightsite/e2e","Test":"TestLangs/hi","Elapsed":0.1}
{"Action":"output","Package":"freightsite/e2e","Test":"TestLangs","Output":"--- FAIL: TestLangs (0.10s)\n"}
{"Action":"fail","Package":"freightsite/e2e","Test":"TestLangs","Elapsed":0.1}
panic: a line that is no test event
{"Action":"output","Package":"freightsite/e2e","Output":"FAIL\n"}
{"Action":"fail","Package":"freightsite/e2e","Elapsed":2.2}
`

// TestStepKeepsEveryFailureOfItsTests: a step reading `go test -json`
// prints each top-level test as it ends and keeps every failed test with
// what it printed, whatever failed before it.
func TestStepKeepsEveryFailureOfItsTests(t *testing.T) {
	out := capture(t)
	s := &step{name: "e2e", json: true, tests: true}
	s.begin()
	s.read(strings.NewReader(events), new(sync.Mutex))
	if got := strings.Join(s.failedNames(), ","); got != "TestBad,TestLangs/hi" {
		t.Errorf("failed tests named %q, want TestBad,TestLangs/hi (the package, and a parent of a named subtest, left out)", got)
	}
	said := map[string]string{}
	for _, f := range s.failures {
		said[f.name] = f.said()
	}
	if !strings.Contains(said["TestBad"], "the answer was 500") || !strings.Contains(said["TestLangs/hi"], "no Hindi heading") || said["TestLangs"] != "" {
		t.Errorf("failures' output %q", said)
	}
	if s.passed != 1 {
		t.Errorf("%d tests passed, want 1", s.passed)
	}
	if !strings.Contains(s.log.String(), "panic: a line that is no test event") {
		t.Errorf("output that is no test event is lost: %q", s.log.String())
	}
	for _, want := range []string{"[e2e] ok   TestGood (0.5 s)", "[e2e] FAIL TestBad (1.5 s)", "[e2e] FAIL TestLangs"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, out)
		}
	}
}

// TestEveryFailedStepIsReported: steps that fail do not stop the ones
// after them, and the summary names each failed step with its output,
// and exits 1.
func TestEveryFailedStepIsReported(t *testing.T) {
	out := capture(t)
	steps := []*step{
		{name: "readme", args: []string{"sh", "-c", "echo 'README.md:70: make bench-quick is not a target'; exit 3"}},
		{name: "vet", args: []string{"true"}},
		{name: "bench", args: []string{"sh", "-c", "echo 'bench: freightsite build printed no report'; exit 1"}},
	}
	for _, s := range steps {
		s.run()
	}
	if code := summary(steps, time.Second); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	text := out.String()
	for _, want := range []string{
		"FAIL readme", "ok   vet", "FAIL bench",
		"--- readme failed (exit 3)", "README.md:70: make bench-quick is not a target",
		"--- bench failed (exit 1)", "bench: freightsite build printed no report",
		"make test: 2 of 3 steps failed",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "--- vet failed") {
		t.Errorf("a step that passed is reported as failed:\n%s", text)
	}

	out.Reset()
	if code := summary(steps[1:2], time.Second); code != 0 || !strings.Contains(out.String(), "make test: all 1 steps passed") {
		t.Errorf("exit %d after a passing step:\n%s", code, out)
	}
}

// TestShardsDealEveryTestOnce: each test of the package goes to exactly
// one process, the Lighthouse audit to none, and the longest tests to
// different ones.
func TestShardsDealEveryTestOnce(t *testing.T) {
	dir := t.TempDir()
	src := "package e2e\n\nfunc TestLighthouse(t *testing.T) {}\nfunc TestEveryPageOnAPhoneAndADesktop(t *testing.T) { everyPage(t) }\nfunc TestNginx(t *testing.T) {}\nfunc TestAccountJourney(t *testing.T) {\n}\n"
	for i := range 12 {
		src += fmt.Sprintf("func TestShort%d(t *testing.T) {}\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "a_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	shards, err := e2eShards(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i, s := range shards {
		for _, test := range s {
			if _, dup := seen[test]; dup {
				t.Errorf("%s dealt twice", test)
			}
			seen[test] = i
		}
	}
	if len(seen) != 15 || slices.Contains(slices.Collect(maps.Keys(seen)), "TestLighthouse") {
		t.Errorf("dealt %v, want the 15 tests but TestLighthouse", shards)
	}
	if a, b, c := seen["TestEveryPageOnAPhoneAndADesktop"], seen["TestNginx"], seen["TestAccountJourney"]; a == b || b == c || a == c {
		t.Errorf("the longest tests share a process: %v", shards)
	}
}

// TestBrowserTestsRunTheirBinary: the browser tests run from the test
// binary built once, with go test's flags in the binary's spelling and in
// their package's folder, and through go test when it did not build.
func TestBrowserTestsRunTheirBinary(t *testing.T) {
	flags := []string{"-count=1", "-parallel", "6", "-run", "^(TestA|TestB)$"}
	args, dir := e2eCommand(flags, "/tmp/x/e2e.test", false)
	if got, want := strings.Join(args, " "), "go tool test2json -t -p freightsite/e2e /tmp/x/e2e.test -test.v=test2json -test.count=1 -test.parallel 6 -test.run ^(TestA|TestB)$"; got != want || dir != "e2e" {
		t.Errorf("built: %q in %q, want %q in e2e", got, dir, want)
	}
	args, dir = e2eCommand(flags, "/tmp/x/e2e.test", true)
	if got, want := strings.Join(args, " "), "go test -json -count=1 -parallel 6 -run ^(TestA|TestB)$ ./e2e"; got != want || dir != "" {
		t.Errorf("unbuilt: %q in %q, want %q here", got, dir, want)
	}
}

// TestLongBrowserTestsExist: each test e2eLong weighs is a test of e2e (a
// renamed one would count as short and could land beside the longest).
func TestLongBrowserTestsExist(t *testing.T) {
	shards, err := e2eShards(filepath.Join("..", "..", "e2e"), 1)
	if err != nil {
		t.Fatal(err)
	}
	for name := range e2eLong {
		if !slices.Contains(shards[0], name) {
			t.Errorf("e2eLong names %s, which is no test of e2e", name)
		}
	}
}
