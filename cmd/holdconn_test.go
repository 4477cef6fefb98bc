package cmd

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"freightsite/formapi"
	"freightsite/generator"
)

// countingListener counts the writes to the sockets of its connections.
type countingListener struct {
	net.Listener
	writes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	return countingConn{c, &l.writes}, err
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// TestAnAnswerLeavesInOneWrite: the server (formapi's handler, as serve
// runs it) sends a page, headers and a 9 KB body past net/http's 4 KB
// buffer, which alone makes two writes of it, in one write to the socket,
// the first time and from the prepared answer after; an answer streamed
// piece by piece (as freightsite dev's events are) still leaves piece by
// piece; and a client that waits for "100 Continue" before it sends a
// body gets it.
func TestAnAnswerLeavesInOneWrite(t *testing.T) {
	dist := t.TempDir()
	page := strings.Repeat("<p>A truck leaves Pune for Nagpur at dawn.</p>\n", 200)
	for name, body := range map[string]string{
		"routes.json": `{"prefixes":[""],"routes":["/"]}`,
		"index.html":  page,
		"_headers":    "/*\n  X-Frame-Options: DENY\n",
	} {
		if err := os.WriteFile(filepath.Join(dist, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	site, err := generator.Site(dist, nil)
	if err != nil {
		t.Fatal(err)
	}
	next := make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("/", site)
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(w, r.Body)
	})
	mux.HandleFunc("POST /events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 2 {
			fmt.Fprintf(w, "data: %d\n\n", i)
			if err := http.NewResponseController(w).Flush(); err != nil {
				t.Error(err)
			}
			if i == 0 {
				<-next // the client has the first event
			}
		}
	})
	store, err := formapi.OpenStore(filepath.Join(t.TempDir(), "site.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	h := formapi.NewServer(formapi.Config{Site: mux, Store: store, Secret: []byte("a secret of the test, 32 bytes..")})

	ln := &countingListener{Listener: loopback(t)}
	base := "http://" + serveOn(t, ln, h, true, time.Second).addr

	client := &http.Client{Timeout: 10 * time.Second}
	for _, when := range []string{"first", "prepared"} {
		before := ln.writes.Load()
		resp, err := client.Get(base + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || string(body) != page {
			t.Fatalf("%s answer: status %d, %d bytes (want %d), %v", when, resp.StatusCode, len(body), len(page), err)
		}
		if n := ln.writes.Load() - before; n != 1 {
			t.Errorf("%s answer: %d writes to the socket, want 1", when, n)
		}
	}

	// Posts carry the anti-forgery token.
	jar, _ := cookiejar.New(nil)
	expecting := &http.Client{Timeout: 10 * time.Second, Jar: jar, Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
	resp, err := expecting.Get(base + "/api/xsrf-token")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	token := ""
	for _, c := range resp.Cookies() {
		if c.Name == "XSRF-TOKEN" {
			token = c.Value
		}
	}
	// The events come on a post whose body the handler leaves unread:
	// net/http does not read from the connection meanwhile, so only
	// the flush can send the first event.
	req, _ := http.NewRequest(http.MethodPost, base+"/events", strings.NewReader("unread"))
	req.Header.Set("X-XSRF-TOKEN", token)
	resp, err = expecting.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	first, err := events.ReadString('\n')
	if err != nil || first != "data: 0\n" {
		t.Fatalf("first event %q, %v", first, err)
	}
	close(next)
	rest, err := io.ReadAll(events)
	if err != nil || !strings.Contains(string(rest), "data: 1") {
		t.Fatalf("after the first event: %q, %v", rest, err)
	}

	// A client that sends its body only after "100 Continue", with a
	// minute's patience: the server must send it, not the client give up
	// waiting and send the body anyway.
	req, _ = http.NewRequest(http.MethodPost, base+"/echo", strings.NewReader("a load of onions for Lasalgaon"))
	req.Header.Set("X-XSRF-TOKEN", token)
	req.Header.Set("Expect", "100-continue")
	start := time.Now()
	resp, err = expecting.Do(req)
	if err != nil {
		t.Fatalf("a post that waits for 100 Continue: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "a load of onions for Lasalgaon" {
		t.Errorf("a post that waits for 100 Continue: status %d, %q after %v", resp.StatusCode, body, time.Since(start))
	}
}

// TestServerCollectsGarbageLess: serve and api run at serverGCPercent
// unless GOGC says otherwise.
func TestServerCollectsGarbageLess(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, c := range []struct {
		gogc string
		want int
	}{{"", serverGCPercent}, {"100", 100}} {
		t.Setenv("GOGC", c.gogc)
		debug.SetGCPercent(100)
		collectLessGarbage()
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC=%q: the server runs at GC percent %d, want %d", c.gogc, got, c.want)
		}
	}
}

// TestClosingDropsWhatIsHeld: a connection closed while it holds part of
// an answer closes at once, sending none of it, even to a client that
// reads nothing (a net.Pipe write waits for its reader).
func TestClosingDropsWhatIsHeld(t *testing.T) {
	server, client := net.Pipe()
	c := &holdingConn{Conn: server}
	c.Hold()
	if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\n")); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for the client to read")
	}
	if got, err := io.ReadAll(client); len(got) > 0 || err != nil {
		t.Errorf("the client read %q (%v) from a closed connection", got, err)
	}
}
