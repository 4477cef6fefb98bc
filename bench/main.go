// Command bench measures freightsite on this machine in one run (`make
// bench`): the build (wall time, ms per page, the page-weight table and
// budgets as the build prints them), the API and the static site under a
// bounded load from this program against `freightsite serve` running as
// its own process on a temporary database, each next to its yardstick
// under the same load in the same run: the API beside a bare Go
// hello-world server, the static site beside nginx serving the same
// files, the build beside Hugo building a site of the same shape (all
// paired: see paired.go), the
// receivables validator against bare encoding/csv (the benchmark in
// receivables/) and csv fix's memory on files of 5 and 50 MB (csv.go). It prints the figures and writes them to
// bench/results/<time>.json and .txt, so runs can be compared over time.
//
// It then attacks serve's memory (memory.go: connections with oversized
// header blocks and pipelines never read) and reports its resident
// memory under the attack and after it.
//
// With -quick (`make bench-quick`, run by `make test`) every section runs
// for a fraction of a second, targets are not judged and nothing is
// written: it checks that the benchmark still works, fast. With -only the
// build runs and then only the sections named (build, hugo, dev, loads,
// postgres, memory, csv); their targets are judged and nothing is
// written. Either way a section that breaks (the build fails, a load gets
// answers it should not, a figure is missing) fails the run.
//
//	go run ./bench [-results bench/results] [-quick] [-only loads,memory] [-bin freightsite]
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
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"freightsite/generator"
)

func main() {
	hello := flag.String("hello", "", "only serve the bare hello-world handler on this address (bench starts itself this way)")
	resultsDir := flag.String("results", filepath.Join("bench", "results"), "folder the figures are written to")
	quick := flag.Bool("quick", false, "run every section for a fraction of a second, judge no targets and write nothing: checks that the benchmark works")
	bin := flag.String("bin", "", "freightsite binary to measure (default: go build one from this tree)")
	only := flag.String("only", "", "run the build and only these sections, comma-separated (build, hugo, dev, loads, postgres, memory, csv); judge their targets, write nothing")
	flag.Parse()
	if *hello != "" {
		err := http.ListenAndServe(*hello, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, "Hello, world!\n")
		}))
		fmt.Fprintln(os.Stderr, "bench hello:", err)
		os.Exit(1)
	}
	size := full
	if *quick {
		size = quickSize
	}
	if *only != "" {
		size.only = map[string]bool{}
		for _, name := range strings.Split(*only, ",") {
			name = strings.TrimSpace(name)
			if !slices.Contains(sections, name) {
				fmt.Fprintf(os.Stderr, "bench: -only %s: no section %q (the sections: %s)\n", *only, name, strings.Join(sections, ", "))
				os.Exit(2)
			}
			size.only[name] = true
		}
	}
	if err := run(*resultsDir, *bin, size); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// Load settings: the same for a call and the hello world it is compared
// with, so the ratio is the figure.
const clients = 32

// size is how much each section does.
type size struct {
	quick       bool
	maxRequests int             // a load run ends after this many requests...
	runFor      time.Duration   // ...or this long, whichever comes first
	warmUp      int             // requests each client sends before a run is timed
	rounds      int             // rounds of the paired load runs
	pairs       int             // paired builds, ours and Hugo's
	csvRows     int             // rows of the validator benchmark's file
	csvFixMB    [2]int          // sizes of the files csv fix corrects, in MB
	only        map[string]bool // the sections to run beside the build (nil: all)
}

// sections are the sections, as -only names them; the build of the site
// the others measure runs whatever is named.
var sections = []string{"build", "hugo", "dev", "loads", "postgres", "memory", "csv"}

// runs reports whether the section named runs.
func (sz size) runs(section string) bool { return sz.only == nil || sz.only[section] }

var (
	full      = size{maxRequests: 200_000, runFor: 2 * time.Second, warmUp: 5, rounds: 5, pairs: 9, csvRows: 1_000_000, csvFixMB: [2]int{5, 50}}
	quickSize = size{quick: true, maxRequests: 2_000, runFor: 200 * time.Millisecond, warmUp: 1, rounds: 1, pairs: 1, csvRows: 20_000, csvFixMB: [2]int{1, 5}}
)

// report is everything one run measured, as written to the JSON file.
type report struct {
	Time    time.Time     `json:"time"`
	Commit  string        `json:"commit"`
	Machine machine       `json:"machine"`
	Load    string        `json:"loadAverage"` // /proc/loadavg at the start
	Build   buildFigures  `json:"build"`
	Dev     devFigures    `json:"dev"`
	Hugo    hugoFigures   `json:"hugo"`
	Loads   []loadResult  `json:"loads"`
	Ratios  loadRatios    `json:"ratios"`
	Memory  memoryFigures `json:"memory"`
	CSV     csvFigures    `json:"csv"`
	CSVFix  csvFixFigures `json:"csvFix"`
	Targets []target      `json:"targets"`

	// Postgres: contact posts on PostgreSQL, one instance then two (pg.go).
	Postgres []loadResult `json:"postgres"`
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

func run(resultsDir, bin string, sz size) error {
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
	mode := ""
	if sz.quick {
		mode = " (quick: every section briefly, to check it works; the figures mean little and no target is judged)"
	}
	rep.Load = loadAverage()
	fmt.Fprintf(out, "freightsite bench %s, commit %s%s\n%d CPUs (%s), %s %s; load average %s\n\n", rep.Time.Format(time.RFC3339), rep.Commit, mode, rep.Machine.CPUs, rep.Machine.Model, rep.Machine.Go, rep.Machine.OS, rep.Load)

	if bin == "" {
		bin = filepath.Join(tmp, "freightsite")
		if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			return fmt.Errorf("building freightsite: %v\n%s", err, b)
		}
	}

	fmt.Fprintln(out, "== build: freightsite build (every page in en, hi, ma)")
	if rep.Build, err = measureBuild(out, bin, filepath.Join(tmp, "dist")); err != nil {
		return err
	}
	fmt.Fprintf(out, "wall time %d ms; server render %.2f ms a page; pages over budget: %d (budgets: no-island pages <= %d KB gzip HTML+CSS and no JavaScript, island pages <= %d KB gzip JavaScript, images <= %d KB a page)\n\n",
		rep.Build.WallMs, rep.Build.MsPerPage, rep.Build.OverBudget, generator.BudgetStaticHTMLCSS/1024, generator.BudgetIslandJS/1024, generator.BudgetImages/1024)

	if sz.runs("hugo") {
		if rep.Hugo, err = measureHugo(out, bin, tmp, sz); err != nil {
			return err
		}
		fmt.Fprintln(out)
	}

	if sz.runs("dev") {
		if rep.Dev, err = measureDev(out, bin, tmp, sz); err != nil {
			return err
		}
	}

	if sz.runs("loads") || sz.runs("postgres") {
		if rep.Loads, rep.Ratios, err = measureLoads(out, bin, tmp, sz); err != nil {
			return err
		}
	}

	for _, r := range rep.Loads {
		if strings.HasPrefix(r.Name, "POST /api/contact_us") && sz.runs("postgres") {
			if rep.Postgres, err = measurePostgres(out, bin, tmp, sz, r); err != nil {
				return err
			}
		}
	}

	if sz.runs("memory") {
		fmt.Fprintln(out)
		if rep.Memory, err = measureMemory(out, bin, tmp, sz); err != nil {
			return err
		}
	}

	if sz.runs("csv") {
		fmt.Fprintf(out, "\n== CSV: receivables validator against bare encoding/csv (go test ./receivables -bench Validate, %d rows, %d rounds)\n", sz.csvRows, sz.rounds)
		if rep.CSV, err = measureCSV(sz.csvRows, sz.rounds); err != nil {
			return err
		}
		fmt.Fprintf(out, "bare encoding/csv read %.0f rows/s; csv validate %.0f rows/s; validate / bare, the two in turns, median (min–max) of the rounds: %s in wall time, %s in the process's CPU time (every thread)\n",
			rep.CSV.BareRowsPerSecond, rep.CSV.ValidateRowsPerSecond, rep.CSV.Ratio, rep.CSV.RatioCPU)
		fmt.Fprintf(out, "\n== CSV: freightsite csv fix, as its own process, on generated files of %d and %d MB with problems to correct\n", sz.csvFixMB[0], sz.csvFixMB[1])
		if rep.CSVFix, err = measureCSVFix(out, bin, tmp, sz.csvFixMB); err != nil {
			return err
		}
	}

	if sz.quick {
		fmt.Fprintln(out, "\nquick run: every section works; targets not judged, nothing written (make bench measures)")
		return nil
	}
	rep.Targets = targets(rep, sz)
	fmt.Fprintln(out, "\n== targets")
	for _, t := range rep.Targets {
		mark := "met    "
		if !t.Met {
			mark = "MISSED "
		}
		fmt.Fprintf(out, "%s %s: %s\n", mark, t.What, t.Got)
	}
	if sz.only != nil {
		fmt.Fprintln(out, "\n-only run: the targets of the sections run judged, nothing written")
		return nil
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

// buildFigures are the build's own figures (`freightsite build --report
// json`) and its wall time as a whole process.
type buildFigures struct {
	WallMs     int64                  `json:"wallMs"`
	Pages      int                    `json:"pages"`
	Files      int                    `json:"files"`
	OverBudget int                    `json:"overBudget"`
	BundleMs   float64                `json:"bundleMs"`
	RuntimesMs float64                `json:"runtimesMs"`
	RenderMs   float64                `json:"renderMs"`
	MsPerPage  float64                `json:"msPerPage"`
	TotalMs    float64                `json:"totalMs"`
	Weights    []generator.PageWeight `json:"weights"`
}

// measureBuild runs `freightsite build --report json`, prints the
// page-weight table from its report and times it.
func measureBuild(out io.Writer, bin, dist string) (buildFigures, error) {
	var printed bytes.Buffer
	cmd := exec.Command(bin, "build", "--out", dist, "--report", "json")
	cmd.Stdout = &printed
	cmd.Stderr = out
	start := time.Now()
	err := cmd.Run()
	f := buildFigures{WallMs: time.Since(start).Milliseconds()}
	var r generator.Report
	if jsonErr := json.Unmarshal(printed.Bytes(), &r); jsonErr != nil {
		status := "exit 0"
		if err != nil {
			status = err.Error()
		}
		return f, fmt.Errorf("freightsite build --report json (%s) printed no report: %v; it printed:\n%.400s", status, jsonErr, printed.Bytes())
	}
	r.Print(out)
	f.Pages, f.Files, f.OverBudget, f.Weights = len(r.Pages), r.Files, len(r.OverBudget()), r.Pages
	f.BundleMs, f.RuntimesMs, f.RenderMs, f.TotalMs = ms(r.Bundle), ms(r.Start), ms(r.Render), ms(r.Duration)
	f.MsPerPage = r.MsPerPage()
	if err != nil {
		return f, fmt.Errorf("freightsite build failed (%d pages over their budget): %w", f.OverBudget, err)
	}
	if f.Pages == 0 {
		return f, errors.New("freightsite build reported no pages")
	}
	return f, nil
}

// measureLoads starts the hello world, nginx and `freightsite serve` on
// a database holding 200 news items, then runs each load.
func measureLoads(out io.Writer, bin, tmp string, sz size) ([]loadResult, loadRatios, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, loadRatios{}, err
	}
	helloAddr := freeAddr()
	hello, err := start(filepath.Join(tmp, "hello.log"), self, "-hello", helloAddr)
	if err != nil {
		return nil, loadRatios{}, err
	}
	defer stop(hello)

	db := filepath.Join(tmp, "bench.db")
	items := filepath.Join(tmp, "news.json")
	if err := os.WriteFile(items, newsItems(192), 0o644); err != nil {
		return nil, loadRatios{}, err
	}
	// The database's first open loads the 8 items of data/news.json.
	if b, err := exec.Command(bin, "news", "import", items, "--db", db).CombinedOutput(); err != nil {
		return nil, loadRatios{}, fmt.Errorf("importing news: %v\n%s", err, b)
	}
	addr := freeAddr()
	serve, err := start(filepath.Join(tmp, "serve.log"), bin, "serve", "--addr", addr, "--dist", filepath.Join(tmp, "dist"), "--db", db, "--rate-limit", "contact=off")
	if err != nil {
		return nil, loadRatios{}, err
	}
	defer stop(serve)
	site, helloURL := "http://"+addr, "http://"+helloAddr
	for _, u := range []string{helloURL + "/", site + "/healthz"} {
		if err := waitUp(u); err != nil {
			return nil, loadRatios{}, err
		}
	}
	token, err := xsrfToken(site)
	if err != nil {
		return nil, loadRatios{}, err
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
	ok, refused := []int{http.StatusOK}, []int{http.StatusUnauthorized, http.StatusTooManyRequests}

	nginxAddr := freeAddr()
	nginx, err := startNginx(tmp, nginxAddr, filepath.Join(tmp, "dist"))
	if err != nil {
		return nil, loadRatios{}, err
	}
	defer stop(nginx)

	// The compared runs go in rounds, each run beside its yardstick; the
	// ratios are taken within a round, and every other round runs in the
	// reverse order, so a machine that speeds up or slows down during a
	// round flatters neither side.
	helloRun := load{name: "hello world (bare Go handler)", request: get(helloURL + "/"), expect: ok, server: hello.Process.Pid}
	news := load{name: "GET /api/news (200 items)", request: get(site + "/api/news"), expect: ok, server: serve.Process.Pid}
	search := load{name: "GET /api/news?search=corridor", request: get(site + "/api/news?search=corridor"), expect: ok, server: serve.Process.Pid}
	static := load{name: "GET /home (static page, gzip)", request: get(site + "/home"), expect: ok, server: serve.Process.Pid}
	staticNginx := load{name: "nginx: GET /home (gzip)", request: get("http://" + nginxAddr + "/home"), expect: ok, server: nginx.Process.Pid}
	staticWrk := load{name: "wrk: GET /home (static page, gzip)", wrk: site + "/home", expect: ok, server: serve.Process.Pid}
	staticNginxWrk := load{name: "wrk: nginx: GET /home (gzip)", wrk: "http://" + nginxAddr + "/home", expect: ok, server: nginx.Process.Pid}
	round := []load{helloRun, news, search, static, staticNginx, staticWrk, staticNginxWrk}
	// Then once each: the first answers to wrong passwords (the throttle),
	// and last the contact posts: each leaves a notification for the mail
	// sender to log, work that would otherwise weigh on the runs after it.
	once := []load{
		{name: "POST /auth (wrong password; throttle on)", request: post(site+"/auth", "application/x-www-form-urlencoded", signIn), workers: 8, cold: true, expect: refused, server: serve.Process.Pid},
		{name: "POST /api/contact_us", request: post(site+"/api/contact_us", "application/json", string(contact)), expect: ok, server: serve.Process.Pid},
	}
	fmt.Fprintf(out, "== load on loopback: %d clients (8 for /auth), at most %d requests or %s per run after a warm-up; freightsite serve, nginx and the hello world each in its own process, this program the client of all; gzip accepted; %d rounds of %d runs, then %d runs once\n", clients, sz.maxRequests, sz.runFor, sz.rounds, len(round), len(once))
	fmt.Fprintf(out, "%-42s %9s %8s %8s %8s %9s %8s  %s\n", "run", "req/s", "p50 ms", "p99 ms", "max ms", "body B", "CPU µs", "answers")
	var results []loadResult
	measure := func(l load) (loadResult, error) {
		if l.workers == 0 {
			l.workers = clients
		}
		l.requests, l.duration, l.warmUp = sz.maxRequests, sz.runFor, sz.warmUp
		var r loadResult
		if l.wrk != "" {
			var err error
			if r, err = wrkLoad(tmp, l.name, l.wrk, "XSRF-TOKEN="+token, l.workers, l.duration, l.server); err != nil {
				return r, err
			}
		} else {
			r = l.run()
		}
		results = append(results, r)
		fmt.Fprintf(out, "%-42s %9.0f %8.2f %8.2f %8.2f %9d %8.1f  %s\n", r.Name, r.PerSecond, r.P50ms, r.P99ms, r.MaxMs, r.BodyBytes, r.ServerCPUus, r.statusText())
		if why := r.unexpected(l.expect); why != "" {
			log, _ := os.ReadFile(filepath.Join(tmp, "serve.log"))
			return r, fmt.Errorf("%s measured something else: %s; the end of freightsite serve's log:\n%s", r.Name, why, tail(log, 20))
		}
		return r, nil
	}
	var newsRatio, searchRatio, staticRatio, staticCPU, staticWrkRatio []float64
	for i := range sz.rounds {
		order := slices.Clone(round)
		if i%2 == 1 {
			slices.Reverse(order)
		}
		got := map[string]loadResult{}
		for _, l := range order {
			r, err := measure(l)
			if err != nil {
				return nil, loadRatios{}, err
			}
			got[l.name] = r
		}
		if a, b := got[static.name].BodyBytes, got[staticNginx.name].BodyBytes; a != b {
			return nil, loadRatios{}, fmt.Errorf("serve and nginx sent different bodies for /home (%d and %d bytes): they must send the same file", a, b)
		}
		hw := got[helloRun.name].PerSecond
		newsRatio = append(newsRatio, got[news.name].PerSecond/hw)
		searchRatio = append(searchRatio, got[search.name].PerSecond/hw)
		staticRatio = append(staticRatio, got[static.name].PerSecond/got[staticNginx.name].PerSecond)
		staticCPU = append(staticCPU, got[static.name].ServerCPUus/max(got[staticNginx.name].ServerCPUus, 0.1))
		staticWrkRatio = append(staticWrkRatio, got[staticWrk.name].PerSecond/got[staticNginxWrk.name].PerSecond)
	}
	for _, l := range once {
		if _, err := measure(l); err != nil {
			return nil, loadRatios{}, err
		}
	}
	ratios := loadRatios{News: spreadOf(newsRatio), Search: spreadOf(searchRatio), Static: spreadOf(staticWrkRatio), StaticClient: spreadOf(staticRatio), StaticCPU: spreadOf(staticCPU)}
	fmt.Fprintf(out, "\npaired ratios of req/s, median (min–max) of the rounds: GET /api/news / hello world %s; GET /api/news?search / hello world %s; static GET /home serve / nginx %s with wrk, %s with this program's client (server CPU per answer, serve / nginx: %s)\n", ratios.News, ratios.Search, ratios.Static, ratios.StaticClient, ratios.StaticCPU)
	if err := stop(serve); err != nil {
		return nil, loadRatios{}, fmt.Errorf("freightsite serve did not stop cleanly on SIGTERM: %w", err)
	}
	return results, ratios, nil
}

// loadRatios are the paired ratios of the load runs.
type loadRatios struct {
	News   spread `json:"newsPerHello"`
	Search spread `json:"newsSearchPerHello"`
	// Static is measured with wrk (see wrk.go), StaticClient with this
	// program's client.
	Static       spread `json:"staticServePerNginx"`
	StaticClient spread `json:"staticServePerNginxGoClient"`
	// StaticCPU is serve's CPU time per static answer over nginx's.
	StaticCPU spread `json:"staticCpuServePerNginx"`
}

// targets compares the figures of the sections run with the issues'
// targets.
func targets(rep report, sz size) []target {
	find := func(prefix string) loadResult {
		for _, r := range rep.Loads {
			if strings.HasPrefix(r.Name, prefix) {
				return r
			}
		}
		return loadResult{}
	}
	t := []target{{"every page within its weight budget", rep.Build.OverBudget == 0, fmt.Sprintf("%d of %d pages over", rep.Build.OverBudget, rep.Build.Pages)}}
	if sz.runs("loads") {
		contact := find("POST /api/contact_us")
		ok := contact.Status[http.StatusOK]
		r := rep.Ratios
		t = append(t,
			target{"contact posts >= 2,000 acknowledged/s (synchronous FULL)", contact.PerSecond >= 2000 && ok == contact.Requests, fmt.Sprintf("%.0f/s, %d of %d acknowledged", contact.PerSecond, ok, contact.Requests)},
			target{"contact posts p99 < 50 ms", contact.P99ms < 50, fmt.Sprintf("p99 %.2f ms", contact.P99ms)},
			target{"GET /api/news >= 0.6x the hello world (paired)", r.News.Median >= 0.6, r.News.String()},
			target{"GET /api/news?search >= 0.6x the hello world (paired)", r.Search.Median >= 0.6, r.Search.String()},
			target{"static GET /home from serve (net/http) >= 0.75x nginx (paired, wrk)", r.Static.Median >= 0.75, r.Static.String()},
		)
	}
	if sz.runs("hugo") {
		t = append(t, rep.Hugo.targets()...)
	}
	if sz.runs("memory") {
		t = append(t, rep.Memory.targets()...)
	}
	if sz.runs("csv") {
		t = append(t,
			target{"csv validate >= 0.8x a bare encoding/csv read of the same file (in turns, wall time)", rep.CSV.Ratio.Median >= 0.8, rep.CSV.Ratio.String() + " (CPU time " + rep.CSV.RatioCPU.String() + ")"},
			rep.CSVFix.target(),
		)
	}
	if sz.runs("dev") {
		t = append(t, rep.Dev.targets()...)
	}
	return t
}

// start runs a server process with its output in logFile.
func start(logFile, name string, args ...string) (*exec.Cmd, error) {
	log, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	defer log.Close() // the process has its own copy once started
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
	deadline := time.Now().Add(60 * time.Second) // a loaded machine starts dev (its first build, tsc) slowly
	for time.Now().Before(deadline) {
		if resp, err := http.Get(u); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer 200 within 60 s", u)
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

// tail is the last n lines of a log.
func tail(log []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(log), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
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

// loadAverage is the 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
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
