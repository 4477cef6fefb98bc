package e2e

import (
	"database/sql"
	"fmt"
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

// TestKillDuringContactLoad kills `freightsite api` with SIGKILL while
// clients post contact messages: after a restart every acknowledged
// message is in the database exactly once, with its notification.
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

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := client.Get(base + "/api/xsrf-token")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	u, _ := url.Parse(base)
	token := ""
	for _, c := range jar.Cookies(u) {
		if c.Name == "XSRF-TOKEN" {
			token = c.Value
		}
	}

	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 16 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				subject := fmt.Sprintf("crash %d-%d", w, i)
				req, _ := http.NewRequest(http.MethodPost, base+"/api/contact_us", strings.NewReader(`{"name":"Load","email":"load@example.in","subject":"`+subject+`"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-XSRF-TOKEN", token)
				resp, err := client.Do(req)
				if err != nil {
					return // the server is gone
				}
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					mu.Lock()
					acked = append(acked, subject)
					mu.Unlock()
				}
			}
		})
	}
	time.Sleep(700 * time.Millisecond)
	api.Process.Signal(syscall.SIGKILL)
	api.Wait()
	close(stop)
	wg.Wait()
	if len(acked) < 50 {
		t.Fatalf("only %d posts acknowledged before the kill: the load did not run", len(acked))
	}

	// Restart on the same file (recovering its WAL), then read it.
	again := exec.Command(binary, "api", "--addr", addr, "--db", db)
	if err := again.Start(); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, base+"/healthz")
	again.Process.Signal(os.Interrupt)
	again.Wait()

	conn, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
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
	for _, s := range acked {
		if stored[s] != 1 {
			t.Errorf("acknowledged %q is stored %d times", s, stored[s])
		}
	}
	var messages, mails int
	conn.QueryRow(`SELECT COUNT(*) FROM contact_messages`).Scan(&messages)
	conn.QueryRow(`SELECT COUNT(*) FROM outbox`).Scan(&mails)
	if messages != mails {
		t.Errorf("%d messages but %d notifications: a write was half done", messages, mails)
	}
	t.Logf("%d acknowledged before SIGKILL, %d stored (the rest were in flight)", len(acked), messages)
}
