package cmd

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// listen returns the socket to serve on: the one socket activation hands
// over (systemd's LISTEN_FDS, deploy/freightsite-api.socket), or a new one
// on addr. A handed-over socket outlives the process, so a restart refuses
// no connection: they wait in its queue until the next process accepts.
func listen(addr string) (net.Listener, error) {
	if os.Getenv("LISTEN_PID") == strconv.Itoa(os.Getpid()) && os.Getenv("LISTEN_FDS") != "" {
		if n := os.Getenv("LISTEN_FDS"); n != "1" {
			return nil, exitError{2, fmt.Errorf("LISTEN_FDS=%s: socket activation must hand over exactly one socket", n)}
		}
		for _, v := range []string{"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"} {
			os.Unsetenv(v) // not for the processes this one starts
		}
		f := os.NewFile(3, "socket from LISTEN_FDS")
		defer f.Close()
		ln, err := net.FileListener(f)
		if err != nil {
			return nil, exitError{2, fmt.Errorf("LISTEN_FDS: file descriptor 3 is not a listening socket: %w", err)}
		}
		return ln, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, exitError{2, fmt.Errorf("listening on %s: %w", addr, err)}
	}
	return ln, nil
}

// loopbackOnly reports whether only this machine can reach a listening
// address (a loopback address, or a socket that is not TCP).
func loopbackOnly(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return !ok || tcp.IP.IsLoopback()
}

// drainFor bounds how long a stopping server waits for its reverse
// proxy's kept-alive connections to close; deploy/nginx.conf's upstream
// closes idle ones after 2 s (keepalive_timeout).
const drainFor = 5 * time.Second

// drain lets a stopping server part from its reverse proxy without a
// failed request. A proxy sends a request over a kept-alive connection
// whenever it likes; if the server closed that idle connection at the
// same moment, the request fails, and a proxy does not retry a POST. So
// once the listener is closed, every answer says Connection: close, and
// the server waits until the proxy has closed its connections (after
// using them once more, or after its idle timeout) before it closes what
// is left. Browsers retry such a request themselves and are not waited
// for.
type drain struct {
	proxies  []netip.Prefix
	draining atomic.Bool
	mu       sync.Mutex
	open     map[net.Conn]bool // connections from proxies
}

func newDrain(proxies []netip.Prefix) *drain {
	return &drain{proxies: proxies, open: map[net.Conn]bool{}}
}

// track is the server's ConnState hook.
func (d *drain) track(c net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		if d.fromProxy(c.RemoteAddr()) {
			d.mu.Lock()
			d.open[c] = true
			d.mu.Unlock()
		}
	case http.StateClosed, http.StateHijacked:
		d.mu.Lock()
		delete(d.open, c)
		d.mu.Unlock()
	}
}

func (d *drain) fromProxy(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return false
	}
	ip, _ := netip.AddrFromSlice(tcp.IP)
	for _, p := range d.proxies {
		if p.Contains(ip.Unmap()) {
			return true
		}
	}
	return false
}

// handler closes each connection after its answer once draining.
func (d *drain) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.draining.Load() {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

// wait starts draining and returns once no proxy connection is open, or
// after drainFor, or at the stop's deadline.
func (d *drain) wait(log *slog.Logger, stop time.Time) {
	d.draining.Store(true)
	drained := time.Now().Add(drainFor)
	for {
		d.mu.Lock()
		n := len(d.open)
		d.mu.Unlock()
		switch now := time.Now(); {
		case n == 0, now.After(stop): // past the stop's deadline the stop says what it closes
			return
		case now.After(drained):
			log.Warn("the proxy kept connections open past the drain time; closing them (keep its idle timeout to this server under 5 s)", "connections", n)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
