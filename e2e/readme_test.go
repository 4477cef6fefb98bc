package e2e

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
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

	"freightsite/data"
)

// TestREADME runs what README.md and the guides in docs/ document, so an
// example that stops working fails here and names its file and line:
//
//   - every row of the command tables (docs/commands.md, every command
//     with every flag; README's short list): the command exists, has the
//     flags its synopsis shows, and a run of it (below) works; every
//     command of the binary has a row in both, and every flag is in the
//     documents;
//   - every line of the ```sh blocks of every document: `freightsite ...`
//     runs (servers are started and stopped, paths and ports moved to
//     temporary ones), `make TARGET` is a target of the Makefile;
//   - every example of docs/api.md (the curl commands and the
//     `METHOD /path` notation) against `freightsite serve` on loopback,
//     each answer compared with the documented one: status, media type,
//     headers and the JSON's shape (keys, types, texts);
//   - `csv validate --format json` against its documented output, the
//     file trees of "What `build` writes" and "Layout", and every source
//     path the documents name in backquotes or draw in a ```text diagram.
//
// A block, line or command the test cannot classify fails it: teach this
// file to run it, or list it in notRunnableHere with the reason.
func TestREADME(t *testing.T) {
	r := newReadmeRun(t, readDocs(t))
	r.checkCommandsAndFlags()
	r.classifyBlocks()
	r.runCommandExamples()
	r.checkTrees()
	r.checkPaths()
	t.Logf("%d documents: %d commands of the table, %d shell lines, %d API answers checked, %d source paths", len(r.docs), len(r.commands), len(r.shellLines), r.api.checked, r.paths)
}

// The documents the tests read, relative to the source tree: README.md,
// the front door, and every guide in docs/. The full command table and
// the API flags are in commandsDoc, README's short list of commands in
// readmeFile, and the API's examples in apiDoc.
const (
	readmeFile  = "README.md"
	commandsDoc = "docs/commands.md"
	apiDoc      = "docs/api.md"
	// operationsDoc's step 3 is run as a new machine meets it.
	operationsDoc = "docs/operations.md"
)

// notRunnableHere are documented examples this test does not run, and why:
// commands as named in the command table ("csv validate"; their --help is
// still checked), make targets as "make TARGET" (checked to exist with
// make -n), other shell lines by their first word ("systemctl"), and
// whole blocks as "```LANG under HEADING" (the nearest heading or the
// "##" section it is in), API examples as "METHOD /path".
var notRunnableHere = map[string]string{
	"make test":            "it is the suite that runs this test",
	"make run":             "it builds into ./dist and serves on :8080 until stopped; this test runs its two commands, build and serve, on a temporary folder and port",
	"make bench":           "it measures for about a minute; make test runs make bench-quick, every section of it",
	"make bench-quick":     "it is a step of make test of its own",
	"dev":                  "e2e/dev_test.go (TestDevShowsEachSaveInTheOpenPage) runs it on a copy of the source tree, edits files and watches the page in Chromium; README's shell line starts it here",
	"``` under Developing": "what its terminal shows; e2e/dev_test.go checks the rebuild lines",
	// The import report and its JSON are of a Tally export built in the test.
	"``` under The report":          "cmd/csv_test.go (TestCSVValidateReadmeReport) builds the Tally export and compares the whole report with this one, line for line",
	"```json under The report":      "cmd/csv_test.go (TestCSVValidateReadmeJSON) checks every field shown against the command's JSON of the same Tally export",
	"``` under A corrected copy":    "cmd/csv_test.go (TestCSVFixReadme) corrects the same Tally export and compares the output with this one, line for line",
	"```csv under A corrected copy": "cmd/csv_test.go (TestCSVFixReadme) checks that the change list starts with these lines",
	// API examples by method and path (the query left out).
	"GET /api/publicTruckingAuctionForm/confirm":  "its token is mailed only for a change to an MC number registered before, which the example before it creates; e2e/auction_test.go runs the mailed link",
	"POST /api/publicTruckingAuctionForm/confirm": "as its GET: e2e/auction_test.go applies a mailed change",
	"```sh under Running in production": "the operator's steps need root, systemd and /etc/nginx (step 3's build is run here, as on a new machine: runFirstProductionBuild): " +
		"e2e/nginx_test.go (TestNginx) follows them in a copy of Debian's /etc/nginx (socket, build --stage, " +
		"release publish, restart, rollback), e2e/operator_test.go runs the SQLite backup line under load and verifies and starts the units, " +
		"and e2e/postgres_test.go (TestPostgreSQLBackupAsDocumented) runs the PostgreSQL backup, test restore and restore blocks on a throwaway cluster",
	"```sh under Several API instances on PostgreSQL": "it needs a PostgreSQL server with its roles: FORMAPI_DB=postgres runs formapi's tests on a throwaway cluster " +
		"(internal/pgtest), TestTwoInstancesShareTheDatabase two servers on one database, and make bench freightsite api on one",
	"``` under Running in production":                 "a logrotate configuration; the reopening it relies on is e2e/operator_test.go's TestSIGHUPReopensTheLogFile",
	"```json under Hosting `dist/` on another server": "Cloudflare's wrangler configuration: it configures Cloudflare, nothing runs it here",
	"netlify": "Netlify's own command line deploys to Netlify; generator/redirects_test.go checks the _redirects it reads",
}

// notInTree are source paths the documents name that a clean checkout
// does not hold, and why.
var notInTree = map[string]string{
	"e2e/screenshots/": "SCREENSHOTS=1 go test ./e2e writes it",
}

// loc is a place in the documents: a file (relative to the source tree)
// and a line.
type loc struct {
	file string
	line int
}

func (l loc) String() string { return fmt.Sprintf("%s:%d", l.file, l.line) }

// readmeDoc is one document: its lines and its fenced code blocks.
type readmeDoc struct {
	file   string // relative to the source tree: README.md, docs/api.md
	lines  []string
	blocks []codeBlock
}

type codeBlock struct {
	file    string   // the document's
	lang    string   // the fence's language: sh, json, text or none
	section string   // the "#" or "##" heading the block is under
	heading string   // the nearest heading of any level
	intro   string   // the text between the previous block or heading and this one
	start   int      // line number of lines[0] in the document
	lines   []string // the lines inside the fence
}

func (b codeBlock) at(i int) loc { return loc{b.file, b.start + i} }

// docFiles lists README.md and the guides in docs/, in that order.
func docFiles(t *testing.T) []string {
	t.Helper()
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(guides) == 0 {
		t.Fatalf("no guides in docs/: %v", err)
	}
	files := []string{readmeFile}
	for _, g := range guides {
		files = append(files, "docs/"+filepath.Base(g))
	}
	return files
}

// readDocs reads every document docFiles lists.
func readDocs(t *testing.T) []readmeDoc {
	var docs []readmeDoc
	for _, f := range docFiles(t) {
		docs = append(docs, readDoc(t, f))
	}
	return docs
}

// readDoc reads one document (file relative to the source tree).
func readDoc(t *testing.T, file string) readmeDoc {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	doc := readmeDoc{file: file, lines: strings.Split(string(raw), "\n")}
	var section, heading string
	var intro []string
	for i := 0; i < len(doc.lines); i++ {
		line := doc.lines[i]
		if strings.HasPrefix(line, "#") {
			heading = strings.TrimLeft(line, "# ")
			if strings.HasPrefix(line, "# ") || strings.HasPrefix(line, "## ") {
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
		b := codeBlock{file: file, lang: strings.TrimSpace(lang), section: section, heading: heading, intro: strings.Join(intro, "\n"), start: i + 2}
		for i++; i < len(doc.lines) && !strings.HasPrefix(doc.lines[i], "```"); i++ {
			b.lines = append(b.lines, doc.lines[i])
		}
		if i == len(doc.lines) {
			t.Fatalf("%s: a code block that is never closed", b.at(-1))
		}
		doc.blocks = append(doc.blocks, b)
		intro = nil
	}
	return doc
}

// doc is the document named file.
func (r *readmeRun) doc(file string) readmeDoc {
	for _, d := range r.docs {
		if d.file == file {
			return d
		}
	}
	r.t.Fatalf("%s is missing", file)
	return readmeDoc{}
}

// readmeRun is one run of the documents' examples: temporary folders,
// the database the commands and the API server share, and what earlier
// examples left for later ones (the anti-forgery token, a bearer token).
type readmeRun struct {
	t    *testing.T
	docs []readmeDoc
	dir  string // working folder of commands and shell examples
	db   string
	dist string // the harness's build (read only: other tests serve it)

	commands map[string]loc // command table: command path -> its row
	apiFlags map[string]loc // API flags table: flag -> its row

	apiBlocks  []codeBlock // examples of the API guide, in order
	shellLines []shellLine // freightsite and make lines of ```sh blocks elsewhere
	csvJSON    *codeBlock  // the documented output of csv validate --format json
	firstBuild *codeBlock  // operationsDoc's step 3, the build
	distTree   *codeBlock
	layoutTree *codeBlock
	diagrams   []codeBlock // ```text blocks: drawings whose source paths must exist

	api     apiState
	totals  map[string]int // GET /public_totals.json of the API examples' database
	release string         // the release `release list` showed published
	paths   int            // source paths checked
}

type shellLine struct {
	at   loc
	text string
}

func newReadmeRun(t *testing.T, docs []readmeDoc) *readmeRun {
	dir := t.TempDir()
	return &readmeRun{t: t, docs: docs, dir: dir, db: filepath.Join(dir, "readme.db"), dist: filepath.Join(work, "dist")}
}

// errorf reports a problem with a line of a document.
func (r *readmeRun) errorf(at loc, format string, args ...any) {
	r.t.Helper()
	r.t.Errorf("%s: "+format, append([]any{at}, args...)...)
}

func (r *readmeRun) fatalf(at loc, format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("%s: "+format, append([]any{at}, args...)...)
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

// commandRows checks the rows of a document's command table: each names
// a command of the binary and flags it has. It returns the row of each
// command path (the first, where a command has several).
func (r *readmeRun) commandRows(d readmeDoc) map[string]loc {
	rows := map[string]loc{}
	for i, line := range d.lines {
		m := commandRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		at, path := loc{d.file, i + 1}, commandPath(m[1])
		if _, ok := rows[path]; !ok {
			rows[path] = at
		}
		help, err := r.help(path)
		if err != nil || !strings.Contains(help, "Usage:\n  freightsite "+path) {
			r.errorf(at, "`freightsite %s` is not a command of the binary: %v\n%s", path, err, help)
			continue
		}
		for _, f := range flagName.FindAllString(m[1], -1) {
			if !slices.Contains(helpFlags(help), f) {
				r.errorf(at, "`freightsite %s` has no flag %s (its --help lists %v)", path, f, helpFlags(help))
			}
		}
	}
	return rows
}

// checkCommandsAndFlags: each row of the command table (commandsDoc) and
// of README's short list names a command of the binary and flags it has;
// the API flags table's flags are flags of serve and api; every command
// of the binary has a row in both, and every flag is mentioned somewhere
// in the documents.
func (r *readmeRun) checkCommandsAndFlags() {
	commands := r.doc(commandsDoc)
	r.commands, r.apiFlags = r.commandRows(commands), map[string]loc{}
	for i, line := range commands.lines {
		if m := flagRow.FindStringSubmatch(line); m != nil {
			at := loc{commands.file, i + 1}
			r.apiFlags[m[1]] = at
			for _, c := range []string{"serve", "api"} {
				if help, _ := r.help(c); !slices.Contains(helpFlags(help), m[1]) {
					r.errorf(at, "API flag %s is not a flag of `freightsite %s`", m[1], c)
				}
			}
		}
	}
	if len(r.commands) == 0 || len(r.apiFlags) == 0 {
		r.t.Fatalf("%s has no command table or no API flags table (rows starting with | `freightsite ...` and | `--flag`)", commandsDoc)
	}
	short := r.commandRows(r.doc(readmeFile))
	var text []string
	for _, d := range r.docs {
		text = append(text, d.lines...)
	}
	all := strings.Join(text, "\n")
	leaves := r.leafCommands("")
	for _, path := range leaves {
		if _, ok := r.commands[path]; !ok {
			r.t.Errorf("%s: `freightsite %s` is missing from the command table", commandsDoc, path)
		}
		if _, ok := short[path]; !ok {
			r.t.Errorf("%s: `freightsite %s` is missing from the list of commands", readmeFile, path)
		}
	}
	for _, path := range append(leaves, "") { // "": the flags of freightsite itself
		help, _ := r.help(path)
		for _, f := range helpFlags(help) {
			if !regexp.MustCompile(regexp.QuoteMeta(f) + `\b`).MatchString(all) {
				r.t.Errorf("flag %s of `freightsite %s` is documented nowhere (README.md, docs/)", f, path)
			}
		}
	}
}

// notRunnableBlock reports whether notRunnableHere lists a block, under
// its nearest heading or under its section.
func notRunnableBlock(b *codeBlock) bool {
	return notRunnableHere["```"+b.lang+" under "+b.heading] != "" || notRunnableHere["```"+b.lang+" under "+b.section] != ""
}

// classifyBlocks sorts every code block of every document to the check
// that runs it, and fails on a block or line no check knows.
func (r *readmeRun) classifyBlocks() {
	for _, d := range r.docs {
		for i := range d.blocks {
			r.classifyBlock(&d.blocks[i])
		}
	}
	if r.distTree == nil || r.layoutTree == nil || len(r.apiBlocks) == 0 {
		r.t.Errorf("the documents lack a block the test checks: build's tree %v, the layout %v, API examples %d",
			r.distTree != nil, r.layoutTree != nil, len(r.apiBlocks))
	}
}

func (r *readmeRun) classifyBlock(b *codeBlock) {
	switch {
	case b.file == operationsDoc && b.lang == "sh" && b.heading == "3. Build":
		r.firstBuild = b
	case notRunnableBlock(b):
	case b.file == apiDoc && (b.lang == "" || b.lang == "sh"):
		r.apiBlocks = append(r.apiBlocks, *b)
	case b.lang == "sh":
		for j, line := range b.lines {
			text := strings.TrimSpace(strings.SplitN(line, " #", 2)[0])
			switch {
			case text == "":
			case strings.HasPrefix(text, "freightsite "), strings.HasPrefix(text, "go run . "), strings.HasPrefix(text, "make "):
				r.shellLines = append(r.shellLines, shellLine{b.at(j), text})
			case notRunnableHere[strings.Fields(text)[0]] != "":
			default:
				r.errorf(b.at(j), "a shell line the test cannot classify: %q (teach e2e/readme_test.go to run it, or list it in notRunnableHere)", text)
			}
		}
	case b.lang == "json" && strings.Contains(b.intro, "`--format json` prints"):
		r.csvJSON = b
	case b.lang == "" && strings.HasPrefix(b.heading, "What `build` writes"):
		r.distTree = b
	case b.lang == "" && b.heading == "Layout":
		r.layoutTree = b
	case b.lang == "text":
		r.diagrams = append(r.diagrams, *b)
	default:
		r.errorf(b.at(-1), "a ```%s block under %q the test cannot classify: teach e2e/readme_test.go to check it, or list it in notRunnableHere (\"```%s under %s\") with the reason", b.lang, b.heading, b.lang, b.heading)
	}
}

// commandExamples run each command of the table, in this order (later
// ones use what earlier ones made: the tenant the API examples look up,
// the database a build reads its key figures from).
var commandExamples = []struct {
	path string
	run  func(r *readmeRun, at loc)
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
	{"release export", (*readmeRun).exampleReleaseExport},
	{"locales reviewed", (*readmeRun).exampleLocalesReviewed},
}

func (r *readmeRun) runCommandExamples() {
	ran := map[string]bool{}
	for _, e := range commandExamples {
		at, ok := r.commands[e.path]
		if !ok {
			r.t.Errorf("e2e/readme_test.go runs `freightsite %s`, which the command table (%s) no longer lists: remove its example", e.path, commandsDoc)
			continue
		}
		ran[e.path] = true
		e.run(r, at)
	}
	for path, at := range r.commands {
		if _, why := notRunnableHere[path]; !ran[path] && !why {
			r.errorf(at, "`freightsite %s` is run by no example: add one to commandExamples in e2e/readme_test.go, or list it in notRunnableHere with the reason (`--help` is checked either way)", path)
		}
	}
	for _, l := range r.shellLines {
		r.runShellLine(l)
	}
	r.runFirstProductionBuild()
}

// runFirstProductionBuild runs step 3 of Running in production, the
// build, as a new machine meets it: before step 4 has started the API,
// with no database nor its folder. The build succeeds, says it used the
// seed and makes nothing; then the API, started on that database as step
// 4 starts it (in the folder systemd makes, StateDirectory=), creates it
// holding the news the pages show: the steps work in their order.
func (r *readmeRun) runFirstProductionBuild() {
	b := r.firstBuild
	if b == nil {
		r.t.Errorf("%s has no ```sh block under \"3. Build\": update runFirstProductionBuild", operationsDoc)
		return
	}
	at := b.at(0)
	words, err := shellWords(strings.TrimSpace(strings.ReplaceAll(strings.Join(b.lines, "\n"), "\\\n", " ")))
	if err != nil || len(words) < 2 || words[0] != "freightsite" || words[1] != "build" || !slices.Contains(words, "--db") {
		r.errorf(at, "step 3 is not one `freightsite build ... --db F` line (%v): update runFirstProductionBuild", err)
		return
	}
	db := filepath.Join(r.t.TempDir(), "var", "lib", "freightsite", "freightsite.db")
	dist := filepath.Join(r.t.TempDir(), "dist")
	args := words[1:]
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--root":
			args[i+1] = root
		case "--out":
			args[i+1] = dist
		case "--db":
			args[i+1] = db
		}
	}
	code, _, stderr := r.freightsite(args...)
	if code != 0 {
		r.errorf(at, "step 3 on a new machine: exit %d\n%s", code, stderr)
		return
	}
	if !strings.Contains(stderr, "--db "+db+": no database there yet") {
		r.errorf(at, "step 3 on a new machine does not say that it used the seed:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Dir(db)); err == nil {
		r.errorf(at, "step 3 made the database's folder, which is the API's (systemd's StateDirectory)")
	}
	pages, _ := filepath.Glob(filepath.Join(dist, "news-feed", "news", "[0-9]*", "index.html"))
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		r.t.Fatal(err)
	}
	stop := r.startServer(at, "api", "--addr", "ADDR", "--db", db)
	if stop == nil {
		return
	}
	defer stop()
	var totals map[string]int
	resp, err := http.Get(r.api.base + "/public_totals.json")
	if err == nil {
		err = json.NewDecoder(resp.Body).Decode(&totals)
		resp.Body.Close()
	}
	if err != nil || len(pages) == 0 || totals["newsItems"] != len(pages) || totals["members"] != 0 {
		r.errorf(at, "after step 4 the API's new database holds %v (%v); step 3 wrote %d news item pages and no member count", totals, err, len(pages))
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
func (r *readmeRun) expectRun(at loc, args ...string) string {
	r.t.Helper()
	code, stdout, stderr := r.freightsite(args...)
	if code != 0 {
		r.errorf(at, "freightsite %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
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
func (r *readmeRun) exampleBuild(at loc) {
	out := string(siteBuildOutput)
	// The warnings about placeholders (standard error) may follow.
	if !strings.Contains(out, "html KB") || !strings.Contains(out, "/ma/faq") || !regexp.MustCompile(`(?m)^release \S+ published in .*\n.*Total in \d+ ms$`).MatchString(out) {
		r.errorf(at, "build printed no weight table, release line and `Total in N ms`:\n%s", out)
	}
	dist := filepath.Join(r.dir, "db-dist")
	stdout := r.expectRun(at, "build", "--root", root, "--out", dist, "--db", r.db, "--report", "json")
	var report map[string]any
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		r.errorf(at, "build --report json printed no JSON object: %v\n%.400s", err, stdout)
		return
	}
	r.checkReportKeys(report)
	r.checkKeyFigures(at, dist)
}

var backticked = regexp.MustCompile("`([a-z][A-Za-z]*)`")

// checkReportKeys compares the keys of `build --report json` (at every
// level) with those the documents' paragraph on it names.
func (r *readmeRun) checkReportKeys(report map[string]any) {
	var d readmeDoc
	start := -1
	for _, d = range r.docs {
		if start = slices.IndexFunc(d.lines, func(l string) bool { return strings.HasPrefix(l, "`build --report json` prints") }); start >= 0 {
			break
		}
	}
	if start < 0 {
		r.t.Errorf("no paragraph of README.md or docs/ starting \"`build --report json` prints\" lists the report's keys")
		return
	}
	at := loc{d.file, start + 1}
	documented := map[string]bool{}
	for _, l := range d.lines[start:] {
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
			r.errorf(at, "build --report json prints the key %q, which this paragraph does not name", k)
		}
	}
	for k := range documented {
		if !printed[k] {
			r.errorf(at, "this paragraph names the key %q, which build --report json does not print", k)
		}
	}
}

var keyFigure = regexp.MustCompile(`<div class="figure"><dt>.*?</svg>([^<]*)</dt><dd>(\d+)</dd></div>`)

// checkKeyFigures: the English home page of a build with --db shows the
// members GET /public_totals.json counted in that database, from the
// minimum data/site.json sets (keyFigures.minimum.members) on.
func (r *readmeRun) checkKeyFigures(at loc, dist string) {
	if r.totals == nil {
		return // the api example failed, and said why
	}
	home, err := os.ReadFile(filepath.Join(dist, "index.html"))
	if err != nil {
		r.errorf(at, "build --out %s wrote no home page: %v", dist, err)
		return
	}
	shown := map[string]string{}
	for _, m := range keyFigure.FindAllStringSubmatch(string(home), -1) {
		shown[m[1]] = m[2]
	}
	figures := data.Site().KeyFigures
	want := ""
	if n := r.totals["members"]; n > 0 && n >= figures.Minimum["members"] && slices.Contains(figures.Show, "members") {
		want = strconv.Itoa(n)
	}
	label := text(r.t, "en", "home.figures.members")
	got := shown[label]
	r.t.Logf("build --db: the home page shows %q for %q", got, label)
	if got != want {
		r.errorf(at, "build --db: the home page shows %q for %q, want %q (GET /public_totals.json: %v; figures shown: %v)", got, label, want, r.totals, shown)
	}
}

func (r *readmeRun) exampleCSVSample(at loc) {
	stdout := r.expectRun(at, "csv", "sample")
	r.expectRun(at, "csv", "sample", "--out", "sample.csv")
	if written, _ := os.ReadFile(filepath.Join(r.dir, "sample.csv")); string(written) != stdout || !strings.Contains(stdout, "Account Number") {
		r.errorf(at, "csv sample --out wrote %q, standard output had %q", written, stdout)
	}
}

// exampleCSVValidate checks the sample (valid), then a file with the two
// problems of README's JSON example, in text and in JSON; the JSON must
// match the documented output in shape.
func (r *readmeRun) exampleCSVValidate(at loc) {
	if out := r.expectRun(at, "csv", "validate", "sample.csv"); !strings.Contains(out, "sample.csv") {
		r.errorf(at, "csv validate sample.csv printed no summary line for the file:\n%s", out)
	}
	sample, _ := os.ReadFile(filepath.Join(r.dir, "sample.csv"))
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(sample, []byte("\uFEFF")))).ReadAll()
	if err != nil || len(rows) < 2 {
		r.fatalf(at, "csv sample is not a CSV file with data: %v", err)
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
		r.errorf(at, "csv validate march.csv: exit %d (want 1), output lacks %q:\n%s%s", code, want, text, stderr)
	}
	code, js, stderr := r.freightsite("csv", "validate", "march.csv", "--format", "json", "--max-errors", "1000")
	if code != 1 {
		r.errorf(at, "csv validate --format json on an invalid file: exit %d, want 1\n%s", code, stderr)
	}
	if r.csvJSON != nil {
		documented := strings.Join(r.csvJSON.lines, "\n")
		for _, p := range compareDocumented(documented, js) {
			r.errorf(r.csvJSON.at(0), "csv validate --format json no longer prints what this block shows: %s\n%s", p, js)
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
		r.errorf(at, "csv validate --max-errors 1 should list one error and count the other as omitted: %v\n%s", err, js)
	}
}

// exampleCSVFix corrects a copy of the sample saved with semicolons and
// Indian grouping: the copy is valid (exit 0) and its change list is
// beside it.
func (r *readmeRun) exampleCSVFix(at loc) {
	sample, _ := os.ReadFile(filepath.Join(r.dir, "sample.csv"))
	semicolons := strings.Replace(strings.ReplaceAll(string(sample), ",", ";"), ";125000.00;", ";1,25,000.00;", 1)
	r.writeFile("april.csv", []byte(semicolons))
	out := r.expectRun(at, "csv", "fix", "april.csv", "--out", "april-fixed.csv")
	if !strings.Contains(out, "april.csv: 2 changes, written to april-fixed.csv; each listed in april-fixed.changes.csv") {
		r.errorf(at, "csv fix printed:\n%s", out)
	}
	if code, _, _ := r.freightsite("csv", "validate", "april-fixed.csv"); code != 0 {
		r.errorf(at, "the corrected copy does not validate: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "april-fixed.changes.csv")); err != nil {
		r.errorf(at, "no change list beside the copy: %v", err)
	}
}

func (r *readmeRun) exampleCSVSchema(at loc) {
	var schema struct {
		Fields []struct {
			Name string `json:"name"`
		} `json:"fields"`
	}
	out := r.expectRun(at, "csv", "schema")
	if err := json.Unmarshal([]byte(out), &schema); err != nil || len(schema.Fields) != 25 {
		r.errorf(at, "csv schema printed no Table Schema of 25 fields: %v\n%s", err, out)
	}
}

// exampleNewsImport imports data/news.json, the documented format, into a
// database of its own (the API examples' list is the seed's), and a file
// with a wrong item, which must import nothing.
func (r *readmeRun) exampleNewsImport(at loc) {
	db := filepath.Join(r.dir, "import.db")
	r.expectRun(at, "news", "import", filepath.Join(root, "data", "news.json"), "--db", db)
	bad := r.writeFile("bad-news.json", []byte(`[{"newsFeedTitle":"Fine","content":"Fine"},{"newsFeedTitle":"","content":"No title"}]`))
	code, _, stderr := r.freightsite("news", "import", bad, "--db", db)
	if code != 2 || !strings.Contains(stderr, "2") {
		r.errorf(at, "news import of a file whose second item has no title: exit %d, stderr %q; want exit 2 naming the item", code, stderr)
	}
}

const readmeNewsTitle = "Monsoon advisory for the Konkan route"

func (r *readmeRun) exampleNewsAdd(at loc) {
	r.expectRun(at, "news", "add", "--title", readmeNewsTitle, "--content", "Expect delays between Panvel and Ratnagiri this week.",
		"--url", "https://news.example.in/konkan", "--redirect", "--posted", "2026-11-20T10:00:00Z", "--db", r.db)
}

func (r *readmeRun) exampleNewsList(at loc) {
	out := r.expectRun(at, "news", "list", "--search", "Konkan", "--db", r.db)
	if !strings.Contains(out, readmeNewsTitle) || strings.Contains(out, "Dedicated Freight Corridor") {
		r.errorf(at, "news list --search Konkan should list the item news add added, and only it:\n%s", out)
	}
}

// The tenant README's API examples look up.
const readmeTenant, readmeTenantName = "acme", "Acme Roadways"

func (r *readmeRun) exampleTenantAdd(at loc) {
	logo := r.writeFile("logo.png", pngFile)
	r.expectRun(at, "tenant", "add", readmeTenant, "--name", readmeTenantName, "--logo", logo, "--theme", "green", "--db", r.db)
	r.expectRun(at, "tenant", "add", "pune", "--name", "Pune Carriers", "--logo", logo, "--theme", "teal", "--default", "--db", r.db)
}

func (r *readmeRun) exampleTenantList(at loc) {
	out := r.expectRun(at, "tenant", "list", "--db", r.db)
	if !strings.Contains(out, readmeTenantName) || !regexp.MustCompile(`(?m)^pune\s.*\bteal\s+Y\b`).MatchString(out) {
		r.errorf(at, "tenant list lacks the tenants tenant add added (acme, and pune with its default flag Y):\n%s", out)
	}
}

// exampleServe starts `freightsite serve` on the build and the shared
// database, runs the API section's examples against it, and stops it
// with SIGTERM, which must end it with exit 0.
func (r *readmeRun) exampleServe(at loc) {
	if stop := r.startServer(at, "serve", "--addr", "ADDR", "--dist", r.dist, "--db", r.db, "--captcha-max-number", "2000"); stop != nil {
		r.runAPIExamples()
		stop()
	}
}

func (r *readmeRun) exampleMailOutbox(at loc) {
	out := r.expectRun(at, "mail", "outbox", "--state", "held", "--limit", "50", "--db", r.db)
	if !strings.Contains(out, "held") || !strings.Contains(out, "meera@sahyadri.in") {
		r.errorf(at, "mail outbox --state held should list the mail the API examples queued (the reset mail to meera@sahyadri.in):\n%s", out)
	}
	id := regexp.MustCompile(`(?m)^\s*(\d+)\s.*meera@sahyadri\.in`).FindStringSubmatch(out)
	if id == nil {
		return
	}
	if shown := r.expectRun(at, "mail", "outbox", "--show", id[1], "--db", r.db); !strings.Contains(shown, "meera@sahyadri.in") || !strings.Contains(shown, "reset-password?token=") {
		r.errorf(at, "mail outbox --show %s should print the reset mail with its link:\n%s", id[1], shown)
	}
}

// exampleMailOptouts: the API examples' POST /api/unsubscribe left
// ravi@example.in; the list shows it (text and CSV), remove lifts it once.
func (r *readmeRun) exampleMailOptouts(at loc) {
	const left = "ravi@example.in"
	if out := r.expectRun(at, "mail", "optouts", "--db", r.db); !strings.Contains(out, left) {
		r.errorf(at, "mail optouts should list %s, who unsubscribed in the API examples:\n%s", left, out)
	}
	if out := r.expectRun(at, "mail", "optouts", "--format", "csv", "--db", r.db); !strings.HasPrefix(out, "email,unsubscribed_at\n"+left+",") {
		r.errorf(at, "mail optouts --format csv should start with email,unsubscribed_at and %s:\n%s", left, out)
	}
}

func (r *readmeRun) exampleMailOptoutsRemove(at loc) {
	const left = "ravi@example.in"
	r.expectRun(at, "mail", "optouts", "remove", strings.ToUpper(left), "--db", r.db)
	if code, _, stderr := r.freightsite("mail", "optouts", "remove", left, "--db", r.db); code != 1 {
		r.errorf(at, "mail optouts remove of an address with no opt-out left: exit %d, want 1\n%s", code, stderr)
	}
}

// exampleDBBackup copies the shared database: the copy passes the
// integrity check and lists the same news.
func (r *readmeRun) exampleDBBackup(at loc) {
	backup := filepath.Join(r.t.TempDir(), "backup.db")
	if out := r.expectRun(at, "db", "backup", backup, "--db", r.db); !strings.Contains(out, "integrity check: ok") {
		r.errorf(at, "db backup should say the copy passed the integrity check:\n%s", out)
	}
	if want, got := r.expectRun(at, "news", "list", "--db", r.db), r.expectRun(at, "news", "list", "--db", backup); got != want {
		r.errorf(at, "the backup's news differ from the database's:\n%s\nwant:\n%s", got, want)
	}
}

func (r *readmeRun) exampleAPI(at loc) {
	stop := r.startServer(at, "api", "--addr", "ADDR", "--db", r.db)
	if stop == nil {
		return
	}
	resp, err := http.Get(r.api.base + "/api/news/1")
	if err != nil || resp.StatusCode != http.StatusOK {
		r.errorf(at, "GET /api/news/1 from freightsite api: %v %v", resp, err)
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
		r.errorf(at, "GET /public_totals.json from freightsite api: %v %v", r.totals, err)
		r.totals = nil
	}
	stop()
}

// exampleReleaseList lists the releases beside the build with --db:
// one, published (*).
func (r *readmeRun) exampleReleaseList(at loc) {
	out := r.expectRun(at, "release", "list", "--out", filepath.Join(r.dir, "db-dist"))
	if m := regexp.MustCompile(`(?m)^\*\s+(\S+)\s`).FindStringSubmatch(out); m == nil || strings.Count(out, "\n") != 2 {
		r.errorf(at, "release list printed no one published release under its heading:\n%s", out)
	} else {
		r.release = m[1]
	}
}

// exampleReleasePublish publishes the listed release again (the link
// stays on it) and refuses one that does not exist, naming release list.
func (r *readmeRun) exampleReleasePublish(at loc) {
	out := filepath.Join(r.dir, "db-dist")
	if r.release == "" {
		return // release list failed, and said why
	}
	r.expectRun(at, "release", "publish", r.release, "--out", out)
	if target, err := os.Readlink(out); err != nil || filepath.Base(target) != r.release {
		r.errorf(at, "after release publish %s, %s links to %q (%v)", r.release, out, target, err)
	}
	if code, _, stderr := r.freightsite("release", "publish", "20000101T000000.000Z", "--out", out); code != 2 || !strings.Contains(stderr, "release list") {
		r.errorf(at, "release publish of an unknown release: exit %d, %q; want 2 pointing to release list", code, stderr)
	}
}

// exampleReleaseExport exports the published release of the build with
// --db for Netlify: the pages and _redirects, none of the build's
// bookkeeping; a second export into the same folder is refused.
func (r *readmeRun) exampleReleaseExport(at loc) {
	dir := filepath.Join(r.t.TempDir(), "netlify")
	out := r.expectRun(at, "release", "export", dir, "--for", "netlify", "--out", filepath.Join(r.dir, "db-dist"))
	if !strings.Contains(out, "exported to "+dir+" for netlify") {
		r.errorf(at, "release export printed %q", out)
	}
	for name, want := range map[string]bool{"index.html": true, "hi/faq/index.html": true, "_redirects": true, "_headers": true, "routes.json": false, ".freightsite-build": false, "index.html.gz": false} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			r.errorf(at, "the export for Netlify: %s there %v, want %v", name, err == nil, want)
		}
	}
	if code, _, stderr := r.freightsite("release", "export", dir, "--out", filepath.Join(r.dir, "db-dist")); code != 2 || !strings.Contains(stderr, "not empty") {
		r.errorf(at, "release export into a folder holding an export: exit %d, %q; want 2", code, stderr)
	}
}

// exampleLocalesReviewed records reviews in a copy of locales/ in the
// run's folder (the source tree's is never written), which the shell
// examples' `locales reviewed` lines use too (their --root is ".").
func (r *readmeRun) exampleLocalesReviewed(at loc) {
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
	if out := r.expectRun(at, "locales", "reviewed", "faq.items", "--lang", "hi", "--root", r.dir); !strings.HasPrefix(out, "hi: ") {
		r.errorf(at, "locales reviewed faq.items --lang hi printed %q, want a line for hi", out)
	}
	r.expectRun(at, "locales", "reviewed", "--new", "--root", r.dir)
	if code, _, stderr := r.freightsite("locales", "reviewed", "--root", r.dir); code != 2 || !strings.Contains(stderr, "--new") {
		r.errorf(at, "locales reviewed without keys: exit %d, %q; want 2 and a hint", code, stderr)
	}
}

// startServer runs serve or api (ADDR in args is replaced by a free
// loopback address), waits for /healthz and returns a stop function that
// sends SIGTERM and expects exit 0; nil when the server did not start.
func (r *readmeRun) startServer(at loc, args ...string) (stop func()) {
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
		r.errorf(at, "freightsite %s: %v", strings.Join(args, " "), err)
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
			r.errorf(at, "freightsite %s stopped before answering /healthz: %v\n%s", strings.Join(args, " "), err, log.String())
			return nil
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-done
			r.errorf(at, "freightsite %s did not answer /healthz within 20 s\n%s", strings.Join(args, " "), log.String())
			return nil
		}
	}
	return func() {
		r.t.Helper()
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			if err != nil {
				r.errorf(at, "freightsite %s after SIGTERM: %v, want exit 0\n%s", args[0], err, log.String())
			}
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			r.errorf(at, "freightsite %s did not stop within 15 s of SIGTERM", args[0])
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
		r.errorf(l.at, "%v", err)
		return
	}
	if words[0] == "make" {
		target := strings.Join(words, " ")
		if _, ok := notRunnableHere[target]; !ok {
			r.errorf(l.at, "`%s` is not run by this test and not listed in notRunnableHere with the reason", target)
		}
		cmd := exec.Command("make", "-n", words[1])
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			r.errorf(l.at, "`make %s` is not a target of the Makefile: %v\n%s", words[1], err, out)
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
		if stop := r.startServer(l.at, args...); stop != nil {
			stop()
		}
	case r.commands[path] == loc{}:
		r.errorf(l.at, "`freightsite %s` is not in the command table (%s)", path, commandsDoc)
	default:
		r.expectRun(l.at, args...)
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
				r.errorf(b.at(i), "the layout lists %s, which the source tree lacks", strings.Fields(line)[0])
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
					r.errorf(b.at(i), "the build wrote nothing at %s", pattern)
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

// sourcePath is a path of the source tree: its first folder is one of the
// tree's top-level folders. docPath finds one in backquotes in prose,
// diagramPath anywhere in a ```text drawing.
const topFolders = `(?:\.ci|bench|cmd|data|deploy|dev|docs|e2e|formapi|generator|internal|locales|pages|receivables)/[A-Za-z0-9_./-]*`

var (
	docPath     = regexp.MustCompile("`(" + topFolders + ")`")
	diagramPath = regexp.MustCompile(`(?:^|[\s(\[|>])(` + topFolders + `)`)
)

// checkPaths: every source path the documents name in backquotes, and
// every one a ```text diagram draws, is in the source tree (or listed in
// notInTree with the reason), so a file moved or renamed fails here,
// naming the line that still points at it.
func (r *readmeRun) checkPaths() {
	check := func(at loc, p string) {
		p = strings.TrimRight(p, ".,:;")
		if _, ok := notInTree[p]; ok {
			return
		}
		r.paths++
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			r.errorf(at, "names %s, which the source tree lacks (update the document, or list the path in notInTree with the reason)", p)
		}
	}
	for _, d := range r.docs {
		inBlock := false
		for i, line := range d.lines {
			if strings.HasPrefix(line, "```") {
				inBlock = !inBlock
				continue
			}
			if inBlock {
				continue
			}
			for _, m := range docPath.FindAllStringSubmatch(line, -1) {
				check(loc{d.file, i + 1}, m[1])
			}
		}
	}
	for _, b := range r.diagrams {
		for i, line := range b.lines {
			for _, m := range diagramPath.FindAllStringSubmatch(line, -1) {
				check(b.at(i), m[1])
			}
		}
	}
}
