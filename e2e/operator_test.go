package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
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

// TestSystemdUnits checks deploy/'s template units (socket and service,
// instances 1 and 2) with systemd's own verifier (the binary's path set
// to this test's), and the service's hardening with systemd-analyze
// security: its exposure (0 to 10) stays at most 2, "OK". Each instance
// listens on the address of its line of deploy/nginx.conf's upstream and
// serves its metrics on an address of its own; started as systemd starts
// them (their socket handed over, Environment=, then api.env, then the
// instance's api-N.env), two instances run side by side although api.env
// names one metrics address for all (docs/operations.md, step 8).
func TestSystemdUnits(t *testing.T) {
	verify := tool(t, "systemd-analyze", "apt-get install -y systemd")
	dir := t.TempDir()
	socket := string(must(os.ReadFile(filepath.Join(root, "deploy", "freightsite-api@.socket"))))
	write(t, filepath.Join(dir, "freightsite-api@.socket"), socket)
	write(t, filepath.Join(dir, "freightsite-api@.service"), rewrite(t, filepath.Join(root, "deploy", "freightsite-api@.service"), map[string]string{
		"/usr/local/bin/freightsite":                   binary,
		"EnvironmentFile=/etc/freightsite/api.env":     "EnvironmentFile=-" + filepath.Join(dir, "api.env"),
		"EnvironmentFile=-/etc/freightsite/api-%i.env": "EnvironmentFile=-" + filepath.Join(dir, "api-%i.env"),
	}))
	var units []string
	for _, i := range []string{"1", "2"} {
		units = append(units, filepath.Join(dir, "freightsite-api@"+i+".socket"), filepath.Join(dir, "freightsite-api@"+i+".service"))
	}
	out, err := exec.Command(verify, append([]string{"verify"}, units...)...).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err = exec.Command(verify, "security", "--offline=true", "--threshold=20", filepath.Join(dir, "freightsite-api@1.service")).CombinedOutput()
	exposure := regexp.MustCompile(`Overall exposure level for freightsite-api@1.service: (\d+\.\d)`).FindSubmatch(out)
	if err != nil || exposure == nil {
		t.Errorf("systemd-analyze security: %v\n%s", err, out)
	}
	unit := string(must(os.ReadFile(filepath.Join(dir, "freightsite-api@.service"))))
	for _, want := range []string{"DynamicUser=yes", "ProtectSystem=strict", "StateDirectory=freightsite", "NoNewPrivileges=yes", "Restart=on-failure"} {
		if !strings.Contains(unit, "\n"+want+"\n") {
			t.Errorf("the service lacks %s", want)
		}
	}
	// A flag on the command line wins over FREIGHTSITE_<FLAG>: ExecStart
	// must leave every setting docs/operations.md puts in api.env to it.
	start := regexp.MustCompile(`(?m)^ExecStart=(.*)$`).FindStringSubmatch(unit)
	for _, flag := range []string{"--db", "--base-url", "--provider-email", "--smtp-url", "--log-file"} {
		if strings.Contains(start[0], flag) {
			t.Errorf("%s sets %s, so api.env's FREIGHTSITE_ variable for it would be ignored", start[0], flag)
		}
	}

	// Each instance's addresses, as systemd expands %i.
	nginx := string(must(os.ReadFile(filepath.Join(root, "deploy", "nginx.conf"))))
	upstream := regexp.MustCompile(`(?m)^\s+server (\S+) `).FindAllStringSubmatch(nginx, -1)
	listen := regexp.MustCompile(`(?m)^ListenStream=(.*)$`).FindStringSubmatch(socket)
	metrics := regexp.MustCompile(`--metrics-addr (\S+)`).FindStringSubmatch(start[1])
	if listen == nil || metrics == nil || len(upstream) < 2 {
		t.Fatalf("the units name no ListenStream (%v) or --metrics-addr (%v), or nginx.conf no upstream (%v)", listen, metrics, upstream)
	}
	seen := map[string]string{}
	for n, i := range []string{"1", "2"} {
		for what, addr := range map[string]string{"socket": strings.ReplaceAll(listen[1], "%i", i), "metrics": strings.ReplaceAll(metrics[1], "%i", i)} {
			if other, ok := seen[addr]; ok {
				t.Errorf("instance %s's %s address %s is also %s", i, what, addr, other)
			}
			seen[addr] = "instance " + i + "'s " + what
			if what == "socket" && addr != upstream[n][1] {
				t.Errorf("instance %s listens on %s; line %d of nginx.conf's upstream names %s", i, addr, n+1, upstream[n][1])
			}
		}
	}

	// Two instances started as systemd starts them, with one metrics
	// address in api.env: each serves its own.
	write(t, filepath.Join(dir, "api.env"), "FREIGHTSITE_METRICS_ADDR="+freeAddr(t)+"\nFREIGHTSITE_RATE_LIMIT=contact=off\n")
	for _, i := range []string{"1", "2"} {
		write(t, filepath.Join(dir, "api-"+i+".env"), "FREIGHTSITE_DB="+filepath.Join(dir, "api-"+i+".db")+"\n")
		ln := must(net.Listen("tcp", "127.0.0.1:0")) // the socket systemd holds (a free port here)
		sock := must(ln.(*net.TCPListener).File())
		ln.Close()
		metricsAddr := strings.ReplaceAll(metrics[1], "%i", i)
		if l, err := net.Listen("tcp", metricsAddr); err != nil {
			moved := freeAddr(t)
			t.Logf("%s is taken on this machine: instance %s's metrics move to %s", metricsAddr, i, moved)
			metricsAddr = moved
		} else {
			l.Close()
		}
		args := strings.Fields(strings.ReplaceAll(strings.ReplaceAll(start[1], "%i", i), strings.ReplaceAll(metrics[1], "%i", i), metricsAddr))
		cmd := exec.Command("/bin/sh", append([]string{"-c", `LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@"`}, args...)...)
		cmd.Env = systemdEnv(t, unit, i)
		cmd.ExtraFiles = []*os.File{sock}
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
			sock.Close()
		})
		waitHealthy(t, "http://"+ln.Addr().String()+"/healthz")
		waitHealthy(t, "http://"+metricsAddr+"/metrics")
		if _, err := os.Stat(filepath.Join(dir, "api-"+i+".db")); err != nil {
			t.Errorf("instance %s did not open the database of its own api-%s.env: %v\n%s", i, i, err, log.String())
		}
	}
}

// systemdEnv is the environment systemd gives instance i of a unit:
// its Environment= lines, then each EnvironmentFile= in order, each
// overriding the ones before.
func systemdEnv(t *testing.T, unit, i string) []string {
	t.Helper()
	env := map[string]string{}
	set := func(line string) {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			env[k] = v
		}
	}
	for _, line := range strings.Split(strings.ReplaceAll(unit, "%i", i), "\n") {
		switch {
		case strings.HasPrefix(line, "Environment="):
			set(strings.TrimPrefix(line, "Environment="))
		case strings.HasPrefix(line, "EnvironmentFile="):
			f := strings.TrimPrefix(line, "EnvironmentFile=")
			raw, err := os.ReadFile(strings.TrimPrefix(f, "-"))
			if err != nil && !strings.HasPrefix(f, "-") {
				t.Fatalf("%s: %v", line, err)
			}
			for _, l := range strings.Split(string(raw), "\n") {
				set(l)
			}
		}
	}
	out := []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
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
