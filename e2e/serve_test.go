package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestServeStopsGracefully: SIGTERM makes serve finish, exit 0 and free
// its port; SIGINT does the same.
func TestServeStopsGracefully(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		cmd := exec.Command(binary, "serve", "--addr", addr, "--dist", filepath.Join(work, "dist"), "--db", filepath.Join(t.TempDir(), "s.db"))
		cmd.Env = append(os.Environ(), serverEnv...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitHealthy(t, "http://"+addr+"/healthz")
		resp, err := http.Get("http://" + addr + "/faq")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET /faq: %v %v", resp, err)
		}
		resp.Body.Close()
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				t.Errorf("%v: exit code %d, want 0", sig, exit.ExitCode())
			} else if err != nil {
				t.Error(err)
			}
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: serve did not stop", sig)
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%v: port %s still open after exit", sig, addr)
		}
	}
}

func TestServeWithoutABuildSaysWhatToDo(t *testing.T) {
	out, err := exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--dist", t.TempDir()).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("err = %v, want exit 2", err)
	}
	if want := "freightsite build"; !strings.Contains(string(out), want) {
		t.Errorf("output %q does not mention %q", out, want)
	}
}

// TestStopDeadline: `serve` and `api` stop within --stop-timeout whatever
// clients do. Two clients sending at a byte a second, a file to check and
// a contact message, hold their requests past the deadline; then the
// server closes the connections still open, says how many in its log,
// and exits 0.
func TestStopDeadline(t *testing.T) {
	for _, command := range [][]string{{"serve", "--dist", filepath.Join(work, "dist")}, {"api"}} {
		t.Run(command[0], func(t *testing.T) {
			addr := freeAddr(t)
			cmd := exec.Command(binary, append(command, "--addr", addr, "--db", filepath.Join(t.TempDir(), "s.db"), "--stop-timeout", "2s")...)
			cmd.Env = append(os.Environ(), serverEnv...)
			var logs lockedBuilder
			cmd.Stdout, cmd.Stderr = &logs, &logs
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			base := "http://" + addr
			waitHealthy(t, base+"/healthz")
			token := xsrfToken(t, base)

			stopTrickle := make(chan struct{})
			defer close(stopTrickle)
			slowPosts := []struct{ path, contentType, body string }{
				{"/api/import/validate", "multipart/form-data; boundary=XYZ", "--XYZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\n" + strings.Repeat("x", 1000)},
				{"/api/contact_us", "application/json", `{"name":"Ravi Kumar","email":"ravi@example.in","subject":"Loads","message":"` + strings.Repeat("x", 1000) + `"}`},
			}
			for _, p := range slowPosts {
				slow, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer slow.Close()
				fmt.Fprintf(slow, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nX-XSRF-TOKEN: %s\r\nCookie: XSRF-TOKEN=%s\r\n\r\n", p.path, addr, p.contentType, len(p.body), token, token)
				// The post is under way once the server has read its
				// headers: nothing of them waits in its socket.
				waitUntilRead(t, slow)
				go func(body string) {
					for i := 0; i < len(body); i++ {
						select {
						case <-stopTrickle:
							return
						case <-time.After(time.Second):
						}
						if _, err := slow.Write([]byte{body[i]}); err != nil {
							return
						}
					}
				}(p.body)
			}

			start := time.Now()
			cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("exit: %v, want status 0\n%s", err, logs.String())
				}
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 15 s after SIGTERM with --stop-timeout 2s\n%s", logs.String())
			}
			took := time.Since(start)
			if took < 2*time.Second {
				t.Errorf("stopped after %v: the requests in flight did not get their 2 s", took)
			}
			if !strings.Contains(logs.String(), "stop deadline passed: closing the connections still open") || !strings.Contains(logs.String(), fmt.Sprintf("connections=%d", len(slowPosts))) {
				t.Errorf("the log does not say %d connections were closed at the deadline:\n%s", len(slowPosts), logs.String())
			}
			t.Logf("stopped %v after SIGTERM", took.Round(time.Millisecond))
		})
	}
}

// waitUntilRead waits until the server has read everything c sent:
// until the server's end of c (a local TCP connection) has nothing in its
// receive queue (/proc/net/tcp, rx_queue).
func waitUntilRead(t *testing.T, c net.Conn) {
	t.Helper()
	hexAddr := func(a net.Addr) string {
		tcp := a.(*net.TCPAddr)
		ip := tcp.IP.To4()
		return fmt.Sprintf("%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], tcp.Port)
	}
	server, client := hexAddr(c.RemoteAddr()), hexAddr(c.LocalAddr())
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		table, err := os.ReadFile("/proc/net/tcp")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(table), "\n") {
			f := strings.Fields(line)
			if len(f) > 4 && f[1] == server && f[2] == client && strings.HasSuffix(f[4], ":00000000") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server has not read what %s sent within 10 s", c.LocalAddr())
		}
	}
}

// lockedBuilder collects a process's output while the test reads it.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeFacingTheInternet: serve as it runs with no proxy in front,
// its settings from flags and the environment: with a base URL that is
// not localhost it answers only the base URL's host, its tenants and the
// --site-origin hosts (421 otherwise, probes on any host), and it closes
// a client's connections past FREIGHTSITE_MAX_CONNS_PER_CLIENT.
func TestServeFacingTheInternet(t *testing.T) {
	addr := freeAddr(t)
	cmd := exec.Command(binary, "serve", "--addr", addr, "--dist", filepath.Join(work, "dist"), "--db", filepath.Join(t.TempDir(), "s.db"),
		"--base-url", "https://freight.test", "--site-origin", "https://pune-freight.example.net")
	cmd.Env = append(os.Environ(), append(serverEnv, "FREIGHTSITE_MAX_CONNS_PER_CLIENT=3")...)
	var logs lockedBuilder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	waitHealthy(t, "http://"+addr+"/healthz")

	status := func(c net.Conn, host, path string) (int, error) {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, host); err != nil {
			return 0, err
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	for _, c := range []struct {
		host, path string
		want       int
	}{
		{"freight.test", "/faq", http.StatusOK},
		{"acme.freight.test:443", "/faq", http.StatusOK},
		{"pune-freight.example.net", "/hi/faq", http.StatusOK},
		{"freight.test", "/api/news", http.StatusOK},
		{"rebound.example", "/faq", http.StatusMisdirectedRequest},
		{"rebound.example", "/api/news", http.StatusMisdirectedRequest},
		{addr, "/faq", http.StatusMisdirectedRequest},
		{addr, "/readyz", http.StatusOK},
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		got, err := status(conn, c.host, c.path)
		conn.Close()
		if err != nil || got != c.want {
			t.Errorf("GET %s on Host %s: %d %v, want %d", c.path, c.host, got, err, c.want)
		}
	}

	// From 127.0.0.2: the tests' server env trusts 127.0.0.1 as a proxy,
	// which has no cap.
	client := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
	var open []net.Conn
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	for i := range 3 {
		c, err := client.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, c)
		if got, err := status(c, "freight.test", "/faq"); err != nil || got != http.StatusOK {
			t.Fatalf("connection %d of 3: %d %v", i+1, got, err)
		}
	}
	fourth, err := client.Dial("tcp", addr)
	if err == nil {
		defer fourth.Close()
		if got, err := status(fourth, "freight.test", "/faq"); err == nil {
			t.Errorf("a fourth connection with FREIGHTSITE_MAX_CONNS_PER_CLIENT=3 was answered %d, want it closed", got)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "closing connections past the cap per client") {
		if time.Now().After(deadline) {
			t.Fatalf("the log does not say a connection was closed past the cap:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
