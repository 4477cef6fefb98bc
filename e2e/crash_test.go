package e2e

import (
	"bufio"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// contactLoad is clients posting contact messages with unique subjects
// over kept-alive connections until stopped or the server goes away,
// remembering which posts were acknowledged.
type contactLoad struct {
	base  string
	token string
	stop  chan struct{}
	wg    sync.WaitGroup

	mu    sync.Mutex
	acked []string
	// failed are posts that got no answer, with the client's error.
	failed map[string]error
}

// xsrfToken gets an anti-forgery cookie from the API, as the site does.
func xsrfToken(t *testing.T, base string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := client.Get(base + "/api/xsrf-token")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	u, _ := url.Parse(base)
	for _, c := range jar.Cookies(u) {
		if c.Name == "XSRF-TOKEN" {
			return c.Value
		}
	}
	t.Fatal("no XSRF-TOKEN cookie")
	return ""
}

func contactRequest(base, token, subject string) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, base+"/api/contact_us", strings.NewReader(`{"name":"Load","email":"load@example.in","subject":"`+subject+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-XSRF-TOKEN", token)
	req.AddCookie(&http.Cookie{Name: "XSRF-TOKEN", Value: token})
	return req
}

// startContactLoad starts clients posting; each stops at its first post
// that gets no answer (the server is gone) or when stop is closed.
func startContactLoad(t *testing.T, base string, clients int) *contactLoad {
	l := &contactLoad{base: base, token: xsrfToken(t, base), stop: make(chan struct{}), failed: map[string]error{}}
	for c := range clients {
		l.wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
			defer client.CloseIdleConnections()
			for i := 0; ; i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				subject := fmt.Sprintf("load %d-%d", c, i)
				resp, err := client.Do(contactRequest(base, l.token, subject))
				if err == nil {
					_, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				l.mu.Lock()
				if err != nil {
					l.failed[subject] = err
				} else if resp.StatusCode == http.StatusOK {
					l.acked = append(l.acked, subject)
				}
				l.mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	return l
}

// waitAcked waits until at least n posts have been acknowledged, so that
// what a test does next (a kill, a stop) happens under load however
// slowly the machine runs; it fails the test after 30 s.
func (l *contactLoad) waitAcked(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); l.ackedCount() < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d posts acknowledged within 30 s, want %d: the load did not run", l.ackedCount(), n)
		}
	}
}

func (l *contactLoad) ackedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acked)
}

// finish stops the clients and waits for them.
func (l *contactLoad) finish() {
	close(l.stop)
	l.wg.Wait()
}

// storedSubjects counts each contact message's subject in the database
// file, after checking the file with PRAGMA integrity_check and that
// every message has its notification in the outbox (one transaction).
func storedSubjects(t *testing.T, db string) map[string]int {
	t.Helper()
	conn, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var check string
	if err := conn.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q %v", check, err)
	}
	stored := map[string]int{}
	rows, err := conn.Query(`SELECT subject FROM contact_messages`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		rows.Scan(&s)
		stored[s]++
	}
	var messages, mails int
	conn.QueryRow(`SELECT COUNT(*) FROM contact_messages`).Scan(&messages)
	conn.QueryRow(`SELECT COUNT(*) FROM outbox WHERE subject LIKE 'Contact form: %'`).Scan(&mails)
	if messages != mails {
		t.Errorf("%d messages but %d notifications: a write was half done", messages, mails)
	}
	return stored
}

// TestKillDuringContactLoad kills the server with SIGKILL while 20 clients
// post contact messages: after a restart every acknowledged message is in
// the database exactly once, with its notification, no message is there
// twice, and the file passes its integrity check.
func TestKillDuringContactLoad(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "crash.db")
	addr := freeAddr(t)
	api := exec.Command(binary, "api", "--addr", addr, "--db", db, "--rate-limit", "contact=off")
	if err := api.Start(); err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	waitHealthy(t, base+"/healthz")

	load := startContactLoad(t, base, 20)
	load.waitAcked(t, 50)
	api.Process.Signal(syscall.SIGKILL)
	api.Wait()
	load.finish()

	// Restart on the same file (recovering its WAL), then read it.
	again := exec.Command(binary, "api", "--addr", addr, "--db", db)
	if err := again.Start(); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, base+"/healthz")
	again.Process.Signal(os.Interrupt)
	again.Wait()

	stored := storedSubjects(t, db)
	for _, s := range load.acked {
		if stored[s] != 1 {
			t.Errorf("acknowledged %q is stored %d times", s, stored[s])
		}
	}
	for s, n := range stored {
		if n > 1 {
			t.Errorf("%q is stored %d times", s, n)
		}
	}
	t.Logf("%d acknowledged before SIGKILL, %d stored (the rest were in flight)", len(load.acked), len(stored))
}

// TestTerminateDuringContactLoad sends SIGTERM to `freightsite serve`
// while 20 clients post contact messages and one post is still sending
// its body: the server stops taking connections at once (a new one is
// refused while that post is in flight), the post in flight gets its
// answer, the process exits 0, and the database holds exactly the
// acknowledged posts: none stored without its answer, none lost.
func TestTerminateDuringContactLoad(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "term.db")
	addr := freeAddr(t)
	serve := exec.Command(binary, "serve", "--addr", addr, "--dist", filepath.Join(work, "dist"), "--db", db, "--rate-limit", "contact=off")
	serve.Env = append(os.Environ(), serverEnv...)
	var logs strings.Builder
	serve.Stdout, serve.Stderr = &logs, &logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	waitHealthy(t, base+"/healthz")

	// The slow post: headers and half its body now, the rest after the
	// signal.
	token := xsrfToken(t, base)
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	body := `{"name":"Slow","email":"slow@example.in","subject":"in flight at SIGTERM"}`
	fmt.Fprintf(slow, "POST /api/contact_us HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nX-XSRF-TOKEN: %s\r\nCookie: XSRF-TOKEN=%s\r\n\r\n%s", addr, len(body), token, token, body[:20])

	load := startContactLoad(t, base, 20)
	load.waitAcked(t, 50)
	exited := make(chan error, 1)
	serve.Process.Signal(syscall.SIGTERM)
	go func() { exited <- serve.Wait() }()

	// New connections are refused while the slow post is still open (a
	// connect racing the closing listener is reset instead).
	var refused error
	for deadline := time.Now().Add(5 * time.Second); refused == nil && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			refused = err
			break
		}
		c.Close()
	}
	if refused == nil {
		t.Error("new connections were still accepted 5 s after SIGTERM")
	} else if !errors.Is(refused, syscall.ECONNREFUSED) && !errors.Is(refused, syscall.ECONNRESET) {
		t.Errorf("a new connection after SIGTERM failed with %v, want it refused", refused)
	}
	select {
	case err := <-exited:
		t.Fatalf("serve exited (%v) before the post in flight finished", err)
	default:
	}
	if _, err := io.WriteString(slow, body[20:]); err != nil {
		t.Fatalf("finishing the post in flight: %v", err)
	}
	slow.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(slow), nil)
	if err != nil {
		t.Fatalf("the post in flight at SIGTERM got no answer: %v", err)
	}
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(answer), `"Success"`) {
		t.Errorf("the post in flight at SIGTERM: %d %s", resp.StatusCode, answer)
	}

	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("serve exited with %v after SIGTERM, want 0\n%s", err, logs.String())
		}
	case <-time.After(25 * time.Second):
		serve.Process.Kill()
		t.Fatal("serve did not exit within 25 s of SIGTERM")
	}
	load.finish()

	stored := storedSubjects(t, db)
	if stored["in flight at SIGTERM"] != 1 {
		t.Error("the post in flight at SIGTERM is not stored")
	}
	delete(stored, "in flight at SIGTERM")
	for _, s := range load.acked {
		if stored[s] != 1 {
			t.Errorf("acknowledged %q is stored %d times", s, stored[s])
		}
		delete(stored, s)
	}
	for s := range stored {
		t.Errorf("%q is stored but its client got no answer (%v)", s, load.failed[s])
	}
	t.Logf("%d posts acknowledged; %d clients' next post was refused or unanswered (%v)", len(load.acked), len(load.failed), sampleErrors(load.failed))
}

func sampleErrors(failed map[string]error) []string {
	var out []string
	for _, err := range failed {
		if len(out) == 3 {
			break
		}
		out = append(out, err.Error())
	}
	return out
}
