package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"freightsite/internal/testkit"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDiskFull fills the disk under a running server's database: posts
// are refused with a clear 503 (Retry-After, nothing half-written) while
// reads go on, the file passes PRAGMA integrity_check, and once space is
// freed the next post is stored, with no restart. Exactly the
// acknowledged posts are in the database afterwards.
//
// (A disk turned read-only under a running server cannot be staged here:
// remounting read-only fails while the server holds the file open for
// writing, and chmod does not stop root. A full disk is the same failure
// for the server, SQLite's "cannot write", and is what a tmpfs can
// really do.)
func TestDiskFull(t *testing.T) {
	disk := testkit.SmallDisk(t)
	db := filepath.Join(disk, "full.db")
	addr := freeAddr(t)
	api := exec.Command(binary, "api", "--addr", addr, "--db", db, "--rate-limit", "contact=off")
	var logs strings.Builder
	api.Stdout, api.Stderr = &logs, &logs
	if err := api.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			api.Process.Kill()
			api.Wait()
		}
	})
	base := "http://" + addr
	waitHealthy(t, base+"/healthz")
	token := xsrfToken(t, base)
	client := &http.Client{Timeout: 30 * time.Second}
	message := strings.Repeat("Two trucks free from Nashik on Monday. ", 100)
	post := func(subject string) (*http.Response, string) {
		t.Helper()
		req := contactRequest(base, token, subject)
		req.Body = io.NopCloser(strings.NewReader(fmt.Sprintf(`{"name":"Disk","email":"disk@example.in","subject":%q,"message":%q}`, subject, message)))
		req.ContentLength = -1
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("posting %q: %v", subject, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(body)
	}

	var acked []string
	if resp, body := post("before the disk filled"); resp.StatusCode != http.StatusOK {
		t.Fatalf("first post: %d %s", resp.StatusCode, body)
	}
	acked = append(acked, "before the disk filled")

	filler := testkit.FillDisk(t, disk)
	var refused *http.Response
	var refusal string
	for i := 0; i < 500 && refused == nil; i++ {
		subject := fmt.Sprintf("while full %d", i)
		resp, body := post(subject)
		switch resp.StatusCode {
		case http.StatusOK:
			acked = append(acked, subject) // room left in the WAL file
		case http.StatusServiceUnavailable:
			refused, refusal = resp, body
		default:
			t.Fatalf("post on a full disk: %d %s", resp.StatusCode, body)
		}
	}
	if refused == nil {
		t.Fatal("500 posts on a full disk were all accepted")
	}
	var answer struct{ Error, Message string }
	if err := json.Unmarshal([]byte(refusal), &answer); err != nil || !strings.Contains(answer.Error, "cannot store data") || answer.Message != "api.errors.unavailable" {
		t.Errorf("503 answer %q: want a JSON error saying nothing was stored", refusal)
	}
	if refused.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	for _, path := range []string{"/healthz", "/api/news"} {
		resp, err := client.Get(base + path)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s on a full disk: %v %v", path, resp, err)
		} else {
			resp.Body.Close()
		}
	}
	ready := func() (int, string) {
		resp, err := client.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	if status, body := ready(); status != http.StatusServiceUnavailable || !strings.Contains(body, `"database":"not writable"`) {
		t.Errorf("GET /readyz on a full disk: %d %s, want 503 saying the database is not writable", status, body)
	}
	integrityOK(t, db)

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if resp, body := post("after space was freed"); resp.StatusCode != http.StatusOK {
		t.Fatalf("first post after space was freed: %d %s\n%s", resp.StatusCode, body, logs.String())
	}
	acked = append(acked, "after space was freed")
	if status, body := ready(); status != http.StatusOK {
		t.Errorf("GET /readyz after space was freed: %d %s", status, body)
	}

	api.Process.Signal(syscall.SIGTERM)
	err := api.Wait()
	stopped = true
	if err != nil {
		t.Errorf("api exited with %v after SIGTERM\n%s", err, logs.String())
	}
	stored := storedSubjects(t, db)
	for _, s := range acked {
		if stored[s] != 1 {
			t.Errorf("acknowledged %q is stored %d times", s, stored[s])
		}
		delete(stored, s)
	}
	for s := range stored {
		t.Errorf("%q is stored although it was refused", s)
	}
	if !strings.Contains(logs.String(), "database or disk is full") {
		t.Errorf("the log does not say why posts were refused:\n%s", logs.String())
	}
	t.Logf("%d posts acknowledged, the first refusal: %s", len(acked), answer.Error)
}

func integrityOK(t *testing.T, db string) {
	t.Helper()
	conn, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var check string
	if err := conn.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check on the full disk: %q %v", check, err)
	}
}
