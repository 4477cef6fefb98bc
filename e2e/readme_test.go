package e2e

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestREADME runs what README.md documents, so an example that stops
// working fails here and names its line:
//
//   - every row of the command table: the command exists, has the flags
//     its synopsis shows, and a run of it (below) works; every command and
//     flag of the binary is in README;
//   - every line of the ```sh blocks: `freightsite ...` runs (servers are
//     started and stopped, paths and ports moved to temporary ones),
//     `make TARGET` is a target of the Makefile;
//   - every example of the API section (the curl commands and the
//     `METHOD /path` notation) against `freightsite serve` on loopback,
//     each answer compared with the documented one: status, media type,
//     headers and the JSON's shape (keys, types, texts);
//   - `csv validate --format json` against its documented output, and the
//     file trees of "What `build` writes" and "Layout".
//
// A block, line or command the test cannot classify fails it: teach this
// file to run it, or list it in notRunnableHere with the reason.
func TestREADME(t *testing.T) {
	doc := readREADME(t, filepath.Join(root, "README.md"))
	r := newReadmeRun(t, doc)
	r.checkCommandsAndFlags()
	r.classifyBlocks()
	r.runCommandExamples()
	r.checkTrees()
	t.Logf("README.md: %d commands of the table, %d shell lines, %d API answers checked", len(r.commands), len(r.shellLines), r.api.checked)
}

// notRunnableHere are documented examples this test does not run, and why:
// commands as named in the command table ("csv validate"; their --help is
// still checked), make targets as "make TARGET" (checked to exist with
// make -n), other shell lines by their first word ("systemctl"), and
// whole blocks as "```LANG under HEADING", API examples as "METHOD /path".
var notRunnableHere = map[string]string{
	"make test":            "it is the suite that runs this test",
	"make run":             "it builds into ./dist and serves on :8080 until stopped; this test runs its two commands, build and serve, on a temporary folder and port",
	"make bench":           "it measures for about a minute; make test runs make bench-quick, every section of it",
	"make bench-quick":     "it is a step of make test of its own",
	"dev":                  "e2e/dev_test.go (TestDevShowsEachSaveInTheOpenPage) runs it on a copy of the source tree, edits files and watches the page in Chromium; README's shell line starts it here",
	"``` under Developing": "what its terminal shows; e2e/dev_test.go checks the rebuild lines",
	// The import report and its JSON are of a Tally export built in the test.
	"``` under Receivables import files":     "cmd/csv_test.go (TestCSVValidateReadmeReport) builds the Tally export and compares the whole report with this one, line for line",
	"```json under Receivables import files": "cmd/csv_test.go (TestCSVValidateReadmeJSON) checks every field shown against the command's JSON of the same Tally export",
	"``` under A corrected copy":             "cmd/csv_test.go (TestCSVFixReadme) corrects the same Tally export and compares the output with this one, line for line",
	"```csv under A corrected copy":          "cmd/csv_test.go (TestCSVFixReadme) checks that the change list starts with these lines",
	// API examples by method and path (the query left out).
	"GET /api/publicTruckingAuctionForm/confirm":  "its token is mailed only for a change to an MC number registered before, which the example before it creates; e2e/auction_test.go runs the mailed link",
	"POST /api/publicTruckingAuctionForm/confirm": "as its GET: e2e/auction_test.go applies a mailed change",
	"```sh under Running in production": "the operator's steps need root, systemd and /etc/nginx: " +
		"e2e/nginx_test.go (TestNginx) follows them in a copy of Debian's /etc/nginx (socket, build --stage, " +
		"release publish, restart, rollback) and e2e/operator_test.go runs the backup line under load and verifies the units",
	"```sh under Several API instances on PostgreSQL": "it needs a PostgreSQL server with its roles: FORMAPI_DB=postgres runs formapi's tests on a throwaway cluster " +
		"(internal/pgtest), TestTwoInstancesShareTheDatabase two servers on one database, and make bench freightsite api on one",
	"``` under Running in production":                 "a logrotate configuration; the reopening it relies on is e2e/operator_test.go's TestSIGHUPReopensTheLogFile",
	"```json under Hosting `dist/` on another server": "Cloudflare's wrangler configuration: it configures Cloudflare, nothing runs it here",
	"netlify": "Netlify's own command line deploys to Netlify; generator/redirects_test.go checks the _redirects it reads",
}

// readmeDoc is README.md: its lines and its fenced code blocks.
type readmeDoc struct {
	lines  []string
	blocks []codeBlock
}

type codeBlock struct {
	lang    string   // the fence's language: sh, json or none
	section string   // the "## " heading the block is under
	heading string   // the nearest heading of any level
	intro   string   // the text between the previous block or heading and this one
	start   int      // README line number of lines[0]
	lines   []string // the lines inside the fence
}

func readREADME(t *testing.T, path string) readmeDoc {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := readmeDoc{lines: strings.Split(string(raw), "\n")}
	var section, heading string
	var intro []string
	for i := 0; i < len(doc.lines); i++ {
		line := doc.lines[i]
		if strings.HasPrefix(line, "#") {
			heading = strings.TrimLeft(line, "# ")
			if strings.HasPrefix(line, "## ") {
				section = heading
			}
			intro = nil
			continue
		}
		lang, ok := strings.CutPrefix(line, "```")
		if !ok {
			intro = append(intro, line)
			continue
		}
		b := codeBlock{lang: strings.TrimSpace(lang), section: section, heading: heading, intro: strings.Join(intro, "\n"), start: i + 2}
		for i++; i < len(doc.lines) && !strings.HasPrefix(doc.lines[i], "```"); i++ {
			b.lines = append(b.lines, doc.lines[i])
		}
		if i == len(doc.lines) {
			t.Fatalf("README.md:%d: a code block that is never closed", b.start-1)
		}
		doc.blocks = append(doc.blocks, b)
		intro = nil
	}
	return doc
}

// readmeRun is one run of the README's examples: temporary folders, the
// database the commands and the API server share, and what earlier
// examples left for later ones (the anti-forgery token, a bearer token).
type readmeRun struct {
	t    *testing.T
	doc  readmeDoc
	dir  string // working folder of commands and shell examples
	db   string
	dist string // the harness's build (read only: other tests serve it)

	commands map[string]int // command table: command path -> README line
	apiFlags map[string]int // API flags table: flag -> README line

	apiBlocks  []codeBlock // examples of the API section, in order
	shellLines []shellLine // freightsite and make lines of ```sh blocks elsewhere
	csvJSON    *codeBlock  // the documented output of csv validate --format json
	distTree   *codeBlock
	layoutTree *codeBlock

	api     apiState
	totals  map[string]int // GET /public_totals.json of the API examples' database
	release string         // the release `release list` showed published
}

type shellLine struct {
	line int
	text string
}

func newReadmeRun(t *testing.T, doc readmeDoc) *readmeRun {
	dir := t.TempDir()
	return &readmeRun{t: t, doc: doc, dir: dir, db: filepath.Join(dir, "readme.db"), dist: filepath.Join(work, "dist")}
}

// errorf reports a problem with a README line.
func (r *readmeRun) errorf(line int, format string, args ...any) {
	r.t.Helper()
	r.t.Errorf("README.md:%d: "+format, append([]any{line}, args...)...)
}

func (r *readmeRun) fatalf(line int, format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("README.md:%d: "+format, append([]any{line}, args...)...)
}

var (
	commandRow = regexp.MustCompile("^\\| `freightsite ([^`]+)` \\|")
	flagRow    = regexp.MustCompile("^\\| `(--[a-z][a-z-]*)")
	flagName   = regexp.MustCompile(`--[a-z][a-z-]*`)
	helpFlag   = regexp.MustCompile(`(?m)^\s+(?:-\w, )?(--[a-z][a-z-]*)`)
	word       = regexp.MustCompile(`^[a-z][a-z-]*$`)
)

// commandPath is the command of a synopsis: its leading lowercase words
// ("csv validate" of "csv validate FILE... [--format text|json]").
func commandPath(synopsis string) string {
	var words []string
	for _, w := range strings.Fields(synopsis) {
		if !word.MatchString(w) {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

// help runs `freightsite PATH --help`.
func (r *readmeRun) help(path string) (string, error) {
	out, err := exec.Command(binary, append(strings.Fields(path), "--help")...).CombinedOutput()
	return string(out), err
}

// leafCommands lists the binary's commands that do something (cobra's
// own help and completion aside), by path.
func (r *readmeRun) leafCommands(path string) []string {
	out, err := r.help(path)
	if err != nil {
		r.t.Fatalf("freightsite %s --help: %v\n%s", path, err, out)
	}
	_, list, ok := strings.Cut(out, "Available Commands:\n")
	if !ok {
		return []string{path}
	}
	var leaves []string
	for _, line := range strings.Split(list, "\n") {
		if !strings.HasPrefix(line, "  ") {
			break
		}
		name := strings.Fields(line)[0]
		if name == "help" || name == "completion" {
			continue
		}
		leaves = append(leaves, r.leafCommands(strings.TrimSpace(path+" "+name))...)
	}
	return leaves
}

// helpFlags are the long flags `--help` lists.
func helpFlags(help string) []string {
	var flags []string
	for _, m := range helpFlag.FindAllStringSubmatch(help, -1) {
		if m[1] != "--help" {
			flags = append(flags, m[1])
		}
	}
	return flags
}

// checkCommandsAndFlags: each row of the command table names a command of
// the binary and flags it has; the API flags table's flags are flags of
// serve and api; every command of the binary has a row and every flag is
// mentioned somewhere in README.
func (r *readmeRun) checkCommandsAndFlags() {
	r.commands, r.apiFlags = map[string]int{}, map[string]int{}
	section := ""
	for i, line := range r.doc.lines {
		if s, ok := strings.CutPrefix(line, "## "); ok {
			section = s
		}
		if section != "Commands" {
			continue
		}
		if m := commandRow.FindStringSubmatch(line); m != nil {
			path := commandPath(m[1])
			r.commands[path] = i + 1
			help, err := r.help(path)
			if err != nil || !strings.Contains(help, "Usage:\n  freightsite "+path) {
				r.errorf(i+1, "`freightsite %s` is not a command of the binary: %v\n%s", path, err, help)
				continue
			}
			for _, f := range flagName.FindAllString(m[1], -1) {
				if !slices.Contains(helpFlags(help), f) {
					r.errorf(i+1, "`freightsite %s` has no flag %s (its --help lists %v)", path, f, helpFlags(help))
				}
			}
		} else if m := flagRow.FindStringSubmatch(line); m != nil {
			r.apiFlags[m[1]] = i + 1
			for _, c := range []string{"serve", "api"} {
				if help, _ := r.help(c); !slices.Contains(helpFlags(help), m[1]) {
					r.errorf(i+1, "API flag %s is not a flag of `freightsite %s`", m[1], c)
				}
			}
		}
	}
	if len(r.commands) == 0 || len(r.apiFlags) == 0 {
		r.t.Fatalf("README.md has no command table or no API flags table under \"## Commands\" (rows starting with | `freightsite ...` and | `--flag`)")
	}
	text := strings.Join(r.doc.lines, "\n")
	leaves := r.leafCommands("")
	for _, path := range leaves {
		if _, ok := r.commands[path]; !ok {
			r.t.Errorf("README.md: `freightsite %s` is missing from the command table", path)
		}
	}
	for _, path := range append(leaves, "") { // "": the flags of freightsite itself
		help, _ := r.help(path)
		for _, f := range helpFlags(help) {
			if !regexp.MustCompile(regexp.QuoteMeta(f) + `\b`).MatchString(text) {
				r.t.Errorf("README.md: flag %s of `freightsite %s` is documented nowhere", f, path)
			}
		}
	}
}

// classifyBlocks sorts every code block to the check that runs it, and
// fails on a block or line no check knows.
func (r *readmeRun) classifyBlocks() {
	for i := range r.doc.blocks {
		b := &r.doc.blocks[i]
		switch {
		case notRunnableHere["```"+b.lang+" under "+b.heading] != "":
		case b.section == "API" && (b.lang == "" || b.lang == "sh"):
			r.apiBlocks = append(r.apiBlocks, *b)
		case b.lang == "sh":
			for j, line := range b.lines {
				text := strings.TrimSpace(strings.SplitN(line, " #", 2)[0])
				switch {
				case text == "":
				case strings.HasPrefix(text, "freightsite "), strings.HasPrefix(text, "go run . "), strings.HasPrefix(text, "make "):
					r.shellLines = append(r.shellLines, shellLine{b.start + j, text})
				case notRunnableHere[strings.Fields(text)[0]] != "":
				default:
					r.errorf(b.start+j, "a shell line the test cannot classify: %q (teach e2e/readme_test.go to run it, or list it in notRunnableHere)", text)
				}
			}
		case b.lang == "json" && strings.Contains(b.intro, "`--format json` prints"):
			r.csvJSON = b
		case b.lang == "" && strings.HasPrefix(b.heading, "What `build` writes"):
			r.distTree = b
		case b.lang == "" && b.heading == "Layout":
			r.layoutTree = b
		default:
			r.errorf(b.start-1, "a ```%s block under %q the test cannot classify: teach e2e/readme_test.go to check it, or list it in notRunnableHere (\"```%s under %s\") with the reason", b.lang, b.heading, b.lang, b.heading)
		}
	}
	if r.distTree == nil || r.layoutTree == nil || len(r.apiBlocks) == 0 {
		r.t.Errorf("README.md lacks a block the test checks: build's tree %v, the layout %v, API examples %d",
			r.distTree != nil, r.layoutTree != nil, len(r.apiBlocks))
	}
}

// commandExamples run each command of the table, in this order (later
// ones use what earlier ones made: the tenant the API examples look up,
// the database a build reads its key figures from).
var commandExamples = []struct {
	path string
	run  func(r *readmeRun, line int)
}{
	{"csv sample", (*readmeRun).exampleCSVSample},
	{"csv validate", (*readmeRun).exampleCSVValidate},
	{"csv fix", (*readmeRun).exampleCSVFix},
	{"csv schema", (*readmeRun).exampleCSVSchema},
	{"news import", (*readmeRun).exampleNewsImport},
	{"news add", (*readmeRun).exampleNewsAdd},
	{"news list", (*readmeRun).exampleNewsList},
	{"tenant add", (*readmeRun).exampleTenantAdd},
	{"tenant list", (*readmeRun).exampleTenantList},
	{"serve", (*readmeRun).exampleServe},
	{"mail outbox", (*readmeRun).exampleMailOutbox},
	{"mail optouts", (*readmeRun).exampleMailOptouts},
	{"mail optouts remove", (*readmeRun).exampleMailOptoutsRemove},
	{"db backup", (*readmeRun).exampleDBBackup},
	{"api", (*readmeRun).exampleAPI},
	{"build", (*readmeRun).exampleBuild},
	{"release list", (*readmeRun).exampleReleaseList},
	{"release publish", (*readmeRun).exampleReleasePublish},
	{"locales reviewed", (*readmeRun).exampleLocalesReviewed},
}

func (r *readmeRun) runCommandExamples() {
	ran := map[string]bool{}
	for _, e := range commandExamples {
		line, ok := r.commands[e.path]
		if !ok {
			r.t.Errorf("e2e/readme_test.go runs `freightsite %s`, which README's command table no longer lists: remove its example", e.path)
			continue
		}
		ran[e.path] = true
		e.run(r, line)
	}
	for path, line := range r.commands {
		if _, why := notRunnableHere[path]; !ran[path] && !why {
			r.errorf(line, "`freightsite %s` is run by no example: add one to commandExamples in e2e/readme_test.go, or list it in notRunnableHere with the reason (`--help` is checked either way)", path)
		}
	}
	for _, l := range r.shellLines {
		r.runShellLine(l)
	}
}

// freightsite runs the binary in the run's folder and returns its exit
// code and output.
func (r *readmeRun) freightsite(args ...string) (code int, stdout, stderr string) {
	r.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = r.dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		r.t.Fatalf("running freightsite %s: %v", strings.Join(args, " "), err)
	}
	return code, out.String(), errb.String()
}

// expectRun runs a command that must succeed and returns its output.
func (r *readmeRun) expectRun(line int, args ...string) string {
	r.t.Helper()
	code, stdout, stderr := r.freightsite(args...)
	if code != 0 {
		r.errorf(line, "freightsite %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

func (r *readmeRun) writeFile(name string, content []byte) string {
	r.t.Helper()
	path := filepath.Join(r.dir, name)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		r.t.Fatal(err)
	}
	return path
}

// exampleBuild: the harness ran `freightsite build --root ROOT --out DIR --db F`
// (the site the API examples are served with); it printed the weight
// table and `Total in N ms`. A second build reads the home page's key
// figures from the database the examples filled (--db) and prints its
// figures as JSON (--report json): the keys README lists, no other, and
// the counts GET /public_totals.json gave.
func (r *readmeRun) exampleBuild(line int) {
	out := string(siteBuildOutput)
	// The warnings about placeholders (standard error) may follow.
	if !strings.Contains(out, "html KB") || !strings.Contains(out, "/ma/faq") || !regexp.MustCompile(`(?m)^release \S+ published in .*\n.*Total in \d+ ms$`).MatchString(out) {
		r.errorf(line, "build printed no weight table, release line and `Total in N ms`:\n%s", out)
	}
	dist := filepath.Join(r.dir, "db-dist")
	stdout := r.expectRun(line, "build", "--root", root, "--out", dist, "--db", r.db, "--report", "json")
	var report map[string]any
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		r.errorf(line, "build --report json printed no JSON object: %v\n%.400s", err, stdout)
		return
	}
	r.checkReportKeys(report)
	r.checkKeyFigures(line, dist)
}

var backticked = regexp.MustCompile("`([a-z][A-Za-z]*)`")

// checkReportKeys compares the keys of `build --report json` (at every
// level) with those README's paragraph on it names.
func (r *readmeRun) checkReportKeys(report map[string]any) {
	start := slices.IndexFunc(r.doc.lines, func(l string) bool { return strings.HasPrefix(l, "`build --report json` prints") })
	if start < 0 {
		r.t.Errorf("README.md: no paragraph starting \"`build --report json` prints\" lists the report's keys")
		return
	}
	documented := map[string]bool{}
	for _, l := range r.doc.lines[start:] {
		if l == "" {
			break
		}
		for _, m := range backticked.FindAllStringSubmatch(l, -1) {
			documented[m[1]] = true
		}
	}
	printed := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				printed[k] = true
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(report)
	for k := range printed {
		if !documented[k] {
			r.errorf(start+1, "build --report json prints the key %q, which this paragraph does not name", k)
		}
	}
	for k := range documented {
		if !printed[k] {
			r.errorf(start+1, "this paragraph names the key %q, which build --report json does not print", k)
		}
	}
}

var keyFigure = regexp.MustCompile(`<div class="figure"><dt>.*?</svg>([^<]*)</dt><dd>(\d+)</dd></div>`)

// checkKeyFigures: the English home page of a build with --db shows the
// members and news items GET /public_totals.json counted in that database
// (a zero count is left out).
func (r *readmeRun) checkKeyFigures(line int, dist string) {
	if r.totals == nil {
		return // the api example failed, and said why
	}
	raw, err := os.ReadFile(filepath.Join(root, "locales", "en.json"))
	if err != nil {
		r.t.Fatal(err)
	}
	var en struct {
		Home struct {
			Figures map[string]string `json:"figures"`
		} `json:"home"`
	}
	if err := json.Unmarshal(raw, &en); err != nil {
		r.t.Fatal(err)
	}
	home, err := os.ReadFile(filepath.Join(dist, "index.html"))
	if err != nil {
		r.errorf(line, "build --out %s wrote no home page: %v", dist, err)
		return
	}
	shown := map[string]string{}
	for _, m := range keyFigure.FindAllStringSubmatch(string(home), -1) {
		shown[m[1]] = m[2]
	}
	for _, key := range []string{"members", "newsItems"} {
		want := ""
		if n := r.totals[key]; n > 0 {
			want = strconv.Itoa(n)
		}
		got := shown[en.Home.Figures[key]]
		r.t.Logf("build --db: the home page shows %q for %q", got, en.Home.Figures[key])
		if got != want {
			r.errorf(line, "build --db: the home page shows %q for %q, want %q (GET /public_totals.json: %v; figures shown: %v)", got, en.Home.Figures[key], want, r.totals, shown)
		}
	}
}

func (r *readmeRun) exampleCSVSample(line int) {
	stdout := r.expectRun(line, "csv", "sample")
	r.expectRun(line, "csv", "sample", "--out", "sample.csv")
	if written, _ := os.ReadFile(filepath.Join(r.dir, "sample.csv")); string(written) != stdout || !strings.Contains(stdout, "Account Number") {
		r.errorf(line, "csv sample --out wrote %q, standard output had %q", written, stdout)
	}
}

// exampleCSVValidate checks the sample (valid), then a file with the two
// problems of README's JSON example, in text and in JSON; the JSON must
// match the documented output in shape.
func (r *readmeRun) exampleCSVValidate(line int) {
	if out := r.expectRun(line, "csv", "validate", "sample.csv"); !strings.Contains(out, "sample.csv") {
		r.errorf(line, "csv validate sample.csv printed no summary line for the file:\n%s", out)
	}
	sample, _ := os.ReadFile(filepath.Join(r.dir, "sample.csv"))
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(sample, []byte("\uFEFF")))).ReadAll()
	if err != nil || len(rows) < 2 {
		r.fatalf(line, "csv sample is not a CSV file with data: %v", err)
	}
	phone := slices.Index(rows[0], "Phone")
	var file bytes.Buffer
	w := csv.NewWriter(&file)
	w.Write(rows[0])
	for n := 2; n <= 10; n++ { // file lines 2 to 10
		row := slices.Clone(rows[1])
		switch n {
		case 7:
			row[phone] = "98765"
		case 9:
			row = row[:len(row)-1]
		}
		w.Write(row)
	}
	w.Flush()
	r.writeFile("march.csv", file.Bytes())

	code, text, stderr := r.freightsite("csv", "validate", "march.csv")
	if want := `march.csv:7:4: row 7, D7 (Phone): must be exactly 10 digits (value "98765")`; code != 1 || !strings.Contains(text, want) {
		r.errorf(line, "csv validate march.csv: exit %d (want 1), output lacks %q:\n%s%s", code, want, text, stderr)
	}
	code, js, stderr := r.freightsite("csv", "validate", "march.csv", "--format", "json", "--max-errors", "1000")
	if code != 1 {
		r.errorf(line, "csv validate --format json on an invalid file: exit %d, want 1\n%s", code, stderr)
	}
	if r.csvJSON != nil {
		documented := strings.Join(r.csvJSON.lines, "\n")
		for _, p := range compareDocumented(documented, js) {
			r.errorf(r.csvJSON.start, "csv validate --format json no longer prints what README shows: %s\n%s", p, js)
		}
	}
	var one struct {
		Files []struct {
			Errors  []json.RawMessage `json:"errors"`
			Omitted int               `json:"omittedErrors"`
		} `json:"files"`
	}
	_, js, _ = r.freightsite("csv", "validate", "march.csv", "--format", "json", "--max-errors", "1")
	if err := json.Unmarshal([]byte(js), &one); err != nil || len(one.Files) != 1 || len(one.Files[0].Errors) != 1 || one.Files[0].Omitted != 1 {
		r.errorf(line, "csv validate --max-errors 1 should list one error and count the other as omitted: %v\n%s", err, js)
	}
}

// exampleCSVFix corrects a copy of the sample saved with semicolons and
// Indian grouping: the copy is valid (exit 0) and its change list is
// beside it.
func (r *readmeRun) exampleCSVFix(line int) {
	sample, _ := os.ReadFile(filepath.Join(r.dir, "sample.csv"))
	semicolons := strings.Replace(strings.ReplaceAll(string(sample), ",", ";"), ";125000.00;", ";1,25,000.00;", 1)
	r.writeFile("april.csv", []byte(semicolons))
	out := r.expectRun(line, "csv", "fix", "april.csv", "--out", "april-fixed.csv")
	if !strings.Contains(out, "april.csv: 2 changes, written to april-fixed.csv; each listed in april-fixed.changes.csv") {
		r.errorf(line, "csv fix printed:\n%s", out)
	}
	if code, _, _ := r.freightsite("csv", "validate", "april-fixed.csv"); code != 0 {
		r.errorf(line, "the corrected copy does not validate: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "april-fixed.changes.csv")); err != nil {
		r.errorf(line, "no change list beside the copy: %v", err)
	}
}

func (r *readmeRun) exampleCSVSchema(line int) {
	var schema struct {
		Fields []struct {
			Name string `json:"name"`
		} `json:"fields"`
	}
	out := r.expectRun(line, "csv", "schema")
	if err := json.Unmarshal([]byte(out), &schema); err != nil || len(schema.Fields) != 25 {
		r.errorf(line, "csv schema printed no Table Schema of 25 fields: %v\n%s", err, out)
	}
}

// exampleNewsImport imports data/news.json, the documented format, into a
// database of its own (the API examples' list is the seed's), and a file
// with a wrong item, which must import nothing.
func (r *readmeRun) exampleNewsImport(line int) {
	db := filepath.Join(r.dir, "import.db")
	r.expectRun(line, "news", "import", filepath.Join(root, "data", "news.json"), "--db", db)
	bad := r.writeFile("bad-news.json", []byte(`[{"newsFeedTitle":"Fine","content":"Fine"},{"newsFeedTitle":"","content":"No title"}]`))
	code, _, stderr := r.freightsite("news", "import", bad, "--db", db)
	if code != 2 || !strings.Contains(stderr, "2") {
		r.errorf(line, "news import of a file whose second item has no title: exit %d, stderr %q; want exit 2 naming the item", code, stderr)
	}
}

const readmeNewsTitle = "Monsoon advisory for the Konkan route"

func (r *readmeRun) exampleNewsAdd(line int) {
	r.expectRun(line, "news", "add", "--title", readmeNewsTitle, "--content", "Expect delays between Panvel and Ratnagiri this week.",
		"--url", "https://news.example.in/konkan", "--redirect", "--posted", "2026-11-20T10:00:00Z", "--db", r.db)
}

func (r *readmeRun) exampleNewsList(line int) {
	out := r.expectRun(line, "news", "list", "--search", "Konkan", "--db", r.db)
	if !strings.Contains(out, readmeNewsTitle) || strings.Contains(out, "Dedicated Freight Corridor") {
		r.errorf(line, "news list --search Konkan should list the item news add added, and only it:\n%s", out)
	}
}

// The tenant README's API examples look up.
const readmeTenant, readmeTenantName = "acme", "Acme Roadways"

func (r *readmeRun) exampleTenantAdd(line int) {
	logo := r.writeFile("logo.png", pngFile)
	r.expectRun(line, "tenant", "add", readmeTenant, "--name", readmeTenantName, "--logo", logo, "--theme", "green", "--db", r.db)
	r.expectRun(line, "tenant", "add", "pune", "--name", "Pune Carriers", "--logo", logo, "--theme", "teal", "--default", "--db", r.db)
}

func (r *readmeRun) exampleTenantList(line int) {
	out := r.expectRun(line, "tenant", "list", "--db", r.db)
	if !strings.Contains(out, readmeTenantName) || !regexp.MustCompile(`(?m)^pune\s.*\bteal\s+Y\b`).MatchString(out) {
		r.errorf(line, "tenant list lacks the tenants tenant add added (acme, and pune with its default flag Y):\n%s", out)
	}
}

// exampleServe starts `freightsite serve` on the build and the shared
// database, runs the API section's examples against it, and stops it
// with SIGTERM, which must end it with exit 0.
func (r *readmeRun) exampleServe(line int) {
	if stop := r.startServer(line, "serve", "--addr", "ADDR", "--dist", r.dist, "--db", r.db, "--captcha-max-number", "2000"); stop != nil {
		r.runAPIExamples()
		stop()
	}
}

func (r *readmeRun) exampleMailOutbox(line int) {
	out := r.expectRun(line, "mail", "outbox", "--state", "held", "--limit", "50", "--db", r.db)
	if !strings.Contains(out, "held") || !strings.Contains(out, "meera@sahyadri.in") {
		r.errorf(line, "mail outbox --state held should list the mail the API examples queued (the reset mail to meera@sahyadri.in):\n%s", out)
	}
	id := regexp.MustCompile(`(?m)^\s*(\d+)\s.*meera@sahyadri\.in`).FindStringSubmatch(out)
	if id == nil {
		return
	}
	if shown := r.expectRun(line, "mail", "outbox", "--show", id[1], "--db", r.db); !strings.Contains(shown, "meera@sahyadri.in") || !strings.Contains(shown, "reset-password?token=") {
		r.errorf(line, "mail outbox --show %s should print the reset mail with its link:\n%s", id[1], shown)
	}
}

// exampleMailOptouts: the API examples' POST /api/unsubscribe left
// ravi@example.in; the list shows it (text and CSV), remove lifts it once.
func (r *readmeRun) exampleMailOptouts(line int) {
	const left = "ravi@example.in"
	if out := r.expectRun(line, "mail", "optouts", "--db", r.db); !strings.Contains(out, left) {
		r.errorf(line, "mail optouts should list %s, who unsubscribed in the API examples:\n%s", left, out)
	}
	if out := r.expectRun(line, "mail", "optouts", "--format", "csv", "--db", r.db); !strings.HasPrefix(out, "email,unsubscribed_at\n"+left+",") {
		r.errorf(line, "mail optouts --format csv should start with email,unsubscribed_at and %s:\n%s", left, out)
	}
}

func (r *readmeRun) exampleMailOptoutsRemove(line int) {
	const left = "ravi@example.in"
	r.expectRun(line, "mail", "optouts", "remove", strings.ToUpper(left), "--db", r.db)
	if code, _, stderr := r.freightsite("mail", "optouts", "remove", left, "--db", r.db); code != 1 {
		r.errorf(line, "mail optouts remove of an address with no opt-out left: exit %d, want 1\n%s", code, stderr)
	}
}

// exampleDBBackup copies the shared database: the copy passes the
// integrity check and lists the same news.
func (r *readmeRun) exampleDBBackup(line int) {
	backup := filepath.Join(r.t.TempDir(), "backup.db")
	if out := r.expectRun(line, "db", "backup", backup, "--db", r.db); !strings.Contains(out, "integrity check: ok") {
		r.errorf(line, "db backup should say the copy passed the integrity check:\n%s", out)
	}
	if want, got := r.expectRun(line, "news", "list", "--db", r.db), r.expectRun(line, "news", "list", "--db", backup); got != want {
		r.errorf(line, "the backup's news differ from the database's:\n%s\nwant:\n%s", got, want)
	}
}

func (r *readmeRun) exampleAPI(line int) {
	stop := r.startServer(line, "api", "--addr", "ADDR", "--db", r.db)
	if stop == nil {
		return
	}
	resp, err := http.Get(r.api.base + "/api/news/1")
	if err != nil || resp.StatusCode != http.StatusOK {
		r.errorf(line, "GET /api/news/1 from freightsite api: %v %v", resp, err)
	}
	if resp != nil {
		resp.Body.Close()
	}
	resp, err = http.Get(r.api.base + "/public_totals.json")
	if err == nil {
		err = json.NewDecoder(resp.Body).Decode(&r.totals)
		resp.Body.Close()
	}
	if err != nil || r.totals["newsItems"] == 0 {
		r.errorf(line, "GET /public_totals.json from freightsite api: %v %v", r.totals, err)
		r.totals = nil
	}
	stop()
}

// exampleReleaseList lists the releases beside the build with --db:
// one, published (*).
func (r *readmeRun) exampleReleaseList(line int) {
	out := r.expectRun(line, "release", "list", "--out", filepath.Join(r.dir, "db-dist"))
	if m := regexp.MustCompile(`(?m)^\*\s+(\S+)\s`).FindStringSubmatch(out); m == nil || strings.Count(out, "\n") != 2 {
		r.errorf(line, "release list printed no one published release under its heading:\n%s", out)
	} else {
		r.release = m[1]
	}
}

// exampleReleasePublish publishes the listed release again (the link
// stays on it) and refuses one that does not exist, naming release list.
func (r *readmeRun) exampleReleasePublish(line int) {
	out := filepath.Join(r.dir, "db-dist")
	if r.release == "" {
		return // release list failed, and said why
	}
	r.expectRun(line, "release", "publish", r.release, "--out", out)
	if target, err := os.Readlink(out); err != nil || filepath.Base(target) != r.release {
		r.errorf(line, "after release publish %s, %s links to %q (%v)", r.release, out, target, err)
	}
	if code, _, stderr := r.freightsite("release", "publish", "20000101T000000.000Z", "--out", out); code != 2 || !strings.Contains(stderr, "release list") {
		r.errorf(line, "release publish of an unknown release: exit %d, %q; want 2 pointing to release list", code, stderr)
	}
}

// exampleLocalesReviewed records reviews in a copy of locales/ in the
// run's folder (the source tree's is never written), which the shell
// examples' `locales reviewed` lines use too (their --root is ".").
func (r *readmeRun) exampleLocalesReviewed(line int) {
	files, _ := filepath.Glob(filepath.Join(root, "locales", "*.json"))
	if err := os.MkdirAll(filepath.Join(r.dir, "locales"), 0o755); err != nil {
		r.t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			r.t.Fatal(err)
		}
		r.writeFile(filepath.Join("locales", filepath.Base(f)), b)
	}
	if out := r.expectRun(line, "locales", "reviewed", "faq.items", "--lang", "hi", "--root", r.dir); !strings.HasPrefix(out, "hi: ") {
		r.errorf(line, "locales reviewed faq.items --lang hi printed %q, want a line for hi", out)
	}
	r.expectRun(line, "locales", "reviewed", "--new", "--root", r.dir)
	if code, _, stderr := r.freightsite("locales", "reviewed", "--root", r.dir); code != 2 || !strings.Contains(stderr, "--new") {
		r.errorf(line, "locales reviewed without keys: exit %d, %q; want 2 and a hint", code, stderr)
	}
}

// startServer runs serve or api (ADDR in args is replaced by a free
// loopback address), waits for /healthz and returns a stop function that
// sends SIGTERM and expects exit 0; nil when the server did not start.
func (r *readmeRun) startServer(line int, args ...string) (stop func()) {
	r.t.Helper()
	addr := freeAddr(r.t)
	args = slices.Clone(args)
	for i := range args {
		if args[i] == "ADDR" {
			args[i] = addr
		}
	}
	cmd := exec.Command(binary, args...)
	cmd.Dir = r.dir
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		r.errorf(line, "freightsite %s: %v", strings.Join(args, " "), err)
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	r.api.base = "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(r.api.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-done:
			r.errorf(line, "freightsite %s stopped before answering /healthz: %v\n%s", strings.Join(args, " "), err, log.String())
			return nil
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-done
			r.errorf(line, "freightsite %s did not answer /healthz within 20 s\n%s", strings.Join(args, " "), log.String())
			return nil
		}
	}
	return func() {
		r.t.Helper()
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			if err != nil {
				r.errorf(line, "freightsite %s after SIGTERM: %v, want exit 0\n%s", args[0], err, log.String())
			}
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			r.errorf(line, "freightsite %s did not stop within 15 s of SIGTERM", args[0])
		}
	}
}

// runShellLine runs a `freightsite ...` (or `go run . ...`) line of a
// ```sh block in the run's folder (a server is started and stopped;
// --addr, --db and --out are moved to temporary ones, --dist is the
// harness's build, --root the run's folder) or checks that a `make
// TARGET` line names a target.
func (r *readmeRun) runShellLine(l shellLine) {
	words, err := shellWords(l.text)
	if err != nil {
		r.errorf(l.line, "%v", err)
		return
	}
	if words[0] == "make" {
		target := strings.Join(words, " ")
		if _, ok := notRunnableHere[target]; !ok {
			r.errorf(l.line, "`%s` is not run by this test and not listed in notRunnableHere with the reason", target)
		}
		cmd := exec.Command("make", "-n", words[1])
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			r.errorf(l.line, "`make %s` is not a target of the Makefile: %v\n%s", words[1], err, out)
		}
		return
	}
	args := words[1:]
	if words[0] == "go" { // go run . ARGS: this tree's freightsite
		args = words[3:]
	}
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--addr":
			args[i+1] = "ADDR"
		case "--db":
			args[i+1] = filepath.Join(r.dir, "shell.db")
		case "--out":
			args[i+1] = filepath.Join(r.dir, "shell-dist")
		case "--dist":
			args[i+1] = r.dist
		case "--root":
			args[i+1] = r.dir
		}
	}
	path := commandPath(strings.Join(args, " "))
	switch path {
	case "build": // from this source tree (a later --root wins)
		args = append(args, "--root", root)
	case "dev": // on this source tree, which it only reads, on a free port
		args = append(args, "--root", root, "--typecheck=false", "--addr", "ADDR")
	}
	switch {
	case path == "serve" || path == "api" || path == "dev":
		if stop := r.startServer(l.line, args...); stop != nil {
			stop()
		}
	case r.commands[path] == 0:
		r.errorf(l.line, "`freightsite %s` is not in README's command table", path)
	default:
		r.expectRun(l.line, args...)
	}
}

// shellWords splits a command line as the shell would, for the quoting
// README's examples use ('...', "...", no expansions).
func shellWords(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	var quote rune
	for _, c := range line {
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case c == '$' || c == '`' || c == '|' || c == ';' || c == '&' || c == '>' || c == '<':
			return nil, errors.New("a shell line with expansions, pipes or redirections is not run as a command: " + line)
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errors.New("an unclosed quote in " + line)
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// checkTrees: the folders and files of "Layout" are in the source tree,
// and those of "What `build` writes" in the harness build's output.
func (r *readmeRun) checkTrees() {
	if b := r.layoutTree; b != nil {
		for i, line := range b.lines {
			if line == "" || line[0] == ' ' {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, strings.Fields(line)[0])); err != nil {
				r.errorf(b.start+i, "the layout lists %s, which the source tree lacks", strings.Fields(line)[0])
			}
		}
	}
	b := r.distTree
	if b == nil {
		return
	}
	for i, line := range b.lines {
		entry, ok := strings.CutPrefix(line, "  ")
		if i == 0 || !ok || entry == "" || entry[0] == ' ' {
			continue // the root, or a description going on
		}
		names := columnGap.Split(entry, 2)[0]
		names = parenthesis.ReplaceAllString(names, "")
		for _, name := range strings.Split(names, ", ") {
			name = strings.TrimSuffix(strings.TrimSpace(name), "...")
			for _, pattern := range expandBraces(strings.ReplaceAll(name, "HASH", "*")) {
				matches, _ := filepath.Glob(filepath.Join(r.dist, pattern))
				if name != "" && len(matches) == 0 {
					r.errorf(b.start+i, "the build wrote nothing at %s", pattern)
				}
			}
		}
	}
}

var parenthesis = regexp.MustCompile(`\s*\(.*?\)`)

// expandBraces expands one {a,b,c} group: assets/i18n/{en,hi}.json.
func expandBraces(s string) []string {
	open, end := strings.Index(s, "{"), strings.Index(s, "}")
	if open < 0 || end < open {
		return []string{s}
	}
	var out []string
	for _, alt := range strings.Split(s[open+1:end], ",") {
		out = append(out, s[:open]+alt+s[end+1:])
	}
	return out
}
