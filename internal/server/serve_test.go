package server

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"freightsite/data"
	"freightsite/formapi"
	"freightsite/internal/site"
	"freightsite/internal/store"
)

func loopback(t testing.TB) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// testServer is listenAndServe running for a test: stop starts its stop
// (SIGTERM's), done closes when it has returned err.
type testServer struct {
	addr string
	stop context.CancelFunc
	done chan struct{}
	err  error
}

// serveOn runs listenAndServe on ln and h with lim and the trusted
// proxies, until stop or the end of the test.
func serveOn(t testing.TB, ln net.Listener, h http.Handler, lim serverLimits, proxies ...netip.Prefix) *testServer {
	ctx, stop := context.WithCancel(context.Background())
	s := &testServer{addr: ln.Addr().String(), stop: stop, done: make(chan struct{})}
	go func() {
		s.err = listenAndServe(ctx, slog.New(slog.DiscardHandler), ln, lim, nil, h, newDrain(proxies))
		close(s.done)
	}()
	t.Cleanup(func() { stop(); <-s.done })
	return s
}

// testLimits are defaultLimits with a stop of a second.
func testLimits() serverLimits {
	lim := defaultLimits
	lim.stop = time.Second
	return lim
}

// answer is one answer read from a raw connection, its body whole.
type answer struct {
	status int
	header http.Header
	body   string
}

// exchange sends raw on a new connection and reads every answer until
// the server closes it (raw's last request asks it to: a half-close
// would tell net/http the client is gone, and cancel the request under
// way); methods are the requests' methods in order (a HEAD's answer has
// no body), GET past them.
func exchange(t *testing.T, addr, raw string, methods ...string) []answer {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	var out []answer
	for {
		req := &http.Request{Method: http.MethodGet}
		if len(out) < len(methods) {
			req.Method = methods[len(out)]
		}
		resp, err := http.ReadResponse(br, req)
		if err != nil { // the server closed the connection
			return out
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%q: answer %d: %v", raw, len(out)+1, err)
		}
		out = append(out, answer{resp.StatusCode, resp.Header, string(b)})
	}
}

// recordingHandler answers each request with its method and target,
// and records them.
type recordingHandler struct {
	mu   sync.Mutex
	seen []string
}

func (h *recordingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Method+" "+r.RequestURI)
	h.mu.Unlock()
	fmt.Fprint(w, r.Method+" "+r.RequestURI)
}

func (h *recordingHandler) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := h.seen
	h.seen = nil
	return seen
}

// TestEachRequestIsAnsweredOnce: whatever framing a request has, the
// server answers each request once, in order, and never reads a body
// as a request. Every case's body is a whole request for /smuggled,
// and a GET /after follows it on the connection (asking to close it
// after): /smuggled must never be served, and /after only when the
// connection could go on.
func TestEachRequestIsAnsweredOnce(t *testing.T) {
	h := &recordingHandler{}
	s := serveOn(t, loopback(t), h, testLimits())
	smuggled := "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
	chunked := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(smuggled), smuggled)
	length := fmt.Sprint(len(smuggled))
	after := "GET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
	for _, c := range []struct {
		name, request string
		served        []string // what the handler gets, in order
		refused       int      // net/http's own refusal that ends the connection, 0 for none
	}{
		{"a GET with a chunked body", "GET /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked, []string{"GET /a", "GET /after"}, 0},
		{"a GET with a Content-Length body", "GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: " + length + "\r\n\r\n" + smuggled, []string{"GET /a", "GET /after"}, 0},
		{"a HEAD with a body", "HEAD /a HTTP/1.1\r\nHost: x\r\nContent-Length: " + length + "\r\n\r\n" + smuggled, []string{"HEAD /a", "GET /after"}, 0},
		{"an HTTP/1.0 GET with a body, kept alive", "GET /a HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: " + length + "\r\n\r\n" + smuggled, []string{"GET /a", "GET /after"}, 0},
		{"Transfer-Encoding beside a shorter Content-Length", "GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked, []string{"GET /a", "GET /after"}, 0},
		{"Content-Length beside Transfer-Encoding, on a POST", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n" + chunked, []string{"POST /a", "GET /after"}, 0},
		{"Transfer-Encoding folded onto a second line (obs-fold)", "GET /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n chunked\r\n\r\n" + chunked, []string{"GET /a", "GET /after"}, 0},
		{"a folded header", "GET /a HTTP/1.1\r\nHost: x\r\nX-Load: onions\r\n from Nashik\r\n\r\n", []string{"GET /a", "GET /after"}, 0},
		{"Transfer-Encoding with a tab before chunked", "GET /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \tchunked\r\n\r\n" + chunked, []string{"GET /a", "GET /after"}, 0},
		{"Transfer-Encoding identity", "GET /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n" + smuggled, nil, http.StatusNotImplemented},
		{"Transfer-Encoding xchunked", "GET /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n" + smuggled, nil, http.StatusNotImplemented},
		{"Transfer-Encoding gzip, chunked", "GET /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" + chunked, nil, http.StatusNotImplemented},
		{"Transfer-Encoding twice", "GET /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked, nil, http.StatusNotImplemented},
		{"a space before the colon of Transfer-Encoding", "GET /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n\r\n" + chunked, nil, http.StatusBadRequest},
		{"two different Content-Lengths", "GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: " + length + "\r\n\r\n" + smuggled, nil, http.StatusBadRequest},
		{"a Content-Length list", "GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0, " + length + "\r\n\r\n" + smuggled, nil, http.StatusBadRequest},
		{"a signed Content-Length", "GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: +" + length + "\r\n\r\n" + smuggled, nil, http.StatusBadRequest},
		{"a chunk size with 0x", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0x" + chunked, []string{"POST /a"}, 0},
		{"a chunk size line ending in a bare LF", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\n%s\r\n0\r\n\r\n", len(smuggled), smuggled), []string{"POST /a"}, 0},
		{"a body behind Expect: 100-continue", "POST /a HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: " + length + "\r\n\r\n" + smuggled, []string{"POST /a"}, 0},
		{"a bare CR in the request line", "GET /a HTTP/1.1\rHost: x\r\n\r\n", nil, http.StatusBadRequest},
		{"a NUL in a header", "GET /a HTTP/1.1\r\nHost: x\r\nX-Load: a\x00b\r\n\r\n" + smuggled, nil, http.StatusBadRequest},
		{"two Hosts", "GET /a HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n" + smuggled, nil, http.StatusBadRequest},
		{"HTTP/2.0 in the request line", "GET /a HTTP/2.0\r\nHost: x\r\n\r\n" + smuggled, nil, http.StatusHTTPVersionNotSupported},
		{"pipelined requests", "GET /a HTTP/1.1\r\nHost: x\r\n\r\nHEAD /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n", []string{"GET /a", "HEAD /b", "GET /c", "GET /after"}, 0},
		{"bare LF line ends, pipelined", "GET /a HTTP/1.1\nHost: x\n\nGET /b HTTP/1.1\nHost: x\n\n", []string{"GET /a", "GET /b", "GET /after"}, 0},
	} {
		var methods []string
		for _, s := range c.served {
			methods = append(methods, strings.Fields(s)[0])
		}
		answers := exchange(t, s.addr, c.request+after, methods...)
		served := h.take()
		if !slices.Equal(served, c.served) {
			t.Errorf("%s: the handler served %q, want %q", c.name, served, c.served)
		}
		want := len(c.served)
		if c.refused != 0 {
			want++
		}
		if len(answers) != want {
			t.Errorf("%s: %d answers, want %d", c.name, len(answers), want)
			continue
		}
		for i, a := range answers[:len(c.served)] {
			wantBody := c.served[i]
			if methods[i] == http.MethodHead {
				wantBody = ""
			}
			if a.status != http.StatusOK || a.body != wantBody {
				t.Errorf("%s: answer %d is %d %q, want 200 %q", c.name, i+1, a.status, a.body, wantBody)
			}
		}
		if c.refused != 0 {
			if got := answers[len(answers)-1].status; got != c.refused {
				t.Errorf("%s: refused with %d, want %d", c.name, got, c.refused)
			}
		}
	}
}

// TestHeaderBlocksAreCapped: a request line and header block within
// maxHeaderBlock is served, one past it is answered 431 and its
// connection closed, however the block is made up.
func TestHeaderBlocksAreCapped(t *testing.T) {
	s := serveOn(t, loopback(t), &recordingHandler{}, testLimits())
	// request builds a GET whose request line and header block (its
	// blank line included) are size bytes, made up by pad.
	request := func(size int, pad func(n int) string) string {
		head := "GET /a HTTP/1.1\r\nHost: x\r\n"
		return head + pad(size-len(head)-2) + "\r\n"
	}
	oneCookie := func(n int) string { return "Cookie: " + strings.Repeat("a", n-len("Cookie: \r\n")) + "\r\n" }
	manyHeaders := func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			line := fmt.Sprintf("X-Load-%04d: %s\r\n", i, strings.Repeat("b", 40))
			if rest := n - b.Len(); rest < len(line)+20 { // the last line takes the rest
				line = fmt.Sprintf("X-Last: %s\r\n", strings.Repeat("c", rest-len("X-Last: \r\n")))
			}
			b.WriteString(line)
		}
		return b.String()
	}
	longTarget := func(size int) string {
		return "GET /a?" + strings.Repeat("q", size-len("GET /a? HTTP/1.1\r\nHost: x\r\n\r\n")) + " HTTP/1.1\r\nHost: x\r\n\r\n"
	}
	for _, c := range []struct {
		name    string
		request string
		want    int
	}{
		{"a long cookie, just within", request(maxHeaderBlock-16, oneCookie), http.StatusOK},
		{"a long cookie, past the cap", request(maxHeaderBlock+16, oneCookie), http.StatusRequestHeaderFieldsTooLarge},
		{"many headers, just within", request(maxHeaderBlock-16, manyHeaders), http.StatusOK},
		{"many headers, past the cap", request(maxHeaderBlock+16, manyHeaders), http.StatusRequestHeaderFieldsTooLarge},
		{"a long target, just within", longTarget(maxHeaderBlock - 16), http.StatusOK},
		{"a long target, past the cap", longTarget(maxHeaderBlock + 16), http.StatusRequestHeaderFieldsTooLarge},
		{"a megabyte of headers", request(1<<20, manyHeaders), http.StatusRequestHeaderFieldsTooLarge},
	} {
		answers := exchange(t, s.addr, c.request+"GET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		if len(answers) == 0 || answers[0].status != c.want {
			var statuses []int
			for _, a := range answers {
				statuses = append(statuses, a.status)
			}
			t.Errorf("%s (%d bytes): answered %v, want %d first", c.name, len(c.request), statuses, c.want)
			continue
		}
		if c.want != http.StatusOK && len(answers) != 1 {
			t.Errorf("%s: %d answers, want the refusal alone (the connection closed)", c.name, len(answers))
		}
	}
}

// TestConnectionsPerClientAreCapped: a client (an IPv4 address here; an
// IPv6 /64 in TestIPv6ClientsAreCappedBySlash64) has at most perClient
// connections open; a further one is closed unanswered, one from another
// address is served, a trusted proxy has no cap, and a closed
// connection frees its place.
func TestConnectionsPerClientAreCapped(t *testing.T) {
	lim := testLimits()
	lim.perClient = 3
	s := serveOn(t, loopback(t), &recordingHandler{}, lim, netip.MustParsePrefix("127.0.0.3/32"))
	from := func(ip string) (net.Conn, error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
		return d.Dial("tcp", s.addr)
	}
	var first []net.Conn
	for range 3 {
		first = append(first, openServed(t, from, "127.0.0.1"))
	}
	expectRefused(t, from, "127.0.0.1", "a fourth connection from 127.0.0.1")
	other := openServed(t, from, "127.0.0.2")
	for range 5 {
		openServed(t, from, "127.0.0.3") // the proxy
	}
	first[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for !served(from, "127.0.0.1") { // net/http notices the close when it reads
		if time.Now().After(deadline) {
			t.Fatal("a closed connection did not free its place")
		}
		time.Sleep(20 * time.Millisecond)
	}
	other.Close()
}

// openServed opens a connection from ip, has a request answered on it
// and leaves it open (kept alive) to the end of the test.
func openServed(t *testing.T, from func(string) (net.Conn, error), ip string) net.Conn {
	t.Helper()
	c, err := from(ip)
	if err != nil {
		t.Fatalf("connecting from %s: %v", ip, err)
	}
	t.Cleanup(func() { c.Close() })
	if err := request(c); err != nil {
		t.Fatalf("a connection from %s within the cap: %v", ip, err)
	}
	return c
}

// served reports whether a new connection from ip is answered.
func served(from func(string) (net.Conn, error), ip string) bool {
	c, err := from(ip)
	if err != nil {
		return false
	}
	defer c.Close()
	return request(c) == nil
}

func expectRefused(t *testing.T, from func(string) (net.Conn, error), ip, what string) {
	t.Helper()
	if c, err := from(ip); err == nil {
		defer c.Close()
		if err := request(c); err == nil {
			t.Errorf("%s was answered, want it closed", what)
		}
	}
}

// request sends a GET on c and reads its answer.
func request(c net.Conn) error {
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// TestIPv6ClientsAreCappedBySlash64: the addresses of one /64 share a
// cap, another /64 has its own. It runs in a network namespace of its
// own with documentation addresses on its loopback interface (root, or
// CAP_NET_ADMIN and user namespaces, and ip(8) are needed).
func TestIPv6ClientsAreCappedBySlash64(t *testing.T) {
	ns := newNetworkNamespace(t, "2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:3::1")
	var ln net.Listener
	var err error
	ns.do(func() { ln, err = net.Listen("tcp", "[2001:db8:1:2::1]:0") })
	if err != nil {
		t.Fatal(err)
	}
	lim := testLimits()
	lim.perClient = 2
	s := serveOn(t, ln, &recordingHandler{}, lim)
	from := func(ip string) (c net.Conn, err error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
		ns.do(func() { c, err = d.Dial("tcp", s.addr) })
		return c, err
	}
	openServed(t, from, "2001:db8:1:2::1")
	openServed(t, from, "2001:db8:1:2::2")
	expectRefused(t, from, "2001:db8:1:2::1", "a third connection from 2001:db8:1:2::/64")
	expectRefused(t, from, "2001:db8:1:2::2", "a third connection from 2001:db8:1:2::/64, from its other address")
	openServed(t, from, "2001:db8:1:3::1")
}

// networkNamespace is a thread in a network namespace of its own: the
// sockets made in do are in the namespace (and stay there, whichever
// thread uses them after).
type networkNamespace struct{ calls chan func() }

// newNetworkNamespace makes a network namespace whose loopback interface
// is up and has addrs (each in its /64), for the rest of the test; it
// skips the test where the machine does not allow that.
func newNetworkNamespace(t *testing.T, addrs ...string) *networkNamespace {
	ip, err := exec.LookPath("ip")
	if err != nil {
		t.Skip("ip(8) is missing (iproute2): cannot put IPv6 addresses on a namespace's loopback")
	}
	ns := &networkNamespace{calls: make(chan func())}
	ready := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine, and the namespace with it
		if err := syscall.Unshare(syscall.CLONE_NEWNET); err != nil {
			ready <- fmt.Errorf("cannot make a network namespace (unshare: %w): run as root to test IPv6 /64 caps", err)
			return
		}
		commands := [][]string{{"link", "set", "lo", "up"}}
		for _, a := range addrs {
			commands = append(commands, []string{"-6", "addr", "add", a + "/64", "dev", "lo", "nodad"})
		}
		for _, args := range commands {
			if out, err := exec.Command(ip, args...).CombinedOutput(); err != nil {
				ready <- fmt.Errorf("ip %s in a new network namespace: %v: %s", strings.Join(args, " "), err, out)
				return
			}
		}
		for _, a := range addrs {
			if err := awaitConnections(a); err != nil {
				ready <- err
				return
			}
		}
		ready <- nil
		for f := range ns.calls {
			f()
		}
	}()
	if err := <-ready; err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { close(ns.calls) })
	return ns
}

// awaitConnections returns once a connection from addr to a listener on
// addr is taken in this thread's network namespace. A connection made
// the moment ip(8) has added the addresses can go unanswered and fail a
// second later with "network is unreachable", which the test would read
// as a refusal; a short dial timeout tries again sooner.
func awaitConnections(addr string) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		return err
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(addr)}, Timeout: 300 * time.Millisecond}
		c, err := d.Dial("tcp", ln.Addr().String())
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s takes no connection in the new network namespace: %w", addr, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// do runs f on the namespace's thread.
func (ns *networkNamespace) do(f func()) {
	done := make(chan struct{})
	ns.calls <- func() { f(); close(done) }
	<-done
}

// TestServeStops: on stop an idle connection closes at once, a request
// under way is answered (with Connection: close) and its connection then
// closes, and the stop returns.
func TestServeStops(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(started)
			<-release
		}
		fmt.Fprint(w, "done")
	})
	lim := testLimits()
	lim.stop = 5 * time.Second
	s := serveOn(t, loopback(t), h, lim)

	idle, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if err := request(idle); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	io.WriteString(busy, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	<-started
	s.stop()
	time.Sleep(100 * time.Millisecond) // the stop is under way
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := idle.Read(make([]byte, 1)); err == nil {
		t.Errorf("the idle connection read %d bytes after the stop, want it closed", n)
	}
	close(release)
	busy.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(busy), nil)
	if err != nil {
		t.Fatalf("the request under way at the stop: %v", err)
	}
	if b, _ := io.ReadAll(resp.Body); string(b) != "done" || !resp.Close {
		t.Errorf("the request under way at the stop: %q, close %v; want done, closing", b, resp.Close)
	}
	select {
	case <-s.done:
		if s.err != nil {
			t.Errorf("stop: %v", s.err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the server did not stop")
	}
}

// TestSlowClientsAreClosed: a header block that does not come whole in
// time, and a connection idle past its time, are closed (a client
// holding connections open with a request it never finishes gains
// nothing).
func TestSlowClientsAreClosed(t *testing.T) {
	lim := testLimits()
	lim.headerTimeout, lim.idleTimeout = 200*time.Millisecond, 400*time.Millisecond
	s := serveOn(t, loopback(t), &recordingHandler{}, lim)
	closedWithin := func(c net.Conn, d time.Duration) bool {
		start := time.Now()
		c.SetReadDeadline(start.Add(5 * time.Second))
		_, err := io.Copy(io.Discard, c) // a 408 may come first
		return err == nil && time.Since(start) < d
	}
	slow, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	for _, part := range []string{"GET / HTTP/1.1\r\n", "Host: x\r\n"} { // never the blank line
		io.WriteString(slow, part)
		time.Sleep(50 * time.Millisecond)
	}
	if !closedWithin(slow, 2*time.Second) {
		t.Error("a header block that never ends: the connection stayed open")
	}
	idle, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if err := request(idle); err != nil {
		t.Fatal(err)
	}
	if !closedWithin(idle, 2*time.Second) {
		t.Error("an idle connection stayed open past its time")
	}
}

// testPage is testSite's home page: 9 KB, more than net/http's buffer.
var testPage = strings.Repeat("<p>A truck leaves Pune for Nagpur at dawn.</p>\n", 200)

// testHeaders is testSite's _headers, shaped as a build writes it.
const testHeaders = `/*
  Content-Security-Policy: default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'self'; object-src 'none'
  X-Content-Type-Options: nosniff
  Referrer-Policy: strict-origin-when-cross-origin
  X-Frame-Options: DENY
  Permissions-Policy: camera=(), microphone=(), geolocation=()
  Cross-Origin-Opener-Policy: same-origin
/assets/build/*
  Cache-Control: public, max-age=31536000, immutable
`

// testSite is formapi's handler, as serve runs it, on a small built
// site (a home page with its gzip file, a 404 page) and a database,
// answering hosts; extra, when given, answers before the site.
func testSite(t testing.TB, hosts *formapi.Hosts, extra *http.ServeMux) http.Handler {
	dist := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dist, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(testPage))
	zw.Close()
	for name, body := range map[string]string{
		"routes.json":        `{"prefixes":[""],"routes":["/","/home"]}`,
		"index.html":         testPage,
		"home/index.html":    testPage,
		"home/index.html.gz": gz.String(),
		"404.html":           "<p>No such page.</p>",
		"_headers":           testHeaders,
	} {
		if err := os.WriteFile(filepath.Join(dist, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	handler, err := site.Site(dist, nil)
	if err != nil {
		t.Fatal(err)
	}
	if extra != nil {
		extra.Handle("/", handler)
		handler = extra
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "site.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	log, stop := newLogger(io.Discard)
	t.Cleanup(stop)
	settings := data.Site()
	return formapi.NewServer(formapi.Config{Logger: log, Site: handler, Store: db, Secret: []byte("a secret of the test, 32 bytes.."), Hosts: hosts,
		SiteName: settings.Name, Languages: settings.Languages, Provider: settings.Provider, Accounts: formapi.AccountOptions{BaseURL: settings.BaseURL}})
}

// siteHeaders are headers every answer of the site carries, refusals
// included.
var siteHeaders = []string{"X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options", "Content-Security-Policy", "X-Request-Id"}

func missingHeaders(h http.Header) []string {
	var missing []string
	for _, k := range siteHeaders {
		if h.Get(k) == "" {
			missing = append(missing, k)
		}
	}
	return missing
}

// TestServerOptions: OPTIONS * (the server as a whole) reaches the
// handler, which answers 204 with the site's headers; any other method
// on * is a 400 with them, and OPTIONS of a page or a call a 405.
func TestServerOptions(t *testing.T) {
	s := serveOn(t, loopback(t), testSite(t, nil, nil), testLimits())
	for _, c := range []struct {
		name, request string
		status        int
		allow         string
	}{
		{"OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", http.StatusNoContent, "GET, HEAD, POST"},
		{"OPTIONS * in HTTP/1.0", "OPTIONS * HTTP/1.0\r\n\r\n", http.StatusNoContent, "GET, HEAD, POST"},
		{"GET *", "GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", http.StatusBadRequest, ""},
		{"POST *", "POST * HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", http.StatusBadRequest, ""},
		{"OPTIONS of a page", "OPTIONS /home HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"OPTIONS of a call", "OPTIONS /api/news HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", http.StatusMethodNotAllowed, ""},
	} {
		answers := exchange(t, s.addr, c.request)
		if len(answers) != 1 {
			t.Errorf("%s: %d answers, want 1", c.name, len(answers))
			continue
		}
		a := answers[0]
		if a.status != c.status {
			t.Errorf("%s: status %d, want %d", c.name, a.status, c.status)
		}
		if missing := missingHeaders(a.header); len(missing) > 0 {
			t.Errorf("%s: no %v in the answer", c.name, missing)
		}
		if c.allow != "" && a.header.Get("Allow") != c.allow {
			t.Errorf("%s: Allow %q, want %q", c.name, a.header.Get("Allow"), c.allow)
		}
	}
}

// TestHostsAnswered: serve with a base URL that is not localhost answers
// only the base URL's host, its tenants and the other site origins (421
// with the site's headers otherwise, probes on any host); dev answers
// only localhost names and its own address. Each Host is sent as it is,
// on a raw connection.
func TestHostsAnswered(t *testing.T) {
	site, err := formapi.SiteHosts("https://freight.example.com/", []string{"https://pune-freight.example.net:8443"})
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]string{
		"serve": serveOn(t, loopback(t), testSite(t, site, nil), testLimits()).addr,
		"dev":   serveOn(t, loopback(t), testSite(t, formapi.LocalHosts(), nil), testLimits()).addr,
	}
	ln, err := net.Listen("tcp", "127.0.0.2:0") // another loopback address: its own, not a localhost name
	if err != nil {
		t.Fatal(err)
	}
	servers["dev on 127.0.0.2"] = serveOn(t, ln, testSite(t, formapi.LocalHosts(), nil), testLimits()).addr
	for _, c := range []struct {
		server, host, path string
		want               int
	}{
		{"serve", "freight.example.com", "/home", http.StatusOK},
		{"serve", "FREIGHT.Example.com.", "/home", http.StatusOK},
		{"serve", "freight.example.com:8080", "/home", http.StatusOK},
		{"serve", "acme.freight.example.com", "/home", http.StatusOK},
		{"serve", "acme.freight.example.com", "/api/news", http.StatusOK},
		{"serve", "pune-freight.example.net", "/home", http.StatusOK},
		{"serve", "pune-freight.example.net:8443", "/home", http.StatusOK},
		{"serve", "a.b.freight.example.com", "/home", http.StatusMisdirectedRequest},
		{"serve", "evil.example", "/home", http.StatusMisdirectedRequest},
		{"serve", "evil.example", "/api/news", http.StatusMisdirectedRequest},
		{"serve", "freight.example.com.evil.example", "/home", http.StatusMisdirectedRequest},
		{"serve", "xfreight.example.com", "/home", http.StatusMisdirectedRequest},
		{"serve", "127.0.0.1", "/home", http.StatusMisdirectedRequest},
		{"serve", "localhost", "/home", http.StatusMisdirectedRequest},
		{"serve", "evil.example", "/healthz", http.StatusOK},
		{"serve", "127.0.0.1:8080", "/healthz", http.StatusOK},
		{"dev", "localhost", "/home", http.StatusOK},
		{"dev", "localhost:8080", "/home", http.StatusOK},
		{"dev", "site.localhost", "/home", http.StatusOK},
		{"dev", "127.0.0.1", "/home", http.StatusOK},
		{"dev", "[::1]:8080", "/home", http.StatusOK},
		{"dev", "evil.example", "/home", http.StatusMisdirectedRequest},
		{"dev", "localhost.evil.example", "/home", http.StatusMisdirectedRequest},
		{"dev", "127.0.0.1.nip.io", "/home", http.StatusMisdirectedRequest},
		{"dev", "192.168.1.20", "/home", http.StatusMisdirectedRequest},
		{"dev on 127.0.0.2", "127.0.0.2", "/home", http.StatusOK},
		{"dev on 127.0.0.2", "10.0.0.2", "/home", http.StatusMisdirectedRequest},
	} {
		answers := exchange(t, servers[c.server], "GET "+c.path+" HTTP/1.1\r\nHost: "+c.host+"\r\nConnection: close\r\n\r\n")
		if len(answers) != 1 {
			t.Errorf("%s, Host %s: %d answers, want 1", c.server, c.host, len(answers))
			continue
		}
		a := answers[0]
		if a.status != c.want {
			t.Errorf("%s, Host %s, %s: status %d, want %d", c.server, c.host, c.path, a.status, c.want)
		}
		if a.status == http.StatusMisdirectedRequest {
			if missing := missingHeaders(a.header); len(missing) > 0 {
				t.Errorf("%s, Host %s: the 421 has no %v", c.server, c.host, missing)
			}
		}
	}
	// An absolute target names the host instead of the Host header, and
	// is judged by it.
	if a := exchange(t, servers["serve"], "GET http://evil.example/home HTTP/1.1\r\nHost: freight.example.com\r\nConnection: close\r\n\r\n"); len(a) != 1 || a[0].status != http.StatusMisdirectedRequest {
		t.Errorf("an absolute target on another host: %v, want one 421", a)
	}
}

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
	next := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, r *http.Request) {
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
	ln := &countingListener{Listener: loopback(t)}
	base := "http://" + serveOn(t, ln, testSite(t, nil, mux), testLimits()).addr

	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	for _, when := range []string{"first", "prepared"} {
		before := ln.writes.Load()
		resp, err := client.Get(base + "/home")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || string(body) != testPage {
			t.Fatalf("%s answer: status %d, %d bytes (want %d), %v", when, resp.StatusCode, len(body), len(testPage), err)
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
	// The events come on a GET, as an EventSource asks for dev's: the
	// handler holds the second until the client has the first, so only
	// the flush can have sent it.
	resp, err = expecting.Get(base + "/events")
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
	// (The client gives up after 10 s.) The call's answer names the
	// field the body left empty: the body was read.
	req, _ := http.NewRequest(http.MethodPost, base+"/api/contact_us", strings.NewReader(`{"name":"a load of onions for Lasalgaon"}`))
	req.Header.Set("X-XSRF-TOKEN", token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Expect", "100-continue")
	resp, err = expecting.Do(req)
	if err != nil {
		t.Fatalf("a post that waits for 100 Continue: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"email"`) {
		t.Errorf("a post that waits for 100 Continue: status %d, %s; want the call's answer naming the empty fields", resp.StatusCode, body)
	}
}

// BenchmarkStaticAnswer is a plain GET of a page with gzip, as serve
// answers it: through the handler alone (formapi's middleware and the
// site, into a ResponseWriter that, as net/http's, starts each answer
// with a new header map), and through net/http on a loopback connection,
// where server-allocs/op is what the server allocates an answer (the
// client's own allocations, measured apart, taken off).
//
//	go test ./internal/server -run '^$' -bench StaticAnswer -benchmem
func BenchmarkStaticAnswer(b *testing.B) {
	h := testSite(b, nil, nil)
	b.Run("handler", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodGet, "/home", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		w := &discardWriter{}
		b.ReportAllocs()
		for b.Loop() {
			w.header, w.status = http.Header{}, 0
			h.ServeHTTP(w, req)
			if w.status != http.StatusOK {
				b.Fatalf("status %d", w.status)
			}
		}
	})
	b.Run("net/http", func(b *testing.B) {
		s := serveOn(b, loopback(b), h, testLimits())
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		br := bufio.NewReader(c)
		request := []byte("GET /home HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
		var last bytes.Buffer
		roundTrip := func(record bool) {
			if _, err := c.Write(request); err != nil {
				b.Fatal(err)
			}
			var r io.Reader = br
			if record {
				last.Reset()
				r = io.TeeReader(br, &last)
			}
			resp, err := http.ReadResponse(bufio.NewReader(r), nil)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		roundTrip(true)
		answer := last.Bytes()
		rd := bytes.NewReader(answer)
		pbr := bufio.NewReader(rd)
		client := testing.AllocsPerRun(100, func() {
			rd.Reset(answer)
			pbr.Reset(rd)
			resp, _ := http.ReadResponse(pbr, nil)
			io.Copy(io.Discard, resp.Body)
		})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n := 0
		for b.Loop() {
			roundTrip(false)
			n++
		}
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n)-client, "server-allocs/op")
	})
}

// discardWriter is a ResponseWriter that keeps the status and drops the
// body.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header { return w.header }
func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(p), nil
}
