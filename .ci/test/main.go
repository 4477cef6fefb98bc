// Command test is `make test`: it runs every step of the test suite to its
// end whatever the others did, prints progress while they run, and ends
// with a summary of every failure; it exits 1 if any step failed.
//
// The steps: go vet; one build of the freightsite binary, which the
// browser tests and the quick benchmark share (FREIGHTSITE_BINARY), and
// one of the browser tests' test binary, which their processes share; the
// Go tests of every package but e2e, beside staticcheck, the unit tests
// of pages/ (on Node, .ci/pagetest), the quick benchmark, the tests of the packages on
// the database (formapi and internal/store, captcha, mail) again on
// PostgreSQL and the browser tests of e2e in three processes, each with
// its own server, database and Chromium (they mostly wait on the browser,
// the others on the CPU); last, the Lighthouse audit on its own, because
// it measures speed.
//
//	go run ./.ci/test
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	os.Exit(run())
}

// quiet is how long a step may print nothing before a progress line says
// what it is doing.
const quiet = 30 * time.Second

func run() int {
	start := time.Now()
	tmp, err := os.MkdirTemp("", "freightsite-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "test:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	binary := filepath.Join(tmp, "freightsite")
	e2eBinary := filepath.Join(tmp, "e2e.test")
	shared := []string{"FREIGHTSITE_BINARY=" + binary}

	packages, err := exec.Command("go", "list", "./...").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "test: go list ./...:", err)
		return 1
	}
	var others []string
	for _, p := range strings.Fields(string(packages)) {
		if p != "freightsite/e2e" {
			others = append(others, p)
		}
	}
	others = append(others, "./.ci/test") // this runner's own tests (./... leaves out dot folders)

	vet := &step{name: "vet", args: []string{"go", "vet", "./...", "./.ci/test", "./.ci/pagetest"}}
	// staticcheck at the version go.mod's tool line pins (go.sum checks
	// it), so every machine reports the same findings; its own chain, as
	// nothing waits on it.
	staticcheck := &step{name: "staticcheck", args: []string{"go", "tool", "staticcheck", "./...", "./.ci/test", "./.ci/pagetest"}}
	build := &step{name: "binary", args: []string{"go", "build", "-o", binary, "."}}
	// Built once here, not by each of the four go test processes that
	// run it (a build and link takes seconds of a core; from a cold build
	// cache they would each compile the same dependencies side by side).
	buildE2E := &step{name: "e2e binary", args: []string{"go", "test", "-c", "-o", e2eBinary, "./e2e"}}
	// -p 1: one package at a time, beside the browser tests, so the tests
	// that compare timings or watch the heap share the cores with the
	// browser tests' processes and no more.
	unit := &step{name: "go test", args: append([]string{"go", "test", "-json", "-p", "1", "-timeout", "20m"}, others...), json: true}
	// The tests of the packages on the database again on PostgreSQL (a
	// throwaway cluster each package's tests start, internal/pgtest), the
	// store several instances share.
	// The unit tests of pages/: TypeScript bundled by esbuild, run by
	// Node's test runner.
	pages := &step{name: "pages unit", args: []string{"go", "run", "./.ci/pagetest"}}
	unitPG := &step{name: "go test on PostgreSQL", args: []string{"go", "test", "-json", "-count=1", "-p", "1", "-timeout", "20m", "./formapi", "./internal/store", "./internal/captcha", "./internal/mail"}, env: []string{"FORMAPI_DB=postgres"}, json: true}
	bench := &step{name: "bench-quick", args: []string{"go", "run", "./bench", "-quick", "-bin", binary}}
	shards, err := e2eShards("e2e", e2eProcesses)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test:", err)
		return 1
	}
	// -count=1: the e2e tests run the binary built above, which the test
	// cache does not see, so a cached pass could hide a change.
	// -parallel 6: a test's parallel subtests at once (the languages, or
	// the languages and colour schemes of every page); they wait on
	// Chromium more than they use a core.
	e2eTest := []string{"-count=1", "-parallel", "6", "-timeout", "30m"}
	var e2e []*step
	for i, tests := range shards {
		// Every process but the last runs the tests named, the last every
		// other one (so a test the lists miss still runs).
		filter := []string{"-run", "^(" + strings.Join(tests, "|") + ")$"}
		if i == len(shards)-1 {
			var named []string
			for _, s := range shards[:i] {
				named = append(named, s...)
			}
			filter = []string{"-skip", "^(" + strings.Join(append(named, "TestLighthouse"), "|") + ")$"}
		}
		e2e = append(e2e, &step{name: fmt.Sprintf("e2e %d/%d", i+1, len(shards)), args: append(slices.Clone(e2eTest), filter...), env: shared, json: true, tests: true})
	}
	lighthouse := &step{name: "lighthouse", args: []string{"-count=1", "-timeout", "20m", "-run", "^TestLighthouse$"}, env: shared, json: true, tests: true, echo: true}
	steps := append(append([]*step{vet, staticcheck, build, buildE2E, unit, pages, unitPG}, e2e...), bench, lighthouse)

	vet.run()
	build.run()
	buildE2E.run()
	if build.failed() {
		// Each test builds its own binary then, and fails as it must.
		for _, s := range append(e2e, lighthouse) {
			s.env = nil
		}
		bench.args = bench.args[:len(bench.args)-2]
	}
	for _, s := range append(e2e, lighthouse) {
		s.args, s.dir = e2eCommand(s.args, e2eBinary, buildE2E.failed())
	}
	var wg sync.WaitGroup
	wg.Go(unit.run)
	wg.Go(pages.run)
	wg.Go(staticcheck.run)
	// Its own chain too: beside the browser tests the Go tests get a
	// small share of the cores, and the benchmark after them made that
	// chain the longest of the suite.
	wg.Go(bench.run)
	// Its own chain: the PostgreSQL run mostly waits (on the server, and
	// on the tests' slow clients), so after the Go tests it made their
	// chain the longest.
	wg.Go(unitPG.run)
	for _, s := range e2e {
		wg.Go(s.run)
	}
	wg.Wait()
	lighthouse.run()

	return summary(steps, time.Since(start))
}

// e2eCommand is the command that runs the browser tests with go test's
// flags: their test binary through test2json (as go test -json runs it,
// in the package's folder), or go test itself when the binary did not
// build, so that each step shows the compiler's errors.
func e2eCommand(flags []string, testBinary string, unbuilt bool) (args []string, dir string) {
	if unbuilt {
		return append(append([]string{"go", "test", "-json"}, flags...), "./e2e"), ""
	}
	args = []string{"go", "tool", "test2json", "-t", "-p", "freightsite/e2e", testBinary, "-test.v=test2json"}
	for _, f := range flags {
		if name, ok := strings.CutPrefix(f, "-"); ok {
			f = "-test." + name
		}
		args = append(args, f)
	}
	return args, "e2e"
}

// e2eProcesses is how many processes of the test binary share the
// browser tests, each with its own server, database and Chromium: the
// tests of a process run one after the other and each mostly waits on its
// browser, so three overlap their waits on two cores (the browser tests,
// with their browsers and servers, take several times the CPU of the Go
// tests of the other packages, the PostgreSQL run and the quick benchmark
// together).
const e2eProcesses = 3

// e2eLong weighs the browser tests that take longest, in seconds of a
// make test on two cores, so that e2eShards deals them apart; every other
// test takes 10 s or less and counts as 4. Rough weights are enough: they
// only balance the processes, and the summary's times show when one
// process ends far after the others.
var e2eLong = map[string]float64{
	"TestEveryPageOnAPhoneAndADesktop": 87, "TestAccountJourney": 74, "TestRegistrationBannerSaysWhatTheServerSaid": 44,
	"TestNginx": 42, "TestServiceWorkerUpdatesAfterRebuild": 30, "TestFilePicker": 23,
	"TestDonationEmptyAndInvalidAmountsAreRefused": 20, "TestREADME": 18, "TestMemberProfilesShowAllNineFacts": 15,
	"TestImportCheckOneCauseAndDownload": 13, "TestDataInThePagesLanguage": 12, "TestOfflineContactMessageIsSentOnce": 12,
	"TestDonationMonthlyPostsASubscription": 12, "TestImportCheckProgressAndCancel": 12, "TestImportCheckSaysEachCause": 12,
	"TestDevShowsEachSaveInTheOpenPage": 11, "TestFeedbackPage": 11, "TestOfflinePagesInTheVisitorsLanguage": 11,
	"TestOfflineFeedbackKeepsItsAttachment": 11,
}

var testFunc = regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)

// e2eShards deals the tests of a package (from its source, the Lighthouse
// audit left out) to n processes, longest first, each to the process with
// the fewest seconds so far.
func e2eShards(dir string, n int) ([][]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	var tests []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(src), -1) {
			if m[1] != "TestLighthouse" {
				tests = append(tests, m[1])
			}
		}
	}
	seconds := func(test string) float64 { return cmp.Or(e2eLong[test], 4) }
	slices.SortStableFunc(tests, func(a, b string) int { return cmp.Compare(seconds(b), seconds(a)) })
	shards, load := make([][]string, n), make([]float64, n)
	for _, test := range tests {
		i := slices.Index(load, slices.Min(load))
		shards[i] = append(shards[i], test)
		load[i] += seconds(test)
	}
	return shards, nil
}

// printing serialises the lines of steps running at the same time, to
// stdout.
var (
	printing sync.Mutex
	stdout   io.Writer = os.Stdout
)

func printf(format string, args ...any) {
	printing.Lock()
	defer printing.Unlock()
	fmt.Fprintf(stdout, format, args...)
}

// step is one command of the suite.
type step struct {
	name  string
	args  []string
	dir   string // where it runs ("": here)
	env   []string
	json  bool // go test -json: progress and failures come from its events
	tests bool // print each top-level test as it ends (else each package)
	echo  bool // print the output as it comes (Lighthouse's scores)

	took       time.Duration
	cpu        time.Duration // user and system time of the step and the processes it waited for
	code       int
	log        bytes.Buffer         // output that is not a test's (build errors, panics, plain output)
	failures   []failure            // failed tests and packages with their output
	testFailed map[string]bool      // packages with a failed test
	running    map[string]time.Time // top-level tests started and not ended, by package and name
	passed     int
	said       time.Time // when the step last printed
}

type failure struct {
	name   string
	output string
}

// said is what a failed test printed, "" when it only failed because a
// subtest did (its subtest's output is shown).
func (f failure) said() string {
	var lines []string
	for _, l := range strings.SplitAfter(f.output, "\n") {
		if !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- FAIL: ") && l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return f.output
}

// failedNames names the failed tests, a test left out when one of its
// subtests is named.
func (s *step) failedNames() []string {
	var names []string
	for _, f := range s.failures {
		if !slices.ContainsFunc(s.failures, func(g failure) bool { return strings.HasPrefix(g.name, f.name+"/") }) {
			names = append(names, f.name)
		}
	}
	return names
}

func (s *step) failed() bool { return s.code != 0 }

// command is the step's command line, a long test list cut short.
func (s *step) command() string {
	line := strings.Join(s.args, " ")
	if len(line) > 160 {
		return line[:150] + " ... " + line[len(line)-10:]
	}
	return line
}

// event is a line of `go test -json` (test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

func (s *step) run() {
	printf("== %s: %s\n", s.name, s.command())
	start := time.Now()
	s.begin()
	cmd := exec.Command(s.args[0], s.args[1:]...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), s.env...)
	pipe, err := cmd.StdoutPipe()
	if err == nil {
		cmd.Stderr = cmd.Stdout
		err = cmd.Start()
	}
	if err != nil {
		s.code = 1
		s.log.WriteString(err.Error() + "\n")
		return
	}

	var mu sync.Mutex
	done := make(chan struct{})
	go s.heartbeat(&mu, done)
	s.read(pipe, &mu)
	err = cmd.Wait()
	close(done)
	s.took = time.Since(start)
	if st := cmd.ProcessState; st != nil {
		s.cpu = st.UserTime() + st.SystemTime()
	}
	if err != nil {
		s.code = 1
		if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() > 0 {
			s.code = exit.ExitCode()
		}
	}
	mark := "ok  "
	if s.failed() {
		mark = "FAIL"
	}
	printf("%s %s (%s)\n", mark, s.name, round(s.took))
}

// begin readies the step's records before its command runs.
func (s *step) begin() {
	s.said, s.running, s.testFailed = time.Now(), map[string]time.Time{}, map[string]bool{}
}

// read follows the step's output: test events, or plain lines.
func (s *step) read(r io.Reader, mu *sync.Mutex) {
	// Output of each test (and package) until it ends; kept for failures.
	pending := map[string]*strings.Builder{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Text()
		var e event
		if !s.json || !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil || e.Action == "" {
			mu.Lock()
			s.log.WriteString(line + "\n")
			if s.echo {
				s.say("%s\n", line)
			}
			mu.Unlock()
			continue
		}
		key := e.Package + " " + e.Test
		mu.Lock()
		switch e.Action {
		case "start", "run":
			if e.Test != "" && !strings.Contains(e.Test, "/") {
				s.running[key] = time.Now()
			}
		case "build-output": // compiler errors, shown with the step's failure
			s.log.WriteString(e.Output)
		case "output":
			if pending[key] == nil {
				pending[key] = &strings.Builder{}
			}
			pending[key].WriteString(e.Output)
			if s.echo && e.Test != "" && !strings.HasPrefix(e.Output, "=== ") && !strings.HasPrefix(e.Output, "--- ") {
				s.say("%s", e.Output)
			}
		case "pass", "skip", "fail":
			topLevel := e.Test != "" && !strings.Contains(e.Test, "/")
			took := e.Elapsed // a test whose subtests run in parallel reports 0
			if since, ok := s.running[key]; ok && topLevel {
				took = max(took, time.Since(since).Seconds())
				delete(s.running, key)
			}
			// A test by its name where a step runs one package, else after
			// its package.
			name := strings.TrimSpace(strings.TrimPrefix(e.Package, "freightsite/") + " " + e.Test)
			if s.tests && e.Test != "" {
				name = e.Test
			}
			switch {
			case e.Action == "fail":
				// A package fails with its tests; its own output
				// matters only when no test failed (TestMain, a panic).
				if e.Test != "" || !s.testFailed[e.Package] {
					output := ""
					if b := pending[key]; b != nil {
						output = b.String()
					}
					s.failures = append(s.failures, failure{name, output})
				}
				if e.Test != "" {
					s.testFailed[e.Package] = true
				}
				if e.Test == "" || topLevel {
					s.say("FAIL %s (%.1f s)\n", name, took)
				}
			case e.Action == "pass" && topLevel:
				s.passed++
				if s.tests {
					s.say("ok   %s (%.1f s)\n", name, took)
				}
			case e.Action == "pass" && e.Test == "" && !s.tests:
				s.say("ok   %s (%.1f s)\n", name, took)
			case e.Action == "skip" && topLevel && s.tests:
				s.say("skip %s\n", name)
			}
			delete(pending, key)
		}
		mu.Unlock()
	}
}

// say prints a line of the step, prefixed with its name (the caller holds
// the step's lock).
func (s *step) say(format string, args ...any) {
	s.said = time.Now()
	printf("[%s] "+format, append([]any{s.name}, args...)...)
}

// heartbeat says what a step is doing when it has been quiet a while.
func (s *step) heartbeat(mu *sync.Mutex, done chan struct{}) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-tick.C:
			mu.Lock()
			if now.Sub(s.said) >= quiet {
				var doing []string
				for key, since := range s.running {
					_, name, _ := strings.Cut(key, " ") // the test, without its package
					doing = append(doing, fmt.Sprintf("%s for %s", name, round(now.Sub(since))))
				}
				slices.Sort(doing)
				what := "working"
				if len(doing) > 0 {
					what = "running " + strings.Join(doing, ", ")
				}
				if s.json {
					what += fmt.Sprintf(" (%d passed so far)", s.passed)
				}
				s.say("... %s\n", what)
			}
			mu.Unlock()
		}
	}
}

// summary prints each step's result and every failure with its output,
// and returns the exit code.
func summary(steps []*step, took time.Duration) int {
	printf("\n== summary\n")
	failed := 0
	for _, s := range steps {
		mark := "ok  "
		if s.failed() {
			mark, failed = "FAIL", failed+1
		}
		printf("%s %-12s %8s (cpu %s)", mark, s.name, round(s.took), round(s.cpu))
		if names := s.failedNames(); len(names) > 0 {
			printf("  %s", strings.Join(names, ", "))
		}
		printf("\n")
	}
	for _, s := range steps {
		if !s.failed() {
			continue
		}
		printf("\n--- %s failed (exit %d): %s\n", s.name, s.code, s.command())
		printf("%s", tail(s.log.String(), 60))
		for _, f := range s.failures {
			if said := f.said(); said != "" {
				printf("\n--- %s\n%s", f.name, said)
			}
		}
	}
	if failed > 0 {
		printf("\nmake test: %d of %d steps failed, in %s\n", failed, len(steps), round(took))
		return 1
	}
	printf("\nmake test: all %d steps passed, in %s\n", len(steps), round(took))
	return 0
}

func tail(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "")
}

func round(d time.Duration) time.Duration {
	return d.Round(100 * time.Millisecond)
}
