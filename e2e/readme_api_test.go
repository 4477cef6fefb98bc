package e2e

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/textproto"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The API guide's examples (docs/api.md) are curl commands and a notation
// of its own:
//
//	POST /api/contact_us        Content-Type: application/json    X-XSRF-TOKEN: $TOKEN
//	{"name":"Ravi Kumar", ...}
//	200 {"status":"Success","result":"contact.result.sent"}
//	400 {"status":"Failed", ...}
//
// a request line (method, path, then headers, a body or a first answer in
// columns two or more spaces apart), header lines and body lines, then
// answers: a status, an optional media type, the body, headers and
// (comments). An indented line after an answer continues its body. The
// request is sent as shown (placeholders filled in: $TOKEN, <token>, a
// solved captcha for "eyJhbGc...", the mailed reset token for "<from the
// link>") and must get the first answer shown; the others are what other
// input gets, read only to check they are well formed. JSON answers are
// compared in shape: the same keys (a subset where "..." stands for more),
// the same types, the same texts except for placeholders (... and <...>),
// timestamps, relative times and digits; arrays element by element, "..."
// standing for any number of elements.

// apiState is what the API examples share: the server, the cookies and
// what earlier answers gave later requests.
type apiState struct {
	base     string
	client   *http.Client
	vars     map[string]string // variables the shell examples set (TOKEN)
	bearer   string            // the token of the last token answer
	lastList []any             // the last JSON list answered
	loginID  string            // the account of the last forgot-password request
	checked  int               // answers compared
}

type exchange struct {
	file         string // the document's
	line         int
	method, path string
	header       [][2]string
	body         []string
	curl         string // a curl command instead of method, path, header and body
	answers      []*answer
}

// at is a line of the exchange's document.
func (x *exchange) at(line int) loc { return loc{x.file, line} }

type answer struct {
	line   int
	status int
	media  string
	body   string
	header [][2]string
}

type problem struct {
	line int
	msg  string
}

var (
	requestLine = regexp.MustCompile(`^(GET|HEAD|POST|PUT|PATCH|DELETE) (/\S*)(.*)$`)
	answerField = regexp.MustCompile(`^([1-5]\d\d)(?: (.+))?$`)
	headerField = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9-]*): (.+)$`)
	mediaType   = regexp.MustCompile(`^[a-z]+/[a-z0-9.+-]+$`)
	answerNote  = regexp.MustCompile(`\s+\([^()]*\)$`)
	columnGap   = regexp.MustCompile(`\s{2,}`)
	shellAssign = regexp.MustCompile(`^([A-Z][A-Z0-9_]*)=`)
	placeholder = regexp.MustCompile(`^<.+>$`)
	curlOutput  = regexp.MustCompile(`\s-o\s`)
	curlUpload  = regexp.MustCompile(`=@([^\s'"]+)`)
)

// proseAnswers are documented answers written as words, not JSON, and how
// each is checked.
var proseAnswers = map[string]func(s *apiState, got any) string{
	"{same fields for one item}": func(s *apiState, got any) string {
		item, ok := got.(map[string]any)
		if len(s.lastList) == 0 {
			return "no list was answered before to compare with"
		}
		first, _ := s.lastList[0].(map[string]any)
		if !ok || !slices.Equal(sortedKeys(item), sortedKeys(first)) {
			return fmt.Sprintf("the fields %v are not those of a list item, %v", sortedKeys(item), sortedKeys(first))
		}
		return ""
	},
}

// requestFills are the request fields whose documented value is a
// placeholder, and where the real value comes from.
var requestFills = map[string]func(r *readmeRun) (string, error){
	"recaptchaResponse": (*readmeRun).solveCaptcha,
	"token":             (*readmeRun).mailedResetToken,
}

// curlFiles are the files curl examples upload (-F field=@FILE).
var curlFiles = map[string][]byte{"screen.png": pngFile}

func (r *readmeRun) runAPIExamples() {
	jar, _ := cookiejar.New(nil)
	r.api.client = &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r.api.vars = map[string]string{}
	for _, x := range r.tableExamples() {
		r.runExchange(x)
	}
	for _, b := range r.apiBlocks {
		if b.lang == "sh" {
			r.runShellExample(b)
			continue
		}
		exchanges, problems := parseExchanges(b)
		for _, p := range problems {
			r.errorf(b.at(p.line-b.start), "%s", p.msg)
		}
		for _, x := range exchanges {
			if _, skip := notRunnableHere[x.method+" "+strings.SplitN(x.path, "?", 2)[0]]; !skip {
				r.runExchange(x)
			}
		}
	}
}

// callRow is a row of the API guide's table of calls whose example is
// an answer (| `GET /healthz` | | `{"status":"ok"}` |), not "see below".
var callRow = regexp.MustCompile("^\\| `(GET|POST|PUT|PATCH|DELETE) (/[^`]*)` \\|[^|]*\\| `([^`]+)` \\|$")

// tableExamples are the calls of the table with an answer as example:
// a GET answered 200 with it.
func (r *readmeRun) tableExamples() []*exchange {
	var xs []*exchange
	d := r.doc(apiDoc)
	for i, line := range d.lines {
		m := callRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if m[1] != http.MethodGet {
			r.errorf(loc{d.file, i + 1}, "a %s call with an answer as its example: the test sends only GETs from the table (give it a block below)", m[1])
			continue
		}
		xs = append(xs, &exchange{file: d.file, line: i + 1, method: m[1], path: m[2], answers: []*answer{{line: i + 1, status: http.StatusOK, body: m[3]}}})
	}
	return xs
}

// parseExchanges reads the requests and answers of a block.
func parseExchanges(b codeBlock) ([]*exchange, []problem) {
	var xs []*exchange
	var problems []problem
	var cur *exchange
	var ans *answer
	// fields reads columns of a line: headers, a body, (comments) and
	// answers, each belonging to the request until an answer starts.
	fields := func(n int, text string) {
		for _, f := range columnGap.Split(strings.TrimSpace(text), -1) {
			switch m := answerField.FindStringSubmatch(f); {
			case f == "":
			case m != nil:
				status, _ := strconv.Atoi(m[1])
				ans = &answer{line: n, status: status}
				m[2] = answerNote.ReplaceAllString(m[2], "") // "text/html (the page)"
				if mediaType.MatchString(m[2]) {
					ans.media = m[2]
				} else {
					ans.body = m[2]
				}
				cur.answers = append(cur.answers, ans)
			case strings.HasPrefix(f, "(") && strings.HasSuffix(f, ")"):
			case headerField.MatchString(f):
				h := headerField.FindStringSubmatch(f)
				if ans != nil {
					ans.header = append(ans.header, [2]string{h[1], h[2]})
				} else {
					cur.header = append(cur.header, [2]string{h[1], h[2]})
				}
			case ans != nil && ans.body == "":
				ans.body = f
			case ans == nil:
				cur.body = append(cur.body, f)
			default:
				problems = append(problems, problem{n, fmt.Sprintf("a column the test cannot read: %q", f)})
			}
		}
	}
	for i := 0; i < len(b.lines); i++ {
		line, n := b.lines[i], b.start+i
		trimmed := strings.TrimSpace(line)
		indented := strings.HasPrefix(line, " ")
		switch {
		case trimmed == "":
			cur, ans = nil, nil
		case strings.HasPrefix(line, "curl "):
			cmd := line
			for strings.HasSuffix(strings.TrimSpace(cmd), `\`) && i+1 < len(b.lines) {
				i++
				cmd += "\n" + b.lines[i]
			}
			cur, ans = &exchange{file: b.file, line: n, curl: cmd}, nil
			xs = append(xs, cur)
		case requestLine.MatchString(line):
			m := requestLine.FindStringSubmatch(line)
			cur, ans = &exchange{file: b.file, line: n, method: m[1], path: m[2]}, nil
			xs = append(xs, cur)
			fields(n, m[3])
		case !indented && answerField.MatchString(columnGap.Split(line, 2)[0]):
			if cur == nil {
				problems = append(problems, problem{n, "an answer without a request before it"})
				continue
			}
			fields(n, line)
		case indented && ans != nil:
			ans.body += "\n" + trimmed
		case indented && cur != nil && allHeaders(trimmed):
			fields(n, trimmed)
		case cur != nil && len(cur.answers) == 0:
			cur.body = append(cur.body, line)
		default:
			problems = append(problems, problem{n, fmt.Sprintf("a line the test cannot read as a request, an answer or a body: %q (see e2e/readme_api_test.go)", line)})
		}
	}
	for _, x := range xs {
		if len(x.answers) == 0 && x.curl == "" {
			problems = append(problems, problem{x.line, "a request without a documented answer"})
		}
		for _, a := range x.answers {
			if _, _, err := documentedBody(a); err != nil {
				problems = append(problems, problem{a.line, err.Error()})
			}
		}
	}
	return xs, problems
}

func allHeaders(text string) bool {
	for _, f := range columnGap.Split(text, -1) {
		if !headerField.MatchString(f) {
			return false
		}
	}
	return true
}

// documentedBody reads an answer's documented body: JSON (with elisions),
// prose of proseAnswers, or text of a documented media type.
func documentedBody(a *answer) (isJSON bool, v any, err error) {
	body := strings.TrimSpace(a.body)
	switch {
	case strings.HasPrefix(body, "{") || strings.HasPrefix(body, "[") || strings.Contains(a.media, "json"):
		if _, ok := proseAnswers[body]; ok {
			return true, nil, nil
		}
		v, err := parseDocumentedJSON(body)
		if err != nil {
			return true, nil, fmt.Errorf("a documented JSON answer the test cannot read (%v): %s", err, body)
		}
		return true, v, nil
	case a.media != "":
		return false, body, nil
	default:
		return false, nil, fmt.Errorf("an answer with neither JSON nor a media type: %q", body)
	}
}

// runShellExample runs a ```sh block of the API guide (curl and
// variables) in the run's folder against the server, and keeps the
// variables it sets and the cookies it saves in `jar`.
func (r *readmeRun) runShellExample(b codeBlock) {
	u, _ := url.Parse(r.api.base)
	script := "set -e\n" + strings.ReplaceAll(strings.Join(b.lines, "\n"), "localhost:8080", u.Host) + "\n"
	var names []string
	for i, line := range b.lines {
		switch m := shellAssign.FindStringSubmatch(line); {
		case m != nil:
			names = append(names, m[1])
			script += fmt.Sprintf("printf '%%s=%%s\\n' %s \"$%s\"\n", m[1], m[1])
		case strings.HasPrefix(line, "curl "), strings.TrimSpace(line) == "":
		default:
			r.errorf(b.at(i), "a shell line of the API guide the test cannot classify: %q", line)
		}
	}
	out, err := r.shell(script)
	if err != nil {
		r.errorf(b.at(0), "the shell example failed: %v\n%s", err, out)
		return
	}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && slices.Contains(names, k) {
			r.api.vars[k] = v
		}
	}
	for i, name := range names {
		if r.api.vars[name] == "" {
			r.errorf(b.at(i), "the shell example left %s empty", name)
		}
	}
	r.loadCookieJar()
}

// shell runs a bash script in the run's folder with the examples'
// variables in its environment.
func (r *readmeRun) shell(script string) (string, error) {
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = r.dir
	cmd.Env = os.Environ()
	for k, v := range r.api.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// loadCookieJar gives the Go client the cookies curl saved in `jar`
// (Netscape format), so both kinds of examples are one visitor.
func (r *readmeRun) loadCookieJar() {
	f, err := os.Open(filepath.Join(r.dir, "jar"))
	if err != nil {
		return
	}
	defer f.Close()
	u, _ := url.Parse(r.api.base)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(strings.TrimPrefix(sc.Text(), "#HttpOnly_"), "\t")
		if len(fields) == 7 {
			r.api.client.Jar.SetCookies(u, []*http.Cookie{{Name: fields[5], Value: fields[6], Path: fields[2]}})
		}
	}
}

// runExchange sends one example and compares what comes back with its
// first documented answer.
func (r *readmeRun) runExchange(x *exchange) {
	var status int
	var header http.Header
	var body []byte
	var err error
	if x.curl != "" {
		status, header, body, err = r.runCurl(x)
	} else {
		status, header, body, err = r.send(x)
	}
	if err != nil {
		r.errorf(x.at(x.line), "%v", err)
		return
	}
	if len(x.answers) == 0 {
		if status >= 400 {
			r.errorf(x.at(x.line), "answered %d %s", status, bytes.TrimSpace(body))
		}
		return
	}
	a := x.answers[0]
	r.api.checked++
	if status != a.status {
		r.errorf(x.at(a.line), "the example of line %d got %d %s; the docs show %d", x.line, status, bytes.TrimSpace(body), a.status)
		return
	}
	ct := header.Get("Content-Type")
	isJSON, documented, _ := documentedBody(a)
	switch {
	case a.media != "" && !strings.HasPrefix(ct, a.media):
		r.errorf(x.at(a.line), "Content-Type %q; the docs show %s", ct, a.media)
	case a.media == "" && isJSON && !strings.Contains(ct, "json"):
		r.errorf(x.at(a.line), "Content-Type %q; the docs show JSON", ct)
	}
	for _, h := range a.header {
		if why := headerMismatch(header.Values(h[0]), h[1]); why != "" {
			r.errorf(x.at(a.line), "header %s: %s", h[0], why)
		}
	}
	if !isJSON {
		if !documentedText(documented.(string)).MatchString(strings.TrimSpace(string(body))) {
			r.errorf(x.at(a.line), "answered %q; the docs show %q", body, documented)
		}
		return
	}
	var got any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		r.errorf(x.at(a.line), "the answer is not JSON (%v): %s", err, body)
		return
	}
	if check, ok := proseAnswers[strings.TrimSpace(a.body)]; ok {
		if why := check(&r.api, got); why != "" {
			r.errorf(x.at(a.line), "%s: %s", a.body, why)
		}
	} else {
		for _, p := range matchDocumented("answer", documented, got) {
			r.errorf(x.at(a.line), "the answer no longer matches the docs: %s\ngot %s", p, bytes.TrimSpace(body))
		}
	}
	switch v := got.(type) {
	case []any:
		r.api.lastList = v
	case map[string]any:
		if token, ok := v["token"].(string); ok && v["tokenType"] == "Bearer" {
			r.api.bearer = token
		}
	}
}

// send makes the example's request with its placeholders filled in. Every
// request other than GET carries the anti-forgery header (the API guide's rule
// for the whole API), JSON bodies their Content-Type, where the example
// leaves them out.
func (r *readmeRun) send(x *exchange) (int, http.Header, []byte, error) {
	body := strings.Join(x.body, "\n")
	contentType := ""
	if strings.HasPrefix(body, "{") {
		filled, err := r.fillPlaceholders(body)
		if err != nil {
			return 0, nil, nil, err
		}
		body, contentType = filled, "application/json"
	}
	req, err := http.NewRequest(x.method, r.api.base+r.expand(x.path), strings.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if x.method != http.MethodGet && x.method != http.MethodHead {
		req.Header.Set("X-XSRF-TOKEN", r.api.vars["TOKEN"])
	}
	for _, h := range x.header {
		value := r.expand(h[1])
		if strings.Contains(value, "<token>") {
			if r.api.bearer == "" {
				return 0, nil, nil, errors.New("<token> with no token answered before")
			}
			value = strings.ReplaceAll(value, "<token>", r.api.bearer)
		}
		req.Header.Set(h[0], value)
	}
	resp, err := r.api.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

// expand replaces $NAME with the variables the shell examples set.
func (r *readmeRun) expand(s string) string {
	return os.Expand(s, func(name string) string { return r.api.vars[name] })
}

// fillPlaceholders replaces the body's placeholder values ("eyJhbGc...",
// "<from the link>") with real ones (requestFills).
func (r *readmeRun) fillPlaceholders(body string) (string, error) {
	var fields map[string]any
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	err := dec.Decode(&fields)
	if err != nil {
		return "", fmt.Errorf("the request body is not JSON: %v\n%s", err, body)
	}
	for k, v := range fields {
		s, ok := v.(string)
		if !ok {
			continue
		}
		if k == "loginId" {
			r.api.loginID = s
		}
		if !strings.Contains(s, "...") && !placeholder.MatchString(s) {
			continue
		}
		fill, ok := requestFills[k]
		if !ok {
			return "", fmt.Errorf("field %s holds the placeholder %q, which the test cannot fill: add it to requestFills in e2e/readme_api_test.go", k, s)
		}
		if fields[k], err = fill(r); err != nil {
			return "", fmt.Errorf("filling in %s: %w", k, err)
		}
	}
	b, err := json.Marshal(fields)
	return string(b), err
}

// solveCaptcha fetches a proof-of-work challenge and solves it, as the
// site's widget does.
func (r *readmeRun) solveCaptcha() (string, error) {
	resp, err := r.api.client.Get(r.api.base + "/api/captcha/challenge")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var c struct {
		Algorithm string `json:"algorithm"`
		Challenge string `json:"challenge"`
		MaxNumber int    `json:"maxnumber"`
		Salt      string `json:"salt"`
		Signature string `json:"signature"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		return "", fmt.Errorf("reading a captcha challenge: %w", err)
	}
	for n := 0; n <= c.MaxNumber; n++ {
		if sum := sha256.Sum256([]byte(c.Salt + strconv.Itoa(n))); hex.EncodeToString(sum[:]) == c.Challenge {
			payload, _ := json.Marshal(map[string]any{"algorithm": c.Algorithm, "challenge": c.Challenge, "number": n, "salt": c.Salt, "signature": c.Signature})
			return base64.StdEncoding.EncodeToString(payload), nil
		}
	}
	return "", fmt.Errorf("no solution up to %d for the captcha challenge %+v", c.MaxNumber, c)
}

// mailedResetToken is the token of the reset link mailed to the account
// of the last forgot-password example (the outbox holds it).
func (r *readmeRun) mailedResetToken() (string, error) {
	db, err := sql.Open("sqlite3", "file:"+r.db+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		return "", err
	}
	defer db.Close()
	var body string
	if err := db.QueryRow(`SELECT body FROM outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1`, r.api.loginID).Scan(&body); err != nil {
		return "", fmt.Errorf("no mail to %q in the outbox: %w", r.api.loginID, err)
	}
	link, err := url.Parse(resetLinkPattern.FindString(body))
	if err != nil || link.Query().Get("token") == "" {
		return "", fmt.Errorf("no reset link in the mail to %s: %q", r.api.loginID, body)
	}
	return link.Query().Get("token"), nil
}

// runCurl runs a curl example with its answer written aside: its status,
// headers and body.
func (r *readmeRun) runCurl(x *exchange) (int, http.Header, []byte, error) {
	u, _ := url.Parse(r.api.base)
	cmd := strings.ReplaceAll(x.curl, "localhost:8080", u.Host)
	if curlOutput.MatchString(cmd) && len(x.answers) > 0 {
		return 0, nil, nil, errors.New("a curl example with documented answers must print its answer (no -o)")
	}
	for _, m := range curlUpload.FindAllStringSubmatch(cmd, -1) {
		content, ok := curlFiles[m[1]]
		if !ok {
			return 0, nil, nil, fmt.Errorf("the example uploads %s, which the test does not have: add it to curlFiles", m[1])
		}
		r.writeFile(m[1], content)
	}
	out, err := r.shell(cmd + " --silent --show-error -o answer.body -D answer.headers -w '%{http_code}'")
	if err != nil {
		return 0, nil, nil, fmt.Errorf("the curl example failed: %v\n%s", err, out)
	}
	status, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("curl printed no status: %q", out)
	}
	rawHeader, _ := os.ReadFile(filepath.Join(r.dir, "answer.headers"))
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(rawHeader)))
	var header textproto.MIMEHeader
	for {
		statusLine, err := tp.ReadLine()
		if err != nil {
			return 0, nil, nil, fmt.Errorf("curl wrote no answer headers: %q", rawHeader)
		}
		header, _ = tp.ReadMIMEHeader()
		if !strings.Contains(statusLine, " 100 ") { // not an interim 100 Continue
			break
		}
	}
	body, _ := os.ReadFile(filepath.Join(r.dir, "answer.body"))
	return status, http.Header(header), body, nil
}

// headerMismatch compares a header's values with the documented one,
// whose parts ("; "-separated, as in Set-Cookie) must each be in one value.
func headerMismatch(values []string, documented string) string {
	for _, v := range values {
		parts := strings.Split(v, "; ")
		all := true
		for _, want := range strings.Split(documented, "; ") {
			re := documentedText(want)
			all = all && slices.ContainsFunc(parts, re.MatchString)
		}
		if all {
			return ""
		}
	}
	return fmt.Sprintf("%q; the docs show %q", values, documented)
}

// elided stands for the documents' "..." in a JSON answer: more members of an
// object, or any number of elements of an array.
const elided = "\x00..."

// parseDocumentedJSON reads a documented JSON value, "..." included.
func parseDocumentedJSON(s string) (any, error) {
	var b strings.Builder
	var open []byte
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			b.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			open = append(open, c)
		case (c == '}' || c == ']') && len(open) > 0:
			open = open[:len(open)-1]
		case strings.HasPrefix(s[i:], "..."):
			if len(open) > 0 && open[len(open)-1] == '{' {
				b.WriteString(`"\u0000...":null`)
			} else {
				b.WriteString(`"\u0000..."`)
			}
			i += 2
			continue
		}
		b.WriteByte(c)
	}
	dec := json.NewDecoder(strings.NewReader(b.String()))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one value")
	}
	return v, nil
}

// compareDocumented compares a JSON output with a documented one.
func compareDocumented(documented, got string) []string {
	doc, err := parseDocumentedJSON(documented)
	if err != nil {
		return []string{fmt.Sprintf("the documented JSON cannot be read: %v", err)}
	}
	dec := json.NewDecoder(strings.NewReader(got))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []string{fmt.Sprintf("the output is not JSON: %v", err)}
	}
	return matchDocumented("output", doc, v)
}

// matchDocumented lists where got differs in shape from the documented
// value (path names the place, as in answer.files[0].errors[1].reason).
func matchDocumented(path string, doc, got any) []string {
	switch d := doc.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s is %s, the docs show an object", path, jsonType(got))}
		}
		var out []string
		_, more := d[elided]
		for _, k := range sortedKeys(d) {
			if k == elided {
				continue
			}
			if _, ok := g[k]; !ok {
				out = append(out, fmt.Sprintf("%s has no %q", path, k))
				continue
			}
			out = append(out, matchDocumented(path+"."+k, d[k], g[k])...)
		}
		for _, k := range sortedKeys(g) {
			if _, ok := d[k]; !ok && !more {
				out = append(out, fmt.Sprintf("%s has %q, which the docs do not show", path, k))
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s is %s, the docs show an array", path, jsonType(got))}
		}
		cut := slices.Index(d, any(elided))
		head, tail := d, []any(nil)
		if cut >= 0 {
			head, tail = d[:cut], d[cut+1:]
		}
		if len(g) < len(head)+len(tail) || cut < 0 && len(g) != len(d) {
			return []string{fmt.Sprintf("%s has %d elements, the docs show %d", path, len(g), len(d))}
		}
		var out []string
		for i, e := range head {
			out = append(out, matchDocumented(fmt.Sprintf("%s[%d]", path, i), e, g[i])...)
		}
		for i, e := range tail {
			j := len(g) - len(tail) + i
			out = append(out, matchDocumented(fmt.Sprintf("%s[%d]", path, j), e, g[j])...)
		}
		return out
	case string:
		g, ok := got.(string)
		if !ok || !documentedText(d).MatchString(g) {
			return []string{fmt.Sprintf("%s is %s, the docs show %q", path, jsonString(got), d)}
		}
	case json.Number:
		if _, ok := got.(json.Number); !ok {
			return []string{fmt.Sprintf("%s is %s, the docs show a number", path, jsonString(got))}
		}
	default: // true, false, null
		if got != doc {
			return []string{fmt.Sprintf("%s is %s, the docs show %v", path, jsonString(got), doc)}
		}
	}
	return nil
}

var (
	textPlaceholder = regexp.MustCompile(`\.\.\.|<(\d+) hex>|<(\d+) characters>|<[^<>]+>|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z|\d+`)
	relativeTime    = regexp.MustCompile(`^\d+ [a-z]+ ago$`)
)

// documentedText is the pattern a documented text stands for: itself,
// except that "..." and <placeholders> stand for any text (<64 hex> and
// <43 characters> for as many), timestamps for any timestamp, numbers for
// any number, and "4 days ago" for any relative time.
func documentedText(doc string) *regexp.Regexp {
	if relativeTime.MatchString(doc) {
		return regexp.MustCompile(`^(\d+ [a-z]+ ago|just now)$`)
	}
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, m := range textPlaceholder.FindAllStringSubmatchIndex(doc, -1) {
		b.WriteString(regexp.QuoteMeta(doc[last:m[0]]))
		token := doc[m[0]:m[1]]
		switch {
		case token == "...":
			b.WriteString(".*")
		case m[2] >= 0:
			b.WriteString("[0-9a-f]{" + doc[m[2]:m[3]] + "}")
		case m[4] >= 0:
			b.WriteString(".{" + doc[m[4]:m[5]] + "}")
		case token[0] == '<':
			b.WriteString(".+")
		case strings.Contains(token, "T"):
			b.WriteString(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)`)
		default:
			b.WriteString(`\d+`)
		}
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(doc[last:]) + "$")
	return regexp.MustCompile(b.String())
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestREADMEAnswerShapes: how TestREADME compares an answer with the one
// the docs show, one row per rule.
func TestREADMEAnswerShapes(t *testing.T) {
	for _, c := range []struct {
		name, documented, got string
		match                 bool
	}{
		{"same keys and texts", `{"status":"Success","result":"contact.result.sent"}`, `{"status":"Success","result":"contact.result.sent"}`, true},
		{"another text", `{"result":"contact.result.sent"}`, `{"result":"contact.sent"}`, false},
		{"a key more", `{"status":"ok"}`, `{"status":"ok","extra":1}`, false},
		{"a key more where ... stands for more", `{"error":"no", ...}`, `{"error":"no","message":"x"}`, true},
		{"a key less", `{"status":"ok","id":1}`, `{"status":"ok"}`, false},
		{"numbers by type", `{"members":0}`, `{"members":12}`, true},
		{"a number as text", `{"members":0}`, `{"members":"12"}`, false},
		{"digits in a text", `{"error":"no news item 999"}`, `{"error":"no news item 5"}`, true},
		{"booleans exactly", `{"created":true}`, `{"created":false}`, false},
		{"a text cut with ...", `{"logo":"image/png:iVBORw0..."}`, `{"logo":"image/png:iVBORw0KGgoAAA"}`, true},
		{"a text cut with ..., another start", `{"logo":"image/png:iVBORw0..."}`, `{"logo":"image/gif:R0lGOD"}`, false},
		{"<64 hex>", `{"challenge":"<64 hex>"}`, `{"challenge":"` + strings.Repeat("ab", 32) + `"}`, true},
		{"<64 hex>, too short", `{"challenge":"<64 hex>"}`, `{"challenge":"abab"}`, false},
		{"<43 characters>", `{"token":"<43 characters>"}`, `{"token":"` + strings.Repeat("x", 43) + `"}`, true},
		{"timestamps", `{"postedAt":"2026-11-18T04:00:00Z"}`, `{"postedAt":"2027-01-02T10:11:12.345Z"}`, true},
		{"not a timestamp", `{"postedAt":"2026-11-18T04:00:00Z"}`, `{"postedAt":"yesterday"}`, false},
		{"relative times", `{"timeAgo":"4 days ago"}`, `{"timeAgo":"1 month ago"}`, true},
		{"arrays element by element", `[{"key":"IN"},{"key":"AF"}]`, `[{"key":"IN"},{"key":"AF"}]`, true},
		{"an element more", `[{"key":"IN"}]`, `[{"key":"IN"},{"key":"AF"}]`, false},
		{"an empty array", `[]`, `[{"key":"AF"}]`, false},
		{"... between the first and the last", `[{"key":"AP"}, ... ,{"key":"PY"}]`, `[{"key":"AP"},{"key":"BR"},{"key":"DL"},{"key":"PY"}]`, true},
		{"... and another last", `[{"key":"AP"}, ... ,{"key":"PY"}]`, `[{"key":"AP"},{"key":"BR"}]`, false},
		{"... after the first", `[{"key":"IN"}, ...]`, `[{"key":"IN"},{"key":"AF"}]`, true},
		{"true as JSON", `true`, `true`, true},
		{"an object for an array", `[]`, `{}`, false},
	} {
		problems := compareDocumented(c.documented, c.got)
		if (len(problems) == 0) != c.match {
			t.Errorf("%s: documented %s, answer %s: problems %q, want match %v", c.name, c.documented, c.got, problems, c.match)
		}
	}
}

// TestREADMEExamplesAreRead: the notation of the API guide's examples,
// read as requests and answers.
func TestREADMEExamplesAreRead(t *testing.T) {
	b := codeBlock{start: 10, lines: []string{
		`POST /api/email/uniqueness     Content-Type: application/vnd.freightsite.v1+json`,
		`                               X-Requested-With: XMLHttpRequest    X-XSRF-TOKEN: $TOKEN`,
		`{"email":"ravi@example.in",`,
		` "name":"Ravi"}`,
		`200 application/vnd.freightsite.v1+json   true`,
		`429 {"success":false}  Retry-After: 900`,
		``,
		`GET /api/news/1       200 {same fields for one item}`,
		`GET /api/news?search=x`,
		`200 [{"id":1,`,
		`      "title":"x"}]`,
		`POST /api/forgot_password      {"loginId":"a@b.in"}`,
		`200 {"status":"success"}        (a comment)`,
		`curl -b jar -F name='Sunita Rao' \`,
		`     localhost:8080/api/error_feedback`,
		`200 {"status":"success"}`,
		`this line is nothing`,
	}}
	xs, problems := parseExchanges(b)
	if len(xs) != 5 {
		t.Fatalf("%d exchanges, want 5: %+v", len(xs), xs)
	}
	if x := xs[0]; x.line != 10 || x.method != "POST" || x.path != "/api/email/uniqueness" || len(x.header) != 3 || x.header[2] != [2]string{"X-XSRF-TOKEN", "$TOKEN"} ||
		strings.Join(x.body, "\n") != "{\"email\":\"ravi@example.in\",\n \"name\":\"Ravi\"}" || len(x.answers) != 2 ||
		x.answers[0].media != "application/vnd.freightsite.v1+json" || x.answers[0].body != "true" || x.answers[1].header[0] != [2]string{"Retry-After", "900"} {
		t.Errorf("uniqueness: %+v, answers %+v %+v", x, x.answers[0], x.answers[1])
	}
	if x := xs[1]; x.path != "/api/news/1" || len(x.answers) != 1 || x.answers[0].line != 17 || x.answers[0].body != "{same fields for one item}" {
		t.Errorf("answer on the request line: %+v", x)
	}
	if a := xs[2].answers[0]; a.body != "[{\"id\":1,\n\"title\":\"x\"}]" {
		t.Errorf("an answer going on: %q", a.body)
	}
	if x := xs[3]; x.body[0] != `{"loginId":"a@b.in"}` || x.answers[0].body != `{"status":"success"}` {
		t.Errorf("a body on the request line: %+v", x)
	}
	if x := xs[4]; !strings.HasSuffix(x.curl, "localhost:8080/api/error_feedback") || len(x.answers) != 1 {
		t.Errorf("curl: %+v", x)
	}
	if len(problems) != 1 || problems[0].line != 26 {
		t.Errorf("problems %+v, want one at line 26", problems)
	}
}
