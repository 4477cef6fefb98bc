package formapi

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"freightsite/internal/pgtest"
	"freightsite/internal/testkit"
)

// pgProxy stands between the store and PostgreSQL, reading the protocol's
// messages as they pass, so a test can break a connection at the moment
// it wants: when a statement of its choosing (COMMIT) leaves the store.
type pgProxy struct {
	t      *testing.T
	ln     net.Listener
	target string

	mu sync.Mutex
	// fault, when set, is called once, with the connection's backend
	// process id, when the statement it waits for reaches the proxy; it
	// says what becomes of it.
	fault *proxyFault
}

type proxyFault struct {
	statement string // e.g. "commit", "release job"
	// before runs before the statement is passed on (nil: nothing).
	before func(pid int32)
	// cut: "before" drops both connections instead of passing the
	// statement on; "after" passes it on and drops them when the server's
	// answer comes, before the store sees it; "" passes it on.
	cut string
	hit chan struct{}
}

func startPGProxy(t *testing.T, target string) *pgProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgProxy{t: t, ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

// url is db's URL with the proxy in place of the server.
func (p *pgProxy) url(db string) string {
	u, _ := url.Parse(db)
	u.Host = p.ln.Addr().String()
	return u.String()
}

// arm sets the fault for the next statement it names.
func (p *pgProxy) arm(f *proxyFault) {
	f.hit = make(chan struct{})
	p.mu.Lock()
	p.fault = f
	p.mu.Unlock()
}

// take returns the armed fault if msg is its statement, disarming it.
func (p *pgProxy) take(kind byte, payload []byte) *proxyFault {
	if kind != 'Q' && kind != 'P' {
		return nil
	}
	text := string(payload)
	if kind == 'P' { // a statement name, then the query
		_, text, _ = strings.Cut(text, "\x00")
	}
	text, _, _ = strings.Cut(text, "\x00")
	text = strings.ToLower(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), ";")))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fault == nil || text != p.fault.statement {
		return nil
	}
	f := p.fault
	p.fault = nil
	return f
}

func (p *pgProxy) serve(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer server.Close()
	// The startup message has no type byte.
	if err := copyMessage(client, server, false); err != nil {
		return
	}
	var pid int32
	var mu sync.Mutex
	var cutAfter *proxyFault
	go func() {
		defer client.Close()
		for {
			kind, payload, err := readMessage(server, true)
			if err != nil {
				return
			}
			mu.Lock()
			if kind == 'K' && len(payload) >= 4 {
				pid = int32(binary.BigEndian.Uint32(payload))
			}
			f := cutAfter
			mu.Unlock()
			if f != nil && kind == 'C' {
				close(f.hit)
				server.Close()
				return // the answer never reaches the store
			}
			if writeMessage(client, kind, payload, true) != nil {
				return
			}
		}
	}()
	for {
		kind, payload, err := readMessage(client, true)
		if err != nil {
			return
		}
		if f := p.take(kind, payload); f != nil {
			if f.cut != "after" {
				close(f.hit)
			}
			mu.Lock()
			id := pid
			mu.Unlock()
			if f.before != nil {
				f.before(id)
			}
			switch f.cut {
			case "before":
				return
			case "after":
				mu.Lock()
				cutAfter = f
				mu.Unlock()
			}
		}
		if writeMessage(server, kind, payload, true) != nil {
			return
		}
	}
}

// readMessage reads one protocol message: a type byte (typed), then a
// length that counts itself, then the payload.
func readMessage(r io.Reader, typed bool) (byte, []byte, error) {
	var head [5]byte
	h := head[:]
	if !typed {
		h = head[1:]
	}
	if _, err := io.ReadFull(r, h); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(head[1:])
	if n < 4 || n > 64<<20 {
		return 0, nil, fmt.Errorf("a message of %d bytes", n)
	}
	payload := make([]byte, n-4)
	_, err := io.ReadFull(r, payload)
	return head[0], payload, err
}

func writeMessage(w io.Writer, kind byte, payload []byte, typed bool) error {
	b := make([]byte, 0, 5+len(payload))
	if typed {
		b = append(b, kind)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(4+len(payload)))
	_, err := w.Write(append(b, payload...))
	return err
}

func copyMessage(from io.Reader, to io.Writer, typed bool) error {
	kind, payload, err := readMessage(from, typed)
	if err == nil {
		err = writeMessage(to, kind, payload, typed)
	}
	return err
}

// terminate ends a backend as pg_terminate_backend does for an operator
// (or a crash of that process would).
func terminate(t *testing.T, cluster *pgtest.Cluster, pid int32) {
	admin, err := sql.Open("pgx", cluster.URL("postgres"))
	if err != nil {
		t.Error(err)
		return
	}
	defer admin.Close()
	var ok bool
	if err := admin.QueryRow(`SELECT pg_terminate_backend($1)`, pid).Scan(&ok); err != nil || !ok {
		t.Errorf("pg_terminate_backend(%d): %v %v", pid, ok, err)
	}
}

// TestACommitWithNoAnswerIsUnknown (PostgreSQL): when the connection to
// the database breaks after COMMIT left the store, the store cannot know
// whether the submission was saved: the API says so (503, Retry-After,
// api.errors.unknownOutcome: send it again with the same key), whether it
// was saved or not, and the retry with the key stores it exactly once,
// or answers what was stored. A connection broken before COMMIT is a
// plain 503 "nothing was saved".
func TestACommitWithNoAnswerIsUnknown(t *testing.T) {
	if pgtest.Shared == nil {
		t.Skip("needs PostgreSQL (FORMAPI_DB=postgres): SQLite's unknown commit is an I/O error of the disk, TestCommitOutcomes")
	}
	for _, c := range []struct {
		name    string
		fault   func(t *testing.T) *proxyFault
		message string // the first try's answer
		saved   bool
	}{
		{"the connection drops as COMMIT leaves", func(*testing.T) *proxyFault {
			return &proxyFault{statement: "commit", cut: "before"}
		}, msgUnknownOutcome, false},
		{"COMMIT is applied and its answer lost", func(*testing.T) *proxyFault {
			return &proxyFault{statement: "commit", cut: "after"}
		}, msgUnknownOutcome, true},
		{"the backend is terminated while COMMIT is on its way", func(t *testing.T) *proxyFault {
			return &proxyFault{statement: "commit", before: func(pid int32) { terminate(t, pgtest.Shared, pid) }}
		}, msgUnknownOutcome, false},
		{"the backend is terminated before COMMIT", func(t *testing.T) *proxyFault {
			return &proxyFault{statement: "release job", before: func(pid int32) { terminate(t, pgtest.Shared, pid) }}
		}, msgUnavailable, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			proxy := startPGProxy(t, serverAddr(pgtest.Shared.URL("postgres")))
			a := newTestAPIOn(t, proxy.url(testDB(t, "")), unlimited())
			retryAfterUnknown(t, a, func() *proxyFault {
				f := c.fault(t)
				proxy.arm(f)
				return f
			}, c.message, c.saved)
		})
	}
}

// TestACommitCutByAStoppingServer (PostgreSQL): the database server is
// shut down (as an operator restarting it would) while a COMMIT is on its
// way: unknown; once it is back, the retry with the key stores the
// submission once.
func TestACommitCutByAStoppingServer(t *testing.T) {
	if pgtest.Shared == nil {
		t.Skip("needs PostgreSQL (FORMAPI_DB=postgres)")
	}
	cluster, err := pgtest.Start(pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	db, err := cluster.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	proxy := startPGProxy(t, serverAddr(db))
	a := newTestAPIOn(t, proxy.url(db), unlimited())
	halted := make(chan struct{})
	retryAfterUnknown(t, a, func() *proxyFault {
		f := &proxyFault{statement: "commit", before: func(int32) {
			cluster.Halt()
			close(halted)
		}}
		proxy.arm(f)
		return f
	}, msgUnknownOutcome, false, func() {
		<-halted // the store may hear of it before the server is gone
		if err := cluster.Resume(); err != nil {
			t.Fatal(err)
		}
	})
}

// serverAddr is host:port of a PostgreSQL URL.
func serverAddr(db string) string {
	u, _ := url.Parse(db)
	return u.Host
}

// retryAfterUnknown posts a contact message with a key while fault breaks
// its commit, checks the answer (message) and whether it was saved, then
// (after recover, if any) retries with the key: one message in the end,
// the retry's answer the stored one when it was saved.
func retryAfterUnknown(t *testing.T, a *testAPI, fault func() *proxyFault, message string, saved bool, recover ...func()) {
	t.Helper()
	_, body := jsonBody(validContact())
	const key = "0mhx2k3a9-sent-while-the-database-went"
	a.token()
	f := fault()
	resp, answer := a.sendKeyed("/api/contact_us", "application/json", body, key, "")
	select {
	case <-f.hit:
	default:
		t.Fatalf("the fault never struck; the post answered %d %s", resp.StatusCode, answer)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(answer, `"message":"`+message+`"`) {
		t.Errorf("the post whose commit broke: %d %s, want 503 with Retry-After and %s", resp.StatusCode, answer, message)
	}
	if message == msgUnknownOutcome && !strings.Contains(answer, "it may have been saved") {
		t.Errorf("the answer does not say it may have been saved: %s", answer)
	}
	for _, r := range recover {
		r()
	}
	want := 0
	if saved {
		want = 1
	}
	if n := waitCount(t, a, `SELECT COUNT(*) FROM contact_messages`); n != want {
		t.Errorf("after the broken commit: %d messages, want %d", n, want)
	}
	resp, answer = a.sendKeyed("/api/contact_us", "application/json", body, key, "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(answer, `"status":"Success"`) || (resp.Header.Get(replayedHeader) == "true") != saved {
		t.Errorf("the retry with the key: %d %s replayed %q, want 200, replayed=%v", resp.StatusCode, answer, resp.Header.Get(replayedHeader), saved)
	}
	resp, _ = a.sendKeyed("/api/contact_us", "application/json", body, key, "")
	if resp.Header.Get(replayedHeader) != "true" {
		t.Errorf("a second retry was not answered from the key")
	}
	if n := a.count(`SELECT COUNT(*) FROM contact_messages`); n != 1 {
		t.Errorf("after the retries: %d messages, want 1", n)
	}
	if n := a.count(`SELECT COUNT(*) FROM outbox`); n != 1 {
		t.Errorf("after the retries: %d notifications, want 1", n)
	}
}

// waitCount reads a count, waiting out the moments the database is
// still coming back.
func waitCount(t *testing.T, a *testAPI, query string) int {
	t.Helper()
	var n int
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err = a.store.TestQueryRow(query).Scan(&n); err == nil {
			return n
		}
	}
	t.Fatalf("%s: %v", query, err)
	return 0
}

// TestADatabaseOutageIsLoggedOnce: while the database cannot be written
// (SQLite: its disk is full; PostgreSQL: the server is stopped), every
// post is refused with the API's 503 and its INFO request line, and the
// outage is one ERROR line when it starts, one a minute with the writes
// refused since, and one WARN when a write succeeds again, with how long
// it lasted; no ERROR line per request.
func TestADatabaseOutageIsLoggedOnce(t *testing.T) {
	var db string
	var fail, repair func()
	if pgtest.Shared == nil {
		disk := testkit.SmallDisk(t)
		db = filepath.Join(disk, "api.db")
		var filler string
		fail = func() { filler = testkit.FillDisk(t, disk) }
		repair = func() { os.Remove(filler) }
	} else {
		cluster, err := pgtest.Start(pgtest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cluster.Stop)
		if db, err = cluster.NewDatabase(context.Background()); err != nil {
			t.Fatal(err)
		}
		fail = cluster.Halt
		repair = func() {
			if err := cluster.Resume(); err != nil {
				t.Fatal(err)
			}
		}
	}
	logs := &lockedLog{}
	// The clock of the server and of its store's outage lines.
	clock := testkit.NewClock()
	a := newTestAPIOn(t, db, unlimited(), withClock(clock), func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	advance := clock.Advance
	msg := validContact()
	msg["message"] = strings.Repeat("A long message to fill the disk's last pages. ", 80)
	expectStatus(t, a.postJSON("/api/contact_us", msg), http.StatusOK)

	fail()
	refused := 0
	post := func(n int) {
		for range n {
			resp := a.postJSON("/api/contact_us", msg)
			if resp.StatusCode == http.StatusOK {
				resp.Body.Close()
				continue // a page the disk still had
			}
			expectJSONError(t, resp, http.StatusServiceUnavailable, "nothing was saved")
			refused++
		}
	}
	post(20)
	advance(61 * time.Second)
	post(5)
	advance(30 * time.Second)
	post(5)
	if refused < 25 {
		t.Fatalf("only %d of 30 posts were refused during the outage", refused)
	}
	repair()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp := a.postJSON("/api/contact_us", msg)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		refused++
		if time.Now().After(deadline) {
			t.Fatalf("posts still refused after the database came back: %d", resp.StatusCode)
		}
	}
	text := logs.String()
	count := func(s string) int { return strings.Count(text, s) }
	if n := count("level=ERROR"); n != 2 {
		t.Errorf("%d ERROR lines for %d refused posts over 91 s, want 2 (its start and one a minute):\n%s", n, refused, text)
	}
	if n := count(`level=ERROR msg="database unavailable`); n != 1 {
		t.Errorf("%d lines say the outage began, want 1", n)
	}
	if n := count(`level=ERROR msg="database still unavailable" failed_writes=20 for=1m1s`); n != 1 {
		t.Errorf("%d lines count the refused writes after a minute, want 1 (failed_writes=20 for=1m1s: the refusals since the first line):\n%s", n, text)
	}
	if n := count(`level=WARN msg="database available again" after=`); n != 1 || !strings.Contains(text, fmt.Sprintf("failed_writes=%d", refused)) {
		t.Errorf("%d lines say it ended (want 1, with failed_writes=%d):\n%s", n, refused, text)
	}
	if n := count("level=INFO msg=request method=POST path=/api/contact_us status=503"); n != refused {
		t.Errorf("%d INFO request lines with status 503, want %d", n, refused)
	}
}
