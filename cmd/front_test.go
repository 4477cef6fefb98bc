package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// frontCases is a handler that answers in each of the ways a page or
// file can be answered, and says which server ran it (net/http gives its
// requests their server in their context; front does not).
func frontCases() http.Handler {
	mod := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	file := strings.Repeat("Nashik onions, 12 tonnes, Vashi market.\n", 300) // 12 KB
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Add("Link", "</a.css>; rel=preload")
		w.Header().Add("Link", "</b.js>; rel=preload")
		w.Header()["X-Broken"] = []string{" two\r\nlines\t"}
		w.Header()["Bad Name"] = []string{"left out"}
		fmt.Fprint(w, "<h1>Freight</h1>")
	})
	mux.HandleFunc("/sniffed", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<!doctype html><p>no type set")
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/late", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Early", "1")
		w.WriteHeader(http.StatusTeapot)
		w.Header().Set("X-Late", "not sent")
		fmt.Fprint(w, "short and stout")
	})
	mux.HandleFunc("/nocontent", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5")
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "f.txt", mod, strings.NewReader(file))
	})
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page?from="+r.URL.Query().Get("q"), http.StatusMovedPermanently)
	})
	mux.HandleFunc("/closing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		fmt.Fprint(w, "bye")
	})
	who := func(w http.ResponseWriter, r *http.Request) {
		if r.Context().Value(http.ServerContextKey) != nil {
			fmt.Fprint(w, "net/http")
		} else {
			fmt.Fprint(w, "front")
		}
		io.Copy(io.Discard, r.Body)
	}
	mux.HandleFunc("/who", who)
	mux.HandleFunc("/api/who", who)
	return mux
}

// serveWithFront runs listenAndServe (front before net/http) on h on a
// loopback port and returns its address.
func serveWithFront(t *testing.T, h http.Handler) string {
	return serveOn(t, loopback(t), h, true, time.Second).addr
}

func loopback(t *testing.T) net.Listener {
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

// serveOn runs listenAndServe on ln and h, with answersPlain and the
// stop's deadline grace, until stop or the end of the test.
func serveOn(t *testing.T, ln net.Listener, h http.Handler, answersPlain bool, grace time.Duration) *testServer {
	ctx, stop := context.WithCancel(context.Background())
	s := &testServer{addr: ln.Addr().String(), stop: stop, done: make(chan struct{})}
	go func() {
		s.err = listenAndServe(ctx, slog.New(slog.DiscardHandler), ln, grace, h, newDrain(nil), answersPlain)
		close(s.done)
	}()
	t.Cleanup(func() { stop(); <-s.done })
	return s
}

// exchange sends raw on a new connection and reads n answers.
func exchange(t *testing.T, addr, raw string, n int, head bool) []*http.Response {
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
	var out []*http.Response
	for range n {
		req := &http.Request{Method: http.MethodGet}
		if head {
			req.Method = http.MethodHead
		}
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatalf("%q: answer %d: %v", raw, len(out)+1, err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%q: answer %d body: %v", raw, len(out)+1, err)
		}
		resp.Body = io.NopCloser(strings.NewReader(string(body)))
		out = append(out, resp)
	}
	return out
}

// TestFrontAnswersAsNetHTTPDoes: each plain request gets from front the
// answer net/http gives (status, every header but Date, body, framing),
// and front answered it.
func TestFrontAnswersAsNetHTTPDoes(t *testing.T) {
	h := frontCases()
	front := serveWithFront(t, h)
	plainServer := httptest.NewServer(h)
	t.Cleanup(plainServer.Close)
	std := strings.TrimPrefix(plainServer.URL, "http://")

	for _, c := range []struct{ name, request string }{
		{"a page", "GET /page HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"a page's head", "HEAD /page HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"a sniffed type", "GET /sniffed HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"nothing written", "GET /empty HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"nothing written, head", "HEAD /empty HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"a header set after the status", "GET /late HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"204", "GET /nocontent HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"a file", "GET /file HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"},
		{"a file's head", "HEAD /file HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"a file not modified", "GET /file HTTP/1.1\r\nHost: x\r\nIf-Modified-Since: Mon, 02 Nov 2026 08:00:00 GMT\r\n\r\n"},
		{"a file's range", "GET /file HTTP/1.1\r\nHost: x\r\nRange: bytes=10-99\r\n\r\n"},
		{"a file's ranges", "GET /file HTTP/1.1\r\nHost: x\r\nRange: bytes=0-9,20-29\r\n\r\n"},
		{"a redirect", "GET /gone?q=a%20b HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"no such page", "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"a close asked for by the handler", "GET /closing HTTP/1.1\r\nHost: x\r\n\r\n"},
	} {
		head := strings.HasPrefix(c.request, "HEAD")
		want := exchange(t, std, c.request, 1, head)[0]
		got := exchange(t, front, c.request, 1, head)[0]
		if got.StatusCode != want.StatusCode {
			t.Errorf("%s: status %d, net/http %d", c.name, got.StatusCode, want.StatusCode)
		}
		for _, resp := range []*http.Response{got, want} {
			resp.Header.Del("Date")
			if _, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); params["boundary"] != "" { // random
				b := params["boundary"]
				resp.Header.Set("Content-Type", strings.ReplaceAll(resp.Header.Get("Content-Type"), b, "BOUNDARY"))
				resp.Body = io.NopCloser(strings.NewReader(strings.ReplaceAll(body(t, resp), b, "BOUNDARY")))
			}
			if resp.Header.Get("Content-Type") == "" {
				resp.Header.Del("Content-Type")
			}
		}
		if fmt.Sprint(got.Header) != fmt.Sprint(want.Header) {
			t.Errorf("%s: headers\n%v\nnet/http's\n%v", c.name, got.Header, want.Header)
		}
		if got.ContentLength != want.ContentLength || got.Close != want.Close || !slices.Equal(got.TransferEncoding, want.TransferEncoding) {
			t.Errorf("%s: length %d, close %v, %v; net/http's %d, %v, %v", c.name, got.ContentLength, got.Close, got.TransferEncoding, want.ContentLength, want.Close, want.TransferEncoding)
		}
		gotBody, _ := io.ReadAll(got.Body)
		wantBody, _ := io.ReadAll(want.Body)
		if string(gotBody) != string(wantBody) {
			t.Errorf("%s: body %q, net/http's %q", c.name, gotBody, wantBody)
		}
	}
	// Answers with other headers, one after the other on a connection:
	// each has its own (front keeps the last answer's header names).
	var requests string
	paths := []string{"/page", "/late", "/page", "/sniffed", "/nocontent", "/page"}
	for _, p := range paths {
		requests += "GET " + p + " HTTP/1.1\r\nHost: x\r\n\r\n"
	}
	for i, got := range exchange(t, front, requests, len(paths), false) {
		want := exchange(t, std, "GET "+paths[i]+" HTTP/1.1\r\nHost: x\r\n\r\n", 1, false)[0]
		got.Header.Del("Date")
		want.Header.Del("Date")
		if fmt.Sprint(got.Header) != fmt.Sprint(want.Header) {
			t.Errorf("answer %d on one connection, %s: headers\n%v\nnet/http's\n%v", i+1, paths[i], got.Header, want.Header)
		}
	}
	if who := body(t, exchange(t, front, "GET /who HTTP/1.1\r\nHost: x\r\n\r\n", 1, false)[0]); who != "front" {
		t.Errorf("a plain GET was answered by %s, want front", who)
	}
	// Without answersPlain (dev, api) net/http answers everything.
	without := serveOn(t, loopback(t), h, false, time.Second).addr
	if who := body(t, exchange(t, without, "GET /who HTTP/1.1\r\nHost: x\r\n\r\n", 1, false)[0]); who != "net/http" {
		t.Errorf("without answersPlain a plain GET was answered by %s, want net/http", who)
	}
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFrontHandsTheRestToNetHTTP: a request front does not answer itself
// goes, with everything read after it, to net/http, which answers it and
// the connection's later requests as it always did: a post (after a GET
// on the same connection, and pipelined behind one), an API call, a
// request it cannot parse, one without a Host, one of HTTP/1.0, one that
// asks to close, one with bare LF line ends, one with a header block
// past frontMaxHead.
func TestFrontHandsTheRestToNetHTTP(t *testing.T) {
	addr := serveWithFront(t, frontCases())
	get := "GET /who HTTP/1.1\r\nHost: x\r\n\r\n"
	post := "POST /who HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
	for _, c := range []struct {
		name, request string
		want          []string
	}{
		{"GET, POST, GET on one connection, pipelined", get + post + get, []string{"front", "net/http", "net/http"}},
		{"an API call", "GET /api/who HTTP/1.1\r\nHost: x\r\n\r\n" + get, []string{"net/http", "net/http"}},
		{"HTTP/1.0", "GET /who HTTP/1.0\r\nHost: x\r\n\r\n", []string{"net/http"}},
		{"a close asked for", "GET /who HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", []string{"net/http"}},
		{"bare LF", "GET /who HTTP/1.1\nHost: x\n\n", []string{"net/http"}},
		{"a long header block", "GET /who HTTP/1.1\r\nHost: x\r\nCookie: " + strings.Repeat("a", frontMaxHead) + "\r\n\r\n", []string{"net/http"}},
		{"a body on a GET", "GET /who HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi", []string{"net/http"}},
	} {
		var got []string
		for _, resp := range exchange(t, addr, c.request, len(c.want), false) {
			got = append(got, body(t, resp))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: answered by %v, want %v", c.name, got, c.want)
		}
	}
	for _, c := range []struct{ name, request string }{
		{"no Host", "GET /who HTTP/1.1\r\n\r\n"},
		{"an unparsable request line", "GET /who\r\nHost: x\r\n\r\n"},
		{"a bad header", "GET /who HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n"},
		{"a bad Host", "GET /who HTTP/1.1\r\nHost: x y\r\n\r\n"},
	} {
		if resp := exchange(t, addr, c.request, 1, false)[0]; resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want net/http's 400", c.name, resp.StatusCode)
		}
	}
}

// TestFrontStops: on stop an idle connection closes at once, a request
// under way is answered (with Connection: close) and its connection then
// closes, and the stop returns.
func TestFrontStops(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(started)
			<-release
		}
		fmt.Fprint(w, "done")
	})
	s := serveOn(t, loopback(t), h, true, 5*time.Second)

	idle := exchangeOpen(t, s.addr, "GET /quick HTTP/1.1\r\nHost: x\r\n\r\n")
	busy, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	io.WriteString(busy, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	<-started
	s.stop()
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
	if got := body(t, resp); got != "done" || !resp.Close {
		t.Errorf("the request under way at the stop: %q, close %v; want done, closing", got, resp.Close)
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

// exchangeOpen sends a request and reads its answer, leaving the
// connection open.
func exchangeOpen(t *testing.T, addr, raw string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	io.WriteString(c, raw)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body(t, resp)
	return c
}

// TestFrontTimesOut: a header block that does not come whole in time,
// and a connection idle past its time, are closed (a client holding
// connections open with a request it never finishes gains nothing).
func TestFrontTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f := newFront(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }),
		slog.New(slog.DiscardHandler), ln.Addr(), func(net.Conn, http.ConnState) {}, true)
	f.headTimeout, f.idleTimeout = 200*time.Millisecond, 400*time.Millisecond
	go f.accept(ln)

	closedWithin := func(c net.Conn, d time.Duration) bool {
		start := time.Now()
		c.SetReadDeadline(start.Add(5 * time.Second))
		_, err := c.Read(make([]byte, 1))
		return err != nil && time.Since(start) < d
	}
	slow, err := net.Dial("tcp", ln.Addr().String())
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
	idle := exchangeOpen(t, ln.Addr().String(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if !closedWithin(idle, 2*time.Second) {
		t.Error("an idle connection stayed open past its time")
	}
}
