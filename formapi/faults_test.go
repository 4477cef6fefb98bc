package formapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"freightsite/data"
	"freightsite/internal/store"
)

// faultServer is the API over real HTTP with the given read timeout (the
// write timeout alike, so a late answer must make its own time) and
// upload rate, logging to logs.
func faultServer(t *testing.T, timeout time.Duration, uploads UploadRate, logs *lockedLog) (addr, token string, routes []routeUnderTest) {
	t.Helper()
	st, err := store.Open(testDB(t, "faults.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := st.Secret(context.Background(), "")
	rates := map[string]Rate{}
	for k := range DefaultRates {
		rates[k] = Rate{}
	}
	cfg := Config{Store: st, Secret: secret, Rates: rates, Uploads: uploads, Logger: slog.New(slog.NewTextHandler(logs, nil)),
		Provider: data.Provider{Name: "P", Email: "p@example.com"}, Accounts: AccountOptions{BaseURL: data.Site().BaseURL, CaptchaMaxNumber: 100}}
	withSite(&cfg)
	handler, router := newServer(cfg)
	srv := httptest.NewUnstartedServer(handler)
	srv.Config.ReadTimeout = timeout
	srv.Config.WriteTimeout = timeout
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		st.Close()
	})
	return srv.Listener.Addr().String(), issuedToken(t, srv), walkRoutes(t, router)
}

// bodyKind is how a route's body is sent: content type, headers and the
// start of a body.
func bodyKind(path string) (header, start string) {
	switch path {
	case "/api/error_feedback":
		return "Content-Type: multipart/form-data; boundary=XYZ\r\n", "--XYZ\r\nContent-Disposition: form-data; name=\"feedback\"\r\n\r\nThe page is"
	case "/api/import/validate", "/api/import/fix":
		return "Content-Type: multipart/form-data; boundary=XYZ\r\n", "--XYZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\nAccount Number,Company"
	case "/auth":
		return "Content-Type: application/x-www-form-urlencoded\r\nX-Requested-With: XMLHttpRequest\r\n", "username=ravi%40carriers.example&pass"
	case "/api/email/uniqueness":
		return "Content-Type: " + uniquenessMediaType + "\r\nX-Requested-With: XMLHttpRequest\r\n", `{"email":"ravi@carr`
	}
	return "Content-Type: application/json\r\n", `{"name":"Ravi","em`
}

// rawPost sends a POST's head and first bytes, then what after does
// (half-close, wait), and reads the answer.
func rawPost(t *testing.T, addr, token, path, head, body string, after func(*net.TCPConn)) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nCookie: %s=%s\r\n%s: %s\r\n%s\r\n%s", path, addr, xsrfCookie, token, xsrfHeader, token, head, body)
	after(c.(*net.TCPConn))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("POST %s: no answer: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestClientBodyFaults: on every route that reads a body, the client's
// own faults are answered 400 (a body cut short of its Content-Length or
// of a chunk's size, a chunked body without its last chunk, malformed
// chunk sizes and chunk ends) or 408 (a body, plain or chunked, that stops
// coming before the read deadline), with the API's JSON error and
// headers, logged as a client fault, never a 500. The 400 faults go to a
// server with a long read timeout, so a loaded machine cannot turn one
// into a 408.
func TestClientBodyFaults(t *testing.T) {
	logs := &lockedLog{}
	patient := UploadRate{MinBytesPerSecond: 1 << 20, Grace: time.Minute, Max: time.Minute}
	patientAddr, patientToken, routes := faultServer(t, time.Minute, patient, logs)
	hastyAddr, hastyToken, _ := faultServer(t, 400*time.Millisecond, UploadRate{MinBytesPerSecond: 1 << 20, Grace: 300 * time.Millisecond, Max: time.Minute}, logs)
	chunk := func(s string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(s), s) }
	halfClose := func(c *net.TCPConn) { c.CloseWrite() }
	keepOpen := func(*net.TCPConn) {}
	faults := []struct {
		name   string
		status int
		send   func(kind, start string) (head, body string, after func(*net.TCPConn))
	}{
		{"cut short of its Content-Length", http.StatusBadRequest, func(kind, start string) (string, string, func(*net.TCPConn)) {
			return kind + "Content-Length: 4000\r\n", start, halfClose
		}},
		{"cut short of a chunk's size", http.StatusBadRequest, func(kind, start string) (string, string, func(*net.TCPConn)) {
			return kind + "Transfer-Encoding: chunked\r\n", fmt.Sprintf("%x\r\n%s", len(start)+4000, start), halfClose
		}},
		{"chunked without its last chunk", http.StatusBadRequest, func(kind, start string) (string, string, func(*net.TCPConn)) {
			return kind + "Transfer-Encoding: chunked\r\n", chunk(start), halfClose
		}},
		{"a malformed chunk size", http.StatusBadRequest, func(kind, start string) (string, string, func(*net.TCPConn)) {
			return kind + "Transfer-Encoding: chunked\r\n", chunk(start) + "zz\r\nmore\r\n0\r\n\r\n", keepOpen
		}},
		{"a chunk size past 64 bits", http.StatusBadRequest, func(kind, start string) (string, string, func(*net.TCPConn)) {
			return kind + "Transfer-Encoding: chunked\r\n", chunk(start) + "1ffffffffffffffff\r\nmore\r\n0\r\n\r\n", keepOpen
		}},
		{"a chunk without its line end", http.StatusBadRequest, func(kind, start string) (string, string, func(*net.TCPConn)) {
			return kind + "Transfer-Encoding: chunked\r\n", fmt.Sprintf("%x\r\n%sXY", len(start), start) + chunk("more") + "0\r\n\r\n", keepOpen
		}},
		{"stopped before the read deadline", http.StatusRequestTimeout, func(kind, start string) (string, string, func(*net.TCPConn)) {
			return kind + "Content-Length: 4000\r\n", start, keepOpen
		}},
		{"chunked, stopped before the read deadline", http.StatusRequestTimeout, func(kind, start string) (string, string, func(*net.TCPConn)) {
			return kind + "Transfer-Encoding: chunked\r\n", chunk(start), keepOpen
		}},
	}
	var checked []string
	for _, r := range routes {
		if r.method != http.MethodPost || r.path == "/api/logout" { // logout reads no body
			continue
		}
		checked = append(checked, r.path)
		kind, start := bodyKind(r.path)
		for _, f := range faults {
			addr, token := patientAddr, patientToken
			if f.status == http.StatusRequestTimeout {
				addr, token = hastyAddr, hastyToken
			}
			head, body, after := f.send(kind, start)
			resp, answer := rawPost(t, addr, token, r.path, head, body, after)
			if resp.StatusCode != f.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !strings.Contains(answer, `"error":"the request body`) {
				t.Errorf("POST %s, %s: %d %s, want %d and a JSON error", r.path, f.name, resp.StatusCode, answer, f.status)
			}
			if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") || resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("POST %s, %s: the answer lacks the API's headers: %v", r.path, f.name, resp.Header)
			}
		}
	}
	if len(checked) < 10 {
		t.Fatalf("only %d routes checked: %v", len(checked), checked)
	}
	text := logs.String()
	if strings.Contains(text, "status=500") {
		t.Errorf("a client's fault was logged as a server error:\n%s", text)
	}
	if n := strings.Count(text, `err="client fault: reading the request body`); n != len(checked)*len(faults) {
		t.Errorf("%d request lines name a client fault, want %d:\n%s", n, len(checked)*len(faults), text)
	}
	t.Logf("%d routes: %s", len(checked), strings.Join(checked, ", "))
}

// TestUploadsNeedAMinimumRate: the upload calls take longer than the
// server's read timeout while the body keeps coming at the minimum rate,
// answer 408 after the grace period when it trickles in slower, and 408 at
// the upload's time limit whatever the rate: each time before the client
// has sent its body.
func TestUploadsNeedAMinimumRate(t *testing.T) {
	addr, token, _ := faultServer(t, 400*time.Millisecond, UploadRate{MinBytesPerSecond: 2000, Grace: 300 * time.Millisecond, Max: 2 * time.Second}, &lockedLog{})
	// trickle sends chunk bytes every interval on a schedule kept from the
	// start, so a client delayed by a busy machine catches up instead of
	// falling below the rate it stands for (time.Sleep only ever oversleeps).
	trickle := func(every time.Duration, chunk int, body string) func(*net.TCPConn) {
		return func(c *net.TCPConn) {
			start := time.Now()
			for n, i := 0, 0; i < len(body); n, i = n+1, i+chunk {
				time.Sleep(time.Until(start.Add(time.Duration(n) * every)))
				if _, err := c.Write([]byte(body[i:min(i+chunk, len(body))])); err != nil {
					return // the server gave up on us
				}
			}
		}
	}
	for _, c := range []struct {
		name        string
		every       time.Duration
		chunk       int
		size        int
		end         string
		status      int
		atLeast, by time.Duration
	}{
		// 4,000 bytes a second for 0.6 s: over the 400 ms read timeout.
		{"at the minimum rate, past the read timeout", 50 * time.Millisecond, 200, 2400, "\r\n--XYZ--\r\n", http.StatusOK, 0, 0},
		// Cut off after the grace period, long before the 2 minutes the
		// body would take.
		{"a byte at a time, far below it", 50 * time.Millisecond, 1, 2400, "\r\n--XYZ--\r\n", http.StatusRequestTimeout, 300 * time.Millisecond, 2 * time.Minute},
		// Cut off at the 2 s limit, before the 6 s the body would take.
		{"fast enough, but longer than the limit", 50 * time.Millisecond, 200, 24000, "", http.StatusRequestTimeout, 2 * time.Second, 6 * time.Second},
	} {
		for path, part := range map[string]string{"/api/import/validate": "file", "/api/import/fix": "file", "/api/error_feedback": "attachment"} {
			body := "--XYZ\r\nContent-Disposition: form-data; name=\"" + part + "\"; filename=\"a.csv\"\r\n\r\n" + strings.Repeat("x", c.size) + c.end
			start := time.Now()
			resp, answer := rawPost(t, addr, token, path, fmt.Sprintf("Content-Type: multipart/form-data; boundary=XYZ\r\nContent-Length: %d\r\n", len(body)), "", trickle(c.every, c.chunk, body))
			took := time.Since(start)
			want := c.status
			if path == "/api/error_feedback" && c.status == http.StatusOK {
				want = http.StatusUnsupportedMediaType // the whole body arrived; a CSV is no attachment
			}
			if resp.StatusCode != want {
				t.Errorf("%s, %s: %d %s, want %d", path, c.name, resp.StatusCode, answer, want)
			}
			if want == http.StatusRequestTimeout && (took < c.atLeast || took > c.by) {
				t.Errorf("%s, %s: answered after %v, want between %v and %v", path, c.name, took, c.atLeast, c.by)
			}
		}
	}
}
