// Command bench measures freightsite on this machine in one run (`make
// bench`): the build (wall time, ms per page, the page-weight table and
// budgets as the build prints them), the API and the static site under a
// bounded load from this program against `freightsite serve` running as
// its own process on a temporary database, each next to the same load
// against a bare Go hello-world server (also its own process), and the
// receivables validator against bare encoding/csv (the benchmark in
// receivables/). It prints the figures and writes them to
// bench/results/<time>.json and .txt, so runs can be compared over time.
//
//	go run ./bench [-results bench/results]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	hello := flag.String("hello", "", "only serve the bare hello-world handler on this address (bench starts itself this way)")
	resultsDir := flag.String("results", filepath.Join("bench", "results"), "folder the figures are written to")
	flag.Parse()
	if *hello != "" {
		err := http.ListenAndServe(*hello, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, "Hello, world!\n")
		}))
		fmt.Fprintln(os.Stderr, "bench hello:", err)
		os.Exit(1)
	}
	if err := run(*resultsDir); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// Load settings: the same for a call and the hello world it is compared
// with, so the ratio is the figure.
const (
	clients     = 32
	maxRequests = 200_000
	runFor      = 5 * time.Second
)

// report is everything one run measured, as written to the JSON file.
type report struct {
	Time    time.Time    `json:"time"`
	Commit  string       `json:"commit"`
	Machine machine      `json:"machine"`
	Build   buildFigures `json:"build"`
	Loads   []loadResult `json:"loads"`
	CSV     csvFigures   `json:"csv"`
	Targets []target     `json:"targets"`
}

type machine struct {
	CPUs  int    `json:"cpus"`
	Model string `json:"cpuModel"`
	Go    string `json:"go"`
	OS    string `json:"os"`
}

type target struct {
	What string `json:"what"`
	Met  bool   `json:"met"`
	Got  string `json:"got"`
}

func run(resultsDir string) error {
	if _, err := os.Stat("go.mod"); err != nil {
		return errors.New("run bench from the source tree's root (make bench)")
	}
	tmp, err := os.MkdirTemp("", "freightsite-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	var text bytes.Buffer
	out := io.MultiWriter(os.Stdout, &text)
	rep := report{Time: time.Now().UTC(), Commit: commit(), Machine: machine{CPUs: runtime.NumCPU(), Model: cpuModel(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH}}
	fmt.Fprintf(out, "freightsite bench %s, commit %s\n%d CPUs (%s), %s %s\n\n", rep.Time.Format(time.RFC3339), rep.Commit, rep.Machine.CPUs, rep.Machine.Model, rep.Machine.Go, rep.Machine.OS)

	bin := filepath.Join(tmp, "freightsite")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return fmt.Errorf("building freightsite: %v\n%s", err, b)
	}

	fmt.Fprintln(out, "== build: freightsite build (every page in en, hi, ma)")
	if rep.Build, err = measureBuild(out, bin, filepath.Join(tmp, "dist")); err != nil {
		return err
	}
	fmt.Fprintf(out, "wall time %d ms; server render %.2f ms a page; pages over budget: %d (budgets: no-island pages <= 20 KB gzip HTML+CSS and no JavaScript, island pages <= 80 KB gzip JavaScript)\n\n",
		rep.Build.WallMs, rep.Build.MsPerPage, rep.Build.OverBudget)

	if rep.Loads, err = measureLoads(out, bin, tmp); err != nil {
		return err
	}

	fmt.Fprintln(out, "\n== CSV: receivables validator against bare encoding/csv (go test ./receivables -bench Validate, 1,000,000 rows)")
	if rep.CSV, err = measureCSV(); err != nil {
		return err
	}
	fmt.Fprintf(out, "bare encoding/csv read %.0f rows/s; csv validate %.0f rows/s (%.2f of bare)\n", rep.CSV.BareRowsPerSecond, rep.CSV.ValidateRowsPerSecond, rep.CSV.ValidateRowsPerSecond/rep.CSV.BareRowsPerSecond)

	rep.Targets = targets(rep)
	fmt.Fprintln(out, "\n== targets")
	for _, t := range rep.Targets {
		mark := "met    "
		if !t.Met {
			mark = "MISSED "
		}
		fmt.Fprintf(out, "%s %s: %s\n", mark, t.What, t.Got)
	}

	if err := os.MkdirAll(resultsDir, 0o755); err != nil {
		return err
	}
	name := filepath.Join(resultsDir, rep.Time.Format("2006-01-02T150405Z"))
	js, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(name+".json", append(js, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(name+".txt", text.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("\nwritten to %s.json and %s.txt\n", name, name)
	return nil
}

type buildFigures struct {
	WallMs     int64   `json:"wallMs"`
	Pages      int     `json:"pages"`
	RenderMs   int     `json:"renderMs"`
	MsPerPage  float64 `json:"msPerPage"`
	OverBudget int     `json:"overBudget"`
}

var buildSummary = regexp.MustCompile(`(\d+) pages, \d+ files, (\d+) over budget;.* rendered in (\d+) ms \(([\d.]+) ms a page\)`)

// measureBuild runs `freightsite build`, passing its page-weight table
// through, and times it.
func measureBuild(out io.Writer, bin, dist string) (buildFigures, error) {
	var printed bytes.Buffer
	cmd := exec.Command(bin, "build", "--out", dist)
	cmd.Stdout = io.MultiWriter(out, &printed)
	cmd.Stderr = out
	start := time.Now()
	err := cmd.Run()
	f := buildFigures{WallMs: time.Since(start).Milliseconds()}
	m := buildSummary.FindStringSubmatch(printed.String())
	if m == nil {
		return f, fmt.Errorf("freightsite build: %v (no summary line)", err)
	}
	f.Pages, _ = strconv.Atoi(m[1])
	f.OverBudget, _ = strconv.Atoi(m[2])
	f.RenderMs, _ = strconv.Atoi(m[3])
	f.MsPerPage, _ = strconv.ParseFloat(m[4], 64)
	if err != nil {
		return f, fmt.Errorf("freightsite build failed (a page over its budget?): %w", err)
	}
	return f, nil
}

// measureLoads starts the hello world and `freightsite serve` on a
// database holding 200 news items, then runs each load.
func measureLoads(out io.Writer, bin, tmp string) ([]loadResult, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	helloAddr := freeAddr()
	hello, err := start(filepath.Join(tmp, "hello.log"), self, "-hello", helloAddr)
	if err != nil {
		return nil, err
	}
	defer stop(hello)

	db := filepath.Join(tmp, "bench.db")
	items := filepath.Join(tmp, "news.json")
	if err := os.WriteFile(items, newsItems(192), 0o644); err != nil {
		return nil, err
	}
	// The database's first open loads the 8 items of data/news.json.
	if b, err := exec.Command(bin, "news", "import", items, "--db", db).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("importing news: %v\n%s", err, b)
	}
	addr := freeAddr()
	serve, err := start(filepath.Join(tmp, "serve.log"), bin, "serve", "--addr", addr, "--dist", filepath.Join(tmp, "dist"), "--db", db, "--rate-limit", "contact=off")
	if err != nil {
		return nil, err
	}
	defer stop(serve)
	site, helloURL := "http://"+addr, "http://"+helloAddr
	for _, u := range []string{helloURL + "/", site + "/healthz"} {
		if err := waitUp(u); err != nil {
			return nil, err
		}
	}
	token, err := xsrfToken(site)
	if err != nil {
		return nil, err
	}

	// Requests look like a browser's that has visited the site: gzip
	// accepted, the anti-forgery cookie sent back.
	get := func(u string) func() (*http.Request, error) {
		return func() (*http.Request, error) {
			req, err := http.NewRequest(http.MethodGet, u, nil)
			if err == nil {
				req.Header.Set("Accept-Encoding", "gzip")
				req.AddCookie(&http.Cookie{Name: "XSRF-TOKEN", Value: token})
			}
			return req, err
		}
	}
	post := func(u, contentType, body string) func() (*http.Request, error) {
		return func() (*http.Request, error) {
			req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
			if err == nil {
				req.Header.Set("Content-Type", contentType)
				req.Header.Set("X-XSRF-TOKEN", token)
				req.Header.Set("X-Requested-With", "XMLHttpRequest")
				req.AddCookie(&http.Cookie{Name: "XSRF-TOKEN", Value: token})
			}
			return req, err
		}
	}
	contact, _ := json.Marshal(map[string]string{"name": "Load Test", "email": "load@example.in", "phone": "9876543210", "subject": "Truck availability", "message": "Two 32-foot containers free from Pune to Nagpur on Monday."})
	signIn := url.Values{"username": {"nobody@example.in"}, "password": {"Wrong#Pass1"}}.Encode()
	loads := []load{
		{name: "hello world (bare Go handler)", request: get(helloURL + "/")},
		{name: "GET /api/news (200 items)", request: get(site + "/api/news")},
		{name: "GET /api/news?search=corridor", request: get(site + "/api/news?search=corridor")},
		{name: "GET / (static home page)", request: get(site + "/")},
		{name: "POST /auth (wrong password; throttle on)", request: post(site+"/auth", "application/x-www-form-urlencoded", signIn), workers: 8, cold: true},
		{name: "hello world, again", request: get(helloURL + "/")},
		// Last: each post leaves a notification for the mail sender to
		// log, work that would otherwise weigh on the runs after it.
		{name: "POST /api/contact_us", request: post(site+"/api/contact_us", "application/json", string(contact))},
	}
	fmt.Fprintf(out, "== load on loopback: %d clients (8 for /auth), at most %d requests or %s per run after a warm-up; freightsite serve and the hello world each in its own process; gzip accepted\n", clients, maxRequests, runFor)
	fmt.Fprintf(out, "%-42s %9s %8s %8s %8s %9s  %s\n", "run", "req/s", "p50 ms", "p99 ms", "max ms", "body B", "answers")
	var results []loadResult
	for _, l := range loads {
		if l.workers == 0 {
			l.workers = clients
		}
		l.requests, l.duration = maxRequests, runFor
		r := l.run()
		results = append(results, r)
		fmt.Fprintf(out, "%-42s %9.0f %8.2f %8.2f %8.2f %9d  %s\n", r.Name, r.PerSecond, r.P50ms, r.P99ms, r.MaxMs, r.BodyBytes, r.statusText())
	}
	hw := helloRate(results)
	fmt.Fprintf(out, "\nagainst the hello world (the better of its two runs, %.0f req/s): ", hw)
	for _, r := range results {
		if !strings.HasPrefix(r.Name, "hello world") {
			fmt.Fprintf(out, "%s %.2f; ", r.Name, r.PerSecond/hw)
		}
	}
	fmt.Fprintln(out)
	if err := stop(serve); err != nil {
		return nil, fmt.Errorf("freightsite serve did not stop cleanly on SIGTERM: %w", err)
	}
	return results, nil
}

type csvFigures struct {
	BareRowsPerSecond     float64 `json:"bareRowsPerSecond"`
	ValidateRowsPerSecond float64 `json:"validateRowsPerSecond"`
}

var benchRows = regexp.MustCompile(`BenchmarkValidate/(\S+?)(?:-\d+)?\s.*?([\d.e+]+) rows/s`)

// measureCSV runs the validator benchmark of receivables/ (its bare
// encoding/csv and Validate parts).
func measureCSV() (csvFigures, error) {
	b, err := exec.Command("go", "test", "./receivables", "-run", "^$", "-bench", "^BenchmarkValidate$/^(bare-encoding-csv|Validate)$", "-benchtime", "3x").CombinedOutput()
	if err != nil {
		return csvFigures{}, fmt.Errorf("go test -bench Validate: %v\n%s", err, b)
	}
	var f csvFigures
	for _, m := range benchRows.FindAllStringSubmatch(string(b), -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		switch m[1] {
		case "bare-encoding-csv":
			f.BareRowsPerSecond = v
		case "Validate":
			f.ValidateRowsPerSecond = v
		}
	}
	if f.BareRowsPerSecond == 0 || f.ValidateRowsPerSecond == 0 {
		return f, fmt.Errorf("no rows/s figures in the benchmark's output:\n%s", b)
	}
	return f, nil
}

// targets compares the figures with the targets.
func targets(rep report) []target {
	find := func(prefix string) loadResult {
		for _, r := range rep.Loads {
			if strings.HasPrefix(r.Name, prefix) {
				return r
			}
		}
		return loadResult{}
	}
	hello, news, contact := helloRate(rep.Loads), find("GET /api/news (200"), find("POST /api/contact_us")
	ok := contact.Status[http.StatusOK]
	return []target{
		{"every page within its weight budget", rep.Build.OverBudget == 0, fmt.Sprintf("%d of %d pages over", rep.Build.OverBudget, rep.Build.Pages)},
		{"contact posts >= 2,000 acknowledged/s (synchronous FULL)", contact.PerSecond >= 2000 && ok == contact.Requests, fmt.Sprintf("%.0f/s, %d of %d acknowledged", contact.PerSecond, ok, contact.Requests)},
		{"contact posts p99 < 50 ms", contact.P99ms < 50, fmt.Sprintf("p99 %.2f ms", contact.P99ms)},
		{"GET /api/news >= half the hello-world rate", news.PerSecond >= hello/2, fmt.Sprintf("%.0f/s = %.2f of %.0f/s", news.PerSecond, news.PerSecond/hello, hello)},
	}
}

// helloRate is the baseline: the better of the hello world's two runs (at
// the start and before the contact posts), so a moment when something
// else on the machine slowed one of them does not flatter the ratios.
func helloRate(results []loadResult) float64 {
	best := 0.0
	for _, r := range results {
		if strings.HasPrefix(r.Name, "hello world") {
			best = max(best, r.PerSecond)
		}
	}
	return best
}

// start runs a server process with its output in logFile.
func start(logFile, name string, args ...string) (*exec.Cmd, error) {
	log, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// stop sends SIGTERM and waits; the error is the exit status (nil when
// the process stopped with 0 or was already stopped).
func stop(cmd *exec.Cmd) error {
	if cmd.ProcessState != nil {
		return nil
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == -1 {
			return nil // the hello world dies of the signal
		}
		return err
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		return errors.New("no exit 30 s after SIGTERM")
	}
}

func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitUp(u string) error {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(u); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer 200 within 20 s", u)
}

// xsrfToken fetches an anti-forgery cookie, as the site's pages do.
func xsrfToken(site string) (string, error) {
	resp, err := http.Get(site + "/api/xsrf-token")
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "XSRF-TOKEN" {
			return c.Value, nil
		}
	}
	return "", errors.New("GET /api/xsrf-token set no XSRF-TOKEN cookie")
}

func commit() string {
	b, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(b))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += "+changes"
	}
	return c
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
