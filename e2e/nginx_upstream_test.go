package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestNginxFrozenInstance runs deploy/nginx.conf (as TestNginx installs
// it) with its upstream on two `freightsite api` processes and freezes
// one (SIGSTOP: a process that takes connections, its socket being open,
// and answers nothing, as one stuck in swap or a debugger):
//
//   - every GET through nginx is answered 200 within the API locations'
//     read timeout (10 s, then the other instance), not nginx's default
//     60 s; a POST is never sent to both instances (the frozen one's gets
//     nginx's JSON 503 and may be stored when it thaws, the other's is
//     stored once);
//   - a confirmation link's token reaches no log on the way, though the
//     error log names the timeouts;
//   - after SIGCONT both instances serve again within a few seconds;
//   - when both stop, nginx answers its JSON 503; once both are back it
//     serves within 4 s (fail_timeout 2 s, counted in whole seconds, where
//     nginx's default of 10 s would answer "no live upstreams" that long).
func TestNginxFrozenInstance(t *testing.T) {
	nginx := tool(t, "nginx", "apt-get install -y nginx")
	n := installNginx(t, nginx)
	dir := t.TempDir()
	secret := strings.Repeat("frozen-instance-secret-", 2) // the same anti-forgery secret on both
	type instance struct {
		addr, db string
		s        *server
	}
	instances := []*instance{{addr: freeAddr(t), db: filepath.Join(dir, "a.db")}, {addr: freeAddr(t), db: filepath.Join(dir, "b.db")}}
	start := func(in *instance) {
		t.Helper()
		in.s = startProcess(t, nil, "api", "--addr", in.addr, "--db", in.db, "--secret", secret, "--trusted-proxy", "127.0.0.1",
			"--rate-limit", "contact=off", "--base-url", "https://"+siteHost)
		waitHealthy(t, "http://"+in.addr+"/healthz")
	}
	for _, in := range instances {
		start(in)
	}
	site := string(must(os.ReadFile(n.site)))
	for range 2 { // each upstream: the first server line, then the second
		for _, in := range instances {
			site = strings.Replace(site, "server API_ADDR ", "server "+in.addr+" ", 1)
		}
	}
	write(t, n.site, site)
	n.start(t, "")
	frozen := instances[1]
	served := func(in *instance, path string) bool {
		return strings.Contains(in.s.stderr.String(), "path="+path+" status=200")
	}

	// Frozen.
	token := n.xsrfToken(t, n.client(true))
	frozen.s.cmd.Process.Signal(syscall.SIGSTOP)
	const secretToken = "Fr0zenT0ken"
	type answer struct {
		path   string
		status int
		took   time.Duration
	}
	var (
		mu      sync.Mutex
		answers []answer
		acked   []string
		wg      sync.WaitGroup
	)
	freezeStart := time.Now()
	for c := range 4 {
		wg.Go(func() {
			client := n.client(false)
			for i := 0; time.Since(freezeStart) < 12*time.Second; i++ {
				var req *http.Request
				switch {
				case c == 0 && i < 4:
					req = contactRequest(n.origin(), token, fmt.Sprintf("frozen %d", i))
				case c == 1 && i%3 == 0:
					req, _ = http.NewRequest(http.MethodGet, n.url("/api/publicTruckingAuctionForm/confirm?token="+secretToken), nil)
				default:
					req, _ = http.NewRequest(http.MethodGet, n.url("/countries"), nil)
				}
				begin := time.Now()
				resp, err := client.Do(req)
				a := answer{path: req.Method + " " + req.URL.Path, took: time.Since(begin)}
				if err == nil {
					a.status = resp.StatusCode
					resp.Body.Close()
				}
				mu.Lock()
				answers = append(answers, a)
				if req.Method == http.MethodPost && a.status == http.StatusOK {
					acked = append(acked, fmt.Sprintf("frozen %d", i))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	var slowest time.Duration
	posts := 0
	for _, a := range answers {
		slowest = max(slowest, a.took)
		switch {
		case a.took > 13*time.Second:
			t.Errorf("%s took %v with one instance frozen, want at most the read timeout (10 s) and a retry", a.path, a.took.Round(time.Millisecond))
		case strings.HasPrefix(a.path, "POST"):
			posts++
			if a.status != http.StatusOK && a.status != http.StatusServiceUnavailable {
				t.Errorf("%s: %d with one instance frozen, want 200 or nginx's 503", a.path, a.status)
			}
		case strings.Contains(a.path, "/confirm"):
			if a.status != http.StatusNotFound {
				t.Errorf("%s: %d with one instance frozen, want the API's 404 for an unknown token", a.path, a.status)
			}
		case a.status != http.StatusOK:
			t.Errorf("%s: %d with one instance frozen, want 200 (from the other instance)", a.path, a.status)
		}
	}
	if slowest < 9*time.Second {
		t.Errorf("no request met the frozen instance (slowest %v): the test shows nothing", slowest)
	}
	t.Logf("%d requests in 12 s with one instance frozen, the slowest %v", len(answers), slowest.Round(time.Millisecond))

	// Thawed: both serve again.
	frozen.s.cmd.Process.Signal(syscall.SIGCONT)
	thawed := time.Now()
	for !served(frozen, "/api/news/1") {
		if time.Since(thawed) > 5*time.Second {
			t.Fatalf("the thawed instance got no request through nginx within 5 s")
		}
		if resp, _ := n.get(t, "/api/news/1"); resp.StatusCode != http.StatusOK {
			t.Errorf("GET /api/news/1 after the thaw: %d", resp.StatusCode)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("the thawed instance serves through nginx %v after SIGCONT", time.Since(thawed).Round(time.Millisecond))
	// A POST went to one instance only: the one that answered 200
	// stored it once; the frozen one's may be stored by it, never by both.
	time.Sleep(500 * time.Millisecond) // the thawed instance's writes of what it took while frozen
	a, b := storedSubjects(t, instances[0].db), storedSubjects(t, frozen.db)
	for i := range posts {
		s := fmt.Sprintf("frozen %d", i)
		if a[s]+b[s] > 1 {
			t.Errorf("%q is stored %d times by the running instance and %d by the frozen one: nginx sent a POST twice", s, a[s], b[s])
		}
		if slices.Contains(acked, s) && a[s]+b[s] != 1 {
			t.Errorf("acknowledged %q is stored %d times", s, a[s]+b[s])
		}
	}

	// The token of the confirmation link is in no log; the error log
	// names the timeouts of the other calls.
	logs, _ := filepath.Glob(filepath.Join(n.dir, "log", "*"))
	for _, f := range logs {
		if strings.Contains(string(must(os.ReadFile(f))), secretToken) {
			t.Errorf("%s keeps a confirmation token", filepath.Base(f))
		}
	}
	if log := string(must(os.ReadFile(filepath.Join(n.dir, "log", "error.log")))); !strings.Contains(log, "upstream timed out") {
		t.Errorf("the error log does not name the timeouts:\n%s", log)
	}

	// Both down, then back.
	for _, in := range instances {
		in.s.stop(t)
	}
	for range 4 {
		if resp, body := n.get(t, "/countries"); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "api.errors.unavailable") {
			t.Errorf("/countries with both instances down: %d %s, want nginx's JSON 503", resp.StatusCode, body)
		}
	}
	for _, in := range instances {
		start(in)
	}
	back := time.Now()
	for {
		resp, _ := n.get(t, "/countries")
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Since(back) > 4*time.Second {
			t.Fatalf("nginx still answers %d 4 s after both instances came back", resp.StatusCode)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("nginx serves %v after both instances came back", time.Since(back).Round(time.Millisecond))
	if t.Failed() {
		log, _ := os.ReadFile(filepath.Join(n.dir, "log", "error.log"))
		t.Logf("nginx error log:\n%s", log)
	}
}
