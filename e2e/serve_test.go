package e2e

import (
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
