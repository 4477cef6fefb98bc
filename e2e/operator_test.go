package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// server is a freightsite serve or api process of a test.
type server struct {
	cmd            *exec.Cmd
	stdout, stderr output
}

// output is a file a process writes to; a test reads it whole.
type output struct{ f *os.File }

func (o output) String() string { return string(must(os.ReadFile(o.f.Name()))) }

func startProcess(t *testing.T, env []string, args ...string) *server {
	t.Helper()
	s := &server{cmd: exec.Command(binary, args...)}
	s.cmd.Env = append(os.Environ(), env...)
	dir := t.TempDir()
	s.stdout.f, s.stderr.f = must(os.Create(filepath.Join(dir, "stdout"))), must(os.Create(filepath.Join(dir, "stderr")))
	s.cmd.Stdout, s.cmd.Stderr = s.stdout.f, s.stderr.f
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	return s
}

// stop sends SIGTERM and expects exit status 0.
func (s *server) stop(t *testing.T) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v\n%s", err, s.stderr.String())
	}
}

// tool is the path of a program an operator's step needs; missing, the
// test fails when CI is set and is skipped otherwise.
func tool(t *testing.T, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing and CI is set (%s)", name, install)
		}
		t.Skipf("%s is missing (%s)", name, install)
	}
	return path
}

// TestLocalhostLinksAreRefusedWhereOthersCanReach: the default base URL
// is http://localhost:8080, so a site served on an address other
// machines reach would publish links to nowhere; serve refuses unless
// told otherwise, and says how to build it right.
func TestLocalhostLinksAreRefusedWhereOthersCanReach(t *testing.T) {
	dist := filepath.Join(work, "dist") // built with the default base URL
	out, err := exec.Command(binary, "serve", "--addr", "0.0.0.0:0", "--dist", dist, "--db", filepath.Join(t.TempDir(), "s.db")).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "freightsite build --base-url") {
		t.Errorf("serve on 0.0.0.0 with pages built for localhost: %v\n%s", err, out)
	}

	addr := freeAddr(t)
	public := strings.Replace(addr, "127.0.0.1", "0.0.0.0", 1)
	s := startProcess(t, nil, "serve", "--addr", public, "--dist", dist, "--db", filepath.Join(t.TempDir(), "s.db"), "--allow-local-base-url")
	waitHealthy(t, "http://"+addr+"/healthz")
	s.stop(t)
	if log := s.stderr.String(); !strings.Contains(log, "serving links to localhost") {
		t.Errorf("--allow-local-base-url serves without a warning:\n%s", log)
	}
}

// TestPlaceholdersAreNamedWhereOthersCanReach: on an address others
// reach, serve and api warn about every placeholder still in use (the
// example provider e-mail receives every notification); a value set by
// the environment at run time replaces it without a rebuild. The startup
// line goes to standard error with the version.
func TestPlaceholdersAreNamedWhereOthersCanReach(t *testing.T) {
	run := func(env ...string) string {
		addr := freeAddr(t)
		s := startProcess(t, env, "api", "--addr", strings.Replace(addr, "127.0.0.1", "0.0.0.0", 1), "--db", filepath.Join(t.TempDir(), "a.db"), "--base-url", "https://freight.co.in")
		waitHealthy(t, "http://"+addr+"/healthz")
		s.stop(t)
		if s.stdout.String() != "" {
			t.Errorf("api wrote to standard output: %q", s.stdout.String())
		}
		return s.stderr.String()
	}
	log := run()
	if !strings.Contains(log, "placeholder") || !strings.Contains(log, "provider.email support@bharatfreight.example") {
		t.Errorf("no warning about the example provider e-mail:\n%s", log)
	}
	if !strings.Contains(log, `msg=serving url=http://localhost:`) || !strings.Contains(log, "version=") {
		t.Errorf("no startup line with the version on standard error:\n%s", log)
	}
	if log := run("FREIGHTSITE_PROVIDER_EMAIL=office@freight.co.in"); strings.Contains(log, "placeholder") {
		t.Errorf("a real provider e-mail from the environment still warns:\n%s", log)
	}
}

// TestSIGHUPReopensTheLogFile: logrotate renames the file and sends
// SIGHUP; the server keeps running, writes what it held to the old file
// and new lines to a new one, and loses none.
func TestSIGHUPReopensTheLogFile(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "api.log")
	addr := freeAddr(t)
	s := startProcess(t, nil, "api", "--addr", addr, "--db", filepath.Join(dir, "a.db"), "--log-file", logFile)
	waitHealthy(t, "http://"+addr+"/healthz")
	requests := func(path string, n int) {
		for range n {
			resp, err := http.Get("http://" + addr + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
	}
	requests("/countries", 30)
	if err := os.Rename(logFile, logFile+".1"); err != nil {
		t.Fatal(err)
	}
	s.cmd.Process.Signal(syscall.SIGHUP)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(logFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no new log file after SIGHUP")
		}
		time.Sleep(20 * time.Millisecond)
	}
	requests("/states", 20)
	s.stop(t)
	rotated, fresh := string(must(os.ReadFile(logFile+".1"))), string(must(os.ReadFile(logFile)))
	// A request's line is written once its handler returns, which may be
	// just after the client has the whole answer: the last earlier lines
	// may land in either file, but every one in one of them.
	if n, m := strings.Count(rotated, "path=/countries"), strings.Count(fresh, "path=/countries"); n == 0 || n+m != 30 || strings.Contains(rotated, "path=/states") {
		t.Errorf("the rotated file holds %d and the new one %d of 30 earlier request lines; later ones in the rotated file: %v", n, m, strings.Contains(rotated, "path=/states"))
	}
	if n := strings.Count(fresh, "path=/states"); n != 20 || !strings.Contains(fresh, "log file reopened") {
		t.Errorf("the new file holds %d of 20 later request lines:\n%s", n, fresh)
	}

	// Logging to standard error, SIGHUP writes out the held lines and
	// the server goes on.
	addr = freeAddr(t)
	s = startProcess(t, nil, "api", "--addr", addr, "--db", filepath.Join(dir, "b.db"))
	waitHealthy(t, "http://"+addr+"/healthz")
	requests("/countries", 1)
	s.cmd.Process.Signal(syscall.SIGHUP)
	// The signal is handled in a goroutine of its own: wait for it, or the
	// SIGTERM below may come first (it did once in CI, on a busy machine).
	deadline = time.Now().Add(10 * time.Second)
	for !strings.Contains(s.stderr.String(), "nothing to reopen") {
		if time.Now().After(deadline) {
			t.Fatalf("SIGHUP on standard error: no word of it within 10 s:\n%s", s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	requests("/countries", 1)
	s.stop(t)
	if log := s.stderr.String(); strings.Count(log, "path=/countries") != 2 || !strings.Contains(log, "nothing to reopen") {
		t.Errorf("after SIGHUP on standard error:\n%s", log)
	}
}

// TestSystemdUnits checks deploy/'s socket and service units with
// systemd's own verifier (the binary's path set to this test's), and the
// service's hardening with systemd-analyze security: its exposure (0 to
// 10) stays at most 2, "OK".
func TestSystemdUnits(t *testing.T) {
	verify := tool(t, "systemd-analyze", "apt-get install -y systemd")
	dir := t.TempDir()
	write(t, filepath.Join(dir, "freightsite-api.socket"), string(must(os.ReadFile(filepath.Join(root, "deploy", "freightsite-api.socket")))))
	write(t, filepath.Join(dir, "freightsite-api.service"), rewrite(t, filepath.Join(root, "deploy", "freightsite-api.service"), map[string]string{
		"/usr/local/bin/freightsite":               binary,
		"EnvironmentFile=/etc/freightsite/api.env": "EnvironmentFile=-" + filepath.Join(dir, "api.env"),
	}))
	out, err := exec.Command(verify, "verify", filepath.Join(dir, "freightsite-api.socket"), filepath.Join(dir, "freightsite-api.service")).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err = exec.Command(verify, "security", "--offline=true", "--threshold=20", filepath.Join(dir, "freightsite-api.service")).CombinedOutput()
	exposure := regexp.MustCompile(`Overall exposure level for freightsite-api.service: (\d+\.\d)`).FindSubmatch(out)
	if err != nil || exposure == nil {
		t.Errorf("systemd-analyze security: %v\n%s", err, out)
	}
	unit := string(must(os.ReadFile(filepath.Join(dir, "freightsite-api.service"))))
	for _, want := range []string{"DynamicUser=yes", "ProtectSystem=strict", "StateDirectory=freightsite", "NoNewPrivileges=yes", "Restart=on-failure"} {
		if !strings.Contains(unit, "\n"+want+"\n") {
			t.Errorf("the service lacks %s", want)
		}
	}
	// A flag on the command line wins over FREIGHTSITE_<FLAG>: ExecStart
	// must leave every setting docs/operations.md puts in api.env to it.
	for _, flag := range []string{"--db", "--base-url", "--provider-email", "--smtp-url"} {
		if start := regexp.MustCompile(`(?m)^ExecStart=.*$`).FindString(unit); strings.Contains(start, flag) {
			t.Errorf("%s sets %s, so api.env's FREIGHTSITE_ variable for it would be ignored", start, flag)
		}
	}
}

// TestBackupOfALiveDatabase runs the backup line of docs/operations.md
// (Running in production, step 7) while the API
// stores contact posts: the copy passes the integrity check, holds every
// post acknowledged before the backup started and is readable by its
// owner only.
func TestBackupOfALiveDatabase(t *testing.T) {
	readme := string(must(os.ReadFile(filepath.Join(root, "docs", "operations.md"))))
	command := regexp.MustCompile(`freightsite db backup (.+?) --db (\S+)`).FindStringSubmatch(readme)
	if command == nil {
		t.Fatal("docs/operations.md's backup command is gone: update this test")
	}
	dir := t.TempDir()
	db, backup := filepath.Join(dir, "live.db"), filepath.Join(dir, "backup.db")
	addr := freeAddr(t)
	s := startProcess(t, nil, "api", "--addr", addr, "--db", db, "--rate-limit", "contact=off")
	waitHealthy(t, "http://"+addr+"/healthz")
	token := xsrfToken(t, "http://"+addr)
	var acked atomic.Int64 // posts 0 to acked-1 were acknowledged
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			resp, err := http.DefaultClient.Do(contactRequest("http://"+addr, token, "backup "+strconv.Itoa(i)))
			if err != nil || resp.StatusCode != http.StatusOK {
				done <- fmt.Errorf("post %d: %v %v", i, resp, err)
				return
			}
			resp.Body.Close()
			acked.Store(int64(i + 1))
		}
	}()
	for acked.Load() < 20 {
		time.Sleep(10 * time.Millisecond)
	}
	before := int(acked.Load())
	args := strings.Fields(strings.NewReplacer(command[1], backup, command[2], db).Replace(command[0]))[1:]
	out, err := exec.Command(binary, args...).CombinedOutput()
	close(stop)
	if err := <-done; err != nil {
		t.Error(err)
	}
	if err != nil || !strings.Contains(string(out), "integrity check: ok") {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	s.stop(t)
	stored := storedSubjects(t, backup)
	for i := range before {
		if stored["backup "+strconv.Itoa(i)] != 1 {
			t.Errorf("the backup lacks acknowledged message %d", i)
		}
	}
	if info, err := os.Stat(backup); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the backup's mode: %v %v, want 0600", info.Mode().Perm(), err)
	}
}

// TestMetricsAddr: `api --metrics-addr` serves the metrics on their own
// address, where a scrape shows the requests just made; the public
// address has no /metrics.
func TestMetricsAddr(t *testing.T) {
	addr, metrics := freeAddr(t), freeAddr(t)
	s := startProcess(t, nil, "api", "--addr", addr, "--db", filepath.Join(t.TempDir(), "m.db"), "--metrics-addr", metrics)
	waitHealthy(t, "http://"+addr+"/healthz")
	for range 3 {
		resp, err := http.Get("http://" + addr + "/countries")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	// A request is counted when its handler returns, which may be just
	// after the client has the whole answer: scrape until the last one is.
	want := `freightsite_http_requests_total{method="GET",route="/countries",status="200"} 3`
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + metrics + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body := string(must(io.ReadAll(resp.Body)))
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && strings.Contains(body, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /metrics: %d, lacks %s:\n%.2000s", resp.StatusCode, want, body)
		}
	}
	if resp, err := http.Get("http://" + addr + "/metrics"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics on the public address: %v %v, want 404", resp, err)
	}
	s.stop(t)
}
