package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBackupUnderWriteLoad takes a backup while contact messages go in
// through the group-commit writer, each with its notification in the
// same write: the writer keeps committing while the copy is taken, and
// the copy passes the integrity check, holds every message acknowledged
// before the backup started, and is one snapshot (each message has its
// notification).
func TestBackupUnderWriteLoad(t *testing.T) {
	// A SQLite file in the PostgreSQL run too: backups are SQLite's.
	db := filepath.Join(t.TempDir(), "api.db")
	s := openTest(t, db)
	// Enough pages that the copy takes many steps.
	if err := s.TestExec(context.Background(), `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
		INSERT INTO contact_messages (created_at, name, email, phone, subject, message)
		SELECT '2026-01-01T00:00:00.000Z', 'filler', 'f@example.in', '9820012345', 'filler ' || i, printf('%.2000c', 'x') FROM n`); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { backupPages = n }(backupPages)
	backupPages = 16

	var (
		mu    sync.Mutex
		acked []string
		stop  atomic.Bool
		wg    sync.WaitGroup
		sent  atomic.Int64
	)
	for w := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				subject := "load " + strconv.Itoa(w) + "-" + strconv.Itoa(i)
				err := s.Write(context.Background(), func(tx *Tx) error {
					now := time.Now()
					if err := tx.AddContactMessage(now, ContactMessage{Name: "Ravi", Email: "ravi@example.in", Subject: subject, Message: "Pune to Nagpur"}); err != nil {
						return err
					}
					return tx.QueueMail(Mail{Kind: "notification", To: "provider@example.com", Subject: "Contact form: " + subject, Body: "b"}, now)
				})
				if err != nil {
					t.Errorf("writing %s: %v", subject, err)
					return
				}
				mu.Lock()
				acked = append(acked, subject)
				mu.Unlock()
				sent.Add(1)
			}
		})
	}
	for sent.Load() < 50 {
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()
	commits := s.Commits()
	backup := filepath.Join(t.TempDir(), "backup.db")
	err := Backup(context.Background(), db, backup)
	during := s.Commits() - commits
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if during == 0 {
		t.Error("no write was committed while the backup ran: it blocked the writer")
	}
	info, err := os.Stat(backup)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the backup: %v, mode %v; want 0600", err, info.Mode().Perm())
	}

	// Restore: the copy is a database the store opens.
	restored := openTest(t, backup)
	if err := checkIntegrity(context.Background(), backup); err != nil {
		t.Error(err)
	}
	stored := map[string]bool{}
	rows, err := restored.read.Query(`SELECT subject FROM contact_messages WHERE subject LIKE 'load %'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		stored[s] = true
	}
	rows.Close()
	for _, s := range before {
		if !stored[s] {
			t.Errorf("the backup lacks %q, acknowledged before it started", s)
		}
	}
	messages := count(t, restored, `SELECT COUNT(*) FROM contact_messages WHERE subject LIKE 'load %'`)
	notifications := count(t, restored, `SELECT COUNT(*) FROM outbox`)
	if messages != notifications {
		t.Errorf("the backup holds %d messages and %d notifications: not one snapshot", messages, notifications)
	}
	t.Logf("%d messages acknowledged before the backup, %d in it, %d commits while it ran", len(before), messages, during)
}

// TestBackupRefusals: the errors name what is wrong, and a refused or
// failed backup leaves no file behind.
func TestBackupRefusals(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "live.db")
	s, err := Open(db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	exists := filepath.Join(dir, "exists.db")
	os.WriteFile(exists, []byte("keep me"), 0o600)
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte(strings.Repeat("not a database\n", 100)), 0o600)
	other := filepath.Join(dir, "other.db")
	o, _ := sql.Open("sqlite3", other)
	o.Exec(`CREATE TABLE t (x)`)
	o.Close()
	for _, c := range []struct{ src, dst, want string }{
		{db, exists, "already exists"},
		{filepath.Join(dir, "missing.db"), filepath.Join(dir, "b1.db"), "no such file"},
		{text, filepath.Join(dir, "b2.db"), "is not an SQLite database"},
		{other, filepath.Join(dir, "b3.db"), "not freightsite's"},
	} {
		err := Backup(context.Background(), c.src, c.dst)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("backup of %s to %s: %v, want %q", filepath.Base(c.src), filepath.Base(c.dst), err, c.want)
		}
		if c.dst != exists {
			if _, err := os.Stat(c.dst); err == nil {
				t.Errorf("a refused backup left %s", c.dst)
			}
		}
	}
	if b, _ := os.ReadFile(exists); string(b) != "keep me" {
		t.Error("an existing file was overwritten")
	}
}
