package e2e

import (
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"freightsite/internal/pgtest"
)

// smtpSink is a real SMTP server on loopback that counts the contact
// notifications it receives by their subject line.
type smtpSink struct {
	addr string
	mu   sync.Mutex
	got  map[string]int
}

func startSMTPSink(t *testing.T) *smtpSink {
	t.Helper()
	s := &smtpSink{got: map[string]int{}}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &sinkSession{s}, nil }))
	srv.Domain = "localhost"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

type sinkSession struct{ sink *smtpSink }

func (s *sinkSession) Reset()                               {}
func (s *sinkSession) Logout() error                        { return nil }
func (s *sinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *sinkSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *sinkSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.sink.mu.Lock()
	defer s.sink.mu.Unlock()
	for line := range strings.SplitSeq(string(b), "\n") {
		if subject, ok := strings.CutPrefix(strings.TrimSpace(line), "Subject: Contact form: "); ok {
			s.sink.got[subject]++
		}
	}
	return nil
}

func (s *smtpSink) count(subject string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got[subject]
}

// startPgAPI runs one `freightsite api` process on the PostgreSQL
// database, with the contact rate limit off and extra flags.
func startPgAPI(t *testing.T, db, smtpAddr, logFile string, extra ...string) (*exec.Cmd, string) {
	t.Helper()
	addr := freeAddr(t)
	out, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	cmd := exec.Command(binary, append([]string{"api", "--addr", addr, "--db", db, "--rate-limit", "contact=off", "--smtp-url", "smtp://" + smtpAddr}, extra...)...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	waitHealthy(t, "http://"+addr+"/healthz")
	return cmd, "http://" + addr
}

// TestTwoAPIInstancesOnPostgreSQL runs two `freightsite api` processes on
// one PostgreSQL database (a throwaway cluster) with a real SMTP server on
// loopback. Under contact load through both, each notification reaches
// the SMTP server exactly once, whichever instance's sender took it. Then,
// on a fresh database, one of two instances is killed with SIGKILL under
// load through both: every post either acknowledged is stored exactly
// once, with its notification queued in the same transaction.
func TestTwoAPIInstancesOnPostgreSQL(t *testing.T) {
	cluster, err := pgtest.Start(pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Stop()
	sink := startSMTPSink(t)
	dir := t.TempDir()
	open := func() (string, *sql.DB) {
		db, err := cluster.NewDatabase(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		conn, err := sql.Open("pgx", db)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return db, conn
	}
	count := func(conn *sql.DB, query string) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Mail: both senders deliver while both instances take posts.
	db, conn := open()
	_, a := startPgAPI(t, db, sink.addr, filepath.Join(dir, "mail-a.log"))
	_, b := startPgAPI(t, db, sink.addr, filepath.Join(dir, "mail-b.log"))
	loadA, loadB := startContactLoad(t, a, 8), startContactLoad(t, b, 8)
	loadA.waitAcked(t, 25)
	loadB.waitAcked(t, 25)
	loadA.finish()
	loadB.finish()
	acked := append(loadA.acked, loadB.acked...)
	unsent := `SELECT COUNT(*) FROM outbox WHERE state != 'sent'`
	for deadline := time.Now().Add(30 * time.Second); count(conn, unsent) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d notifications not sent after 30 s", count(conn, unsent))
		}
	}
	// Both loads number their posts alike ("load C-I"): a subject
	// acknowledged through both instances has two notifications.
	ackedN := map[string]int{}
	for _, s := range acked {
		ackedN[s]++
	}
	for s, n := range ackedN {
		if got := sink.count(s); got != n {
			t.Errorf("%q was acknowledged %d times; its notification reached the SMTP server %d times", s, n, got)
		}
	}
	t.Logf("%d posts through two instances, each notification delivered once", len(acked))

	// SIGKILL of one of two instances under load through both.
	db, conn = open()
	first, a := startPgAPI(t, db, sink.addr, filepath.Join(dir, "kill-a.log"))
	_, b = startPgAPI(t, db, sink.addr, filepath.Join(dir, "kill-b.log"))
	loadA, loadB = startContactLoad(t, a, 10), startContactLoad(t, b, 10)
	loadA.waitAcked(t, 20)
	loadB.waitAcked(t, 20)
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	// The other instance goes on taking posts.
	loadB.waitAcked(t, loadB.ackedCount()+20)
	loadA.finish()
	loadB.finish()
	stored := map[string]int{}
	rows, err := conn.Query(`SELECT subject FROM contact_messages`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		stored[s]++
	}
	rows.Close()
	if m, n := count(conn, `SELECT COUNT(*) FROM contact_messages`), count(conn, `SELECT COUNT(*) FROM outbox WHERE subject LIKE 'Contact form: %'`); m != n {
		t.Errorf("%d messages but %d notifications: a write was half done", m, n)
	}
	// A subject is posted up to twice (as above): it must be stored once for each acknowledgement,
	// and at most once more for each post that got no answer.
	ackedN = map[string]int{}
	unanswered := map[string]int{}
	for _, l := range []*contactLoad{loadA, loadB} {
		for _, s := range l.acked {
			ackedN[s]++
		}
		for s := range l.failed {
			unanswered[s]++
		}
	}
	for s, n := range ackedN {
		if stored[s] < n {
			t.Errorf("%q was acknowledged %d times but is stored %d times", s, n, stored[s])
		}
	}
	for s, n := range stored {
		if n > ackedN[s]+unanswered[s] {
			t.Errorf("%q is stored %d times: acknowledged %d times, %d posts unanswered", s, n, ackedN[s], unanswered[s])
		}
	}
	t.Logf("%d acknowledged by the killed instance, %d by the other; %d messages stored", len(loadA.acked), len(loadB.acked), len(stored))
}

// TestTwoAPIInstancesBehindNginx runs deploy/nginx.conf for real (as
// TestNginx installs it) with its upstream's two servers on two `freightsite
// api` processes sharing one PostgreSQL database, and the requests going
// round-robin between them: a member registered and signed in through one
// is signed in on both; failed sign-ins through both lock the address out
// at the limit; a captcha solution is good once, whichever instance gets it.
func TestTwoAPIInstancesBehindNginx(t *testing.T) {
	nginx := tool(t, "nginx", "apt-get install -y nginx")
	cluster, err := pgtest.Start(pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Stop()
	db, err := cluster.NewDatabase(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	n := installNginx(t, nginx)
	sink := startSMTPSink(t)
	flags := []string{"--trusted-proxy", "127.0.0.1", "--captcha-max-number", "2000", "--base-url", "https://" + siteHost}
	logs := []string{filepath.Join(n.dir, "api-1.log"), filepath.Join(n.dir, "api-2.log")}
	_, first := startPgAPI(t, db, sink.addr, logs[0], flags...)
	_, second := startPgAPI(t, db, sink.addr, logs[1], flags...)
	site := string(must(os.ReadFile(n.site)))
	for range 2 { // each upstream: the first server line, then the second
		site = strings.Replace(site, "server API_ADDR ", "server "+strings.TrimPrefix(first, "http://")+" ", 1)
		site = strings.Replace(site, "server API_ADDR ", "server "+strings.TrimPrefix(second, "http://")+" ", 1)
	}
	write(t, n.site, site)
	n.start(t, "")

	c := n.client(true)
	token := n.xsrfToken(t, c)
	send := func(method, path, contentType, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, n.url(path), strings.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		req.Header.Set("X-XSRF-TOKEN", token)
		req.Header.Set("X-Requested-With", "XMLHttpRequest")
		return do(t, c, req)
	}
	solve := func() string {
		t.Helper()
		_, body := send(http.MethodGet, "/api/captcha/challenge", "", "")
		var ch struct {
			Algorithm, Challenge, Salt, Signature string
			MaxNumber                             int `json:"maxnumber"`
		}
		if err := json.Unmarshal([]byte(body), &ch); err != nil {
			t.Fatalf("captcha challenge %q: %v", body, err)
		}
		for i := 0; i <= ch.MaxNumber; i++ {
			if sum := sha256.Sum256([]byte(ch.Salt + strconv.Itoa(i))); hex.EncodeToString(sum[:]) == ch.Challenge {
				raw, _ := json.Marshal(map[string]any{"algorithm": ch.Algorithm, "challenge": ch.Challenge, "number": i, "salt": ch.Salt, "signature": ch.Signature, "took": 12})
				return base64.StdEncoding.EncodeToString(raw)
			}
		}
		t.Fatalf("no solution for %+v", ch)
		return ""
	}
	register := func(email, captcha string) (*http.Response, string) {
		t.Helper()
		body, _ := json.Marshal(map[string]string{
			"companyName": "Sahyadri Roadlines", "contactName": "Meera Joshi", "contactEmail": "office@sahyadri.example",
			"address1": "Plot 7, MIDC Bhosari", "address2": "", "city": "Pune", "state": "MH", "postalCode": "411026", "country": "IN",
			"contactPhone": "(20) 2712-3456", "contactFax": "", "email": email, "firstName": "Meera", "lastName": "Joshi",
			"newPassword": "Truck@2024", "confirmPassword": "Truck@2024", "preferredLanguage": "en", "recaptchaResponse": captcha,
		})
		return send(http.MethodPost, "/api/registration", "application/json", string(body))
	}
	signIn := func(user, password string) (*http.Response, string) {
		t.Helper()
		return send(http.MethodPost, "/auth", "application/x-www-form-urlencoded", url.Values{"username": {user}, "password": {password}, "rememberMe": {"off"}}.Encode())
	}

	// A solution is good once, whichever instance gets it.
	solution := solve()
	if resp, body := register("meera@sahyadri.example", solution); resp.StatusCode != http.StatusOK {
		t.Fatalf("registration: %d %s", resp.StatusCode, body)
	}
	for i := range 2 { // round-robin: one of the two replays reaches the other instance
		if resp, body := register(fmt.Sprintf("replay%d@sahyadri.example", i), solution); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "captcha.refused") {
			t.Errorf("the spent solution replayed (%d): %d %s", i, resp.StatusCode, body)
		}
	}

	// A session made through one instance works through both.
	if resp, body := signIn("meera@sahyadri.example", "Truck@2024"); resp.StatusCode != http.StatusOK || !strings.Contains(body, "true") {
		t.Fatalf("sign-in: %d %s", resp.StatusCode, body)
	}
	for i := range 4 {
		if resp, body := send(http.MethodGet, "/secure/entry", "", ""); resp.StatusCode != http.StatusOK || !strings.Contains(body, "meera@sahyadri.example") {
			t.Errorf("members' page %d after sign-in: %d", i, resp.StatusCode)
		}
	}

	// Failed sign-ins spread over both instances lock at the limit.
	for i := range 5 {
		if resp, body := signIn("ghost@sahyadri.example", "guess"+strconv.Itoa(i)); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d %s", i, resp.StatusCode, body)
		}
	}
	if resp, body := signIn("ghost@sahyadri.example", "guess"); resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "LOGIN.LOCKED") {
		t.Errorf("after 5 failures through both instances: %d %s, want 429 LOGIN.LOCKED", resp.StatusCode, body)
	}

	// Both instances took part in each of the above (their request lines
	// are written within 200 ms).
	for i, log := range logs {
		for _, want := range []string{"path=/api/registration status=400", "path=/secure/entry status=200", "path=/auth status=401"} {
			for deadline := time.Now().Add(5 * time.Second); !strings.Contains(string(must(os.ReadFile(log))), want); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Errorf("instance %d answered no %q: the upstream did not share the requests", i+1, want)
					break
				}
			}
		}
	}
}

// TestPostgreSQLBackupAsDocumented runs the PostgreSQL blocks of
// docs/operations.md's step 7 (the password file, the daily backup
// script, the test restore into a scratch database, the restore in
// place) with bash against a throwaway cluster whose freightsite role
// must give its password (scram-sha-256), in a session with no terminal,
// as cron runs it: the dump is taken without a prompt and readable by
// its owner only, the test restore lists the news the database held, and
// the restore in place brings back the database as dumped. pgx reads the
// same password file for a URL without a password.
func TestPostgreSQLBackupAsDocumented(t *testing.T) {
	tool(t, "pg_dump", "apt-get install -y postgresql")
	cluster, err := pgtest.Start(pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Stop()
	u, _ := url.Parse(cluster.URL("postgres"))
	port := u.Port()
	admin, err := sql.Open("pgx", cluster.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	const password = "Backup-Pw-1"
	for _, q := range []string{
		`CREATE ROLE freightsite LOGIN PASSWORD '` + password + `'`,
		`CREATE DATABASE freightsite OWNER freightsite ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0`,
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// The role gives its password over TCP, as on a real server.
	var hba string
	if err := admin.QueryRow(`SHOW hba_file`).Scan(&hba); err != nil {
		t.Fatal(err)
	}
	write(t, hba, "host all freightsite 127.0.0.1/32 scram-sha-256\n"+string(must(os.ReadFile(hba))))
	if _, err := admin.Exec(`SELECT pg_reload_conf()`); err != nil {
		t.Fatal(err)
	}
	nopw := "postgresql://freightsite@127.0.0.1:" + port + "/freightsite?sslmode=disable"
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if out, err := exec.Command(binary, "news", "list", "--db", nopw).CombinedOutput(); err != nil && strings.Contains(string(out), "password") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cluster does not ask the freightsite role for its password")
		}
	}
	withPW := "postgresql://freightsite:" + password + "@127.0.0.1:" + port + "/freightsite?sslmode=disable"
	want := string(must(exec.Command(binary, "news", "list", "--db", withPW).Output())) // migrates, seeds the news
	if strings.Count(want, "\n") < 3 {
		t.Fatalf("news list of the new database:\n%s", want)
	}

	// The blocks, in the document's order.
	var blocks [][]string
	for _, b := range readDoc(t, "docs/operations.md").blocks {
		if b.heading == "7. Backups" && b.lang == "sh" && strings.Contains(strings.Join(b.lines, "\n"), "pg") {
			blocks = append(blocks, b.lines)
		}
	}
	if len(blocks) != 4 {
		t.Fatalf("docs/operations.md's step 7 has %d PostgreSQL blocks, want 4 (password file, backup, test restore, restore): update this test", len(blocks))
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	os.MkdirAll(filepath.Join(dir, "etc"), 0o755)
	os.MkdirAll(filepath.Join(dir, "backups"), 0o755)
	// `sudo -u postgres` lines run as the postgres user when this test is
	// root (runuser), which may read no file of root's: the dump and
	// the password file are root's alone, as on a server. Otherwise the
	// cluster is this user's own.
	asPostgres := ""
	if os.Geteuid() == 0 {
		asPostgres = "runuser -u postgres -- "
		write(t, filepath.Join(bin, "freightsite"), string(must(os.ReadFile(binary))))
		os.Chmod(filepath.Join(bin, "freightsite"), 0o755)
		os.Chmod(dir, 0o711)
		os.Chmod(filepath.Dir(dir), 0o711)
	} else {
		os.Symlink(binary, filepath.Join(bin, "freightsite"))
	}
	dump := ""
	run := func(lines []string) string {
		t.Helper()
		var script []string
		for _, l := range lines {
			if strings.HasPrefix(l, "systemctl ") {
				continue // the instances: none run here
			}
			script = append(script, strings.NewReplacer(
				"/etc/freightsite/", filepath.Join(dir, "etc")+"/",
				"/var/backups/freightsite-2026-11-23.dump", dump,
				"/var/backups/", filepath.Join(dir, "backups")+"/",
				"db.internal:5432", "127.0.0.1:"+port,
				"@db.internal/", "@127.0.0.1:"+port+"/",
				":PASSWORD", ":"+password,
				"sudo -u postgres ", asPostgres, // the cluster's superuser, over TCP (PGUSER below)
			).Replace(l))
		}
		cmd := exec.Command("bash", "-e", "-c", strings.Join(script, "\n"))
		cmd.Env = []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + dir, "PGHOST=127.0.0.1", "PGPORT=" + port, "PGUSER=postgres", "PGSSLMODE=disable"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal: a prompt would fail
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s\n%s", err, strings.Join(script, "\n"), out)
		}
		return string(out)
	}

	run(blocks[0])
	if info, err := os.Stat(filepath.Join(dir, "etc", "pgpass")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the password file: %v, want mode 0600", err)
	}
	run(blocks[1])
	dumps, _ := filepath.Glob(filepath.Join(dir, "backups", "freightsite-*.dump"))
	if len(dumps) != 1 {
		t.Fatalf("the backup wrote %v", dumps)
	}
	dump = dumps[0]
	if info, _ := os.Stat(dump); info.Mode().Perm() != 0o600 {
		t.Errorf("the dump's mode is %v, want 0600", info.Mode().Perm())
	}
	// pgx finds the password in the same file.
	env := append(os.Environ(), "PGPASSFILE="+filepath.Join(dir, "etc", "pgpass"))
	cmd := exec.Command(binary, "news", "add", "--title", "After the backup", "--content", "Not in the dump.", "--db", nopw)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("news add with the password from PGPASSFILE: %v\n%s", err, out)
	}
	if out := run(blocks[2]); !strings.Contains(out, want) {
		t.Errorf("the test restore lists:\n%s\nwant the news of the dump:\n%s", out, want)
	}
	run(blocks[3])
	if got := string(must(exec.Command(binary, "news", "list", "--db", withPW).Output())); got != want {
		t.Errorf("after the restore in place the database lists:\n%s\nwant the news of the dump:\n%s", got, want)
	}
}
