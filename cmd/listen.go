package cmd

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"freightsite/internal/clientaddr"
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
		if fromProxy(d.proxies, c.RemoteAddr()) {
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

// fromProxy reports whether a connection's remote address is one of
// proxies (--trusted-proxy).
func fromProxy(proxies []netip.Prefix, a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return false
	}
	ip := tcp.AddrPort().Addr().Unmap()
	return slices.ContainsFunc(proxies, func(p netip.Prefix) bool { return p.Contains(ip) })
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

// defaultConnsPerClient is --max-conns-per-client's default: far more
// than a browser opens to one site (six), with room for an office or a
// mobile network's clients behind one address, and few enough that one
// client holds little of the server.
const defaultConnsPerClient = 64

// capPerClient wraps ln so that at most max connections from one client
// (clientaddr.Key: an IPv4 address, an IPv6 /64) are open at once: a
// further one is closed as it is accepted, before anything is read from
// it. Connections from a trusted proxy are not counted (nginx keeps a
// pool of them), nor is anything that is not TCP. max 0 returns ln.
func capPerClient(ln net.Listener, max int, proxies []netip.Prefix, log *slog.Logger) net.Listener {
	if max <= 0 {
		return ln
	}
	return &cappedListener{Listener: ln, max: max, proxies: proxies, log: log, open: map[netip.Prefix]int{}}
}

type cappedListener struct {
	net.Listener
	max     int
	proxies []netip.Prefix
	log     *slog.Logger

	mu      sync.Mutex
	open    map[netip.Prefix]int
	refused int       // connections closed since the last warning
	warned  time.Time // when the last warning was logged
}

// capWarnEvery spaces the warnings about refused connections: a client
// that keeps trying must not fill the log.
const capWarnEvery = 10 * time.Second

func (l *cappedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		tcp, ok := c.RemoteAddr().(*net.TCPAddr)
		if !ok || fromProxy(l.proxies, tcp) {
			return c, nil
		}
		key := clientaddr.Key(tcp.AddrPort().Addr())
		l.mu.Lock()
		if l.open[key] >= l.max {
			l.refused++
			warn, refused := time.Since(l.warned) >= capWarnEvery, l.refused
			if warn {
				l.warned, l.refused = time.Now(), 0
			}
			l.mu.Unlock()
			c.Close()
			if warn {
				l.log.Warn("closing connections past the cap per client (--max-conns-per-client)", "client", key.String(), "cap", l.max, "closed", refused)
			}
			continue
		}
		l.open[key]++
		l.mu.Unlock()
		return &cappedConn{Conn: c, l: l, key: key}, nil
	}
}

// release counts a connection of key's as closed.
func (l *cappedListener) release(key netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[key]--; l.open[key] <= 0 {
		delete(l.open, key)
	}
}

// cappedConn is a counted connection: closing it (net/http does, and a
// handler that took it over does) frees its place.
type cappedConn struct {
	net.Conn
	l        *cappedListener
	key      netip.Prefix
	released atomic.Bool
}

func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	if c.released.CompareAndSwap(false, true) {
		c.l.release(c.key)
	}
	return err
}

// CloseWrite half-closes the connection as net/http does before closing
// one whose request body it left unread, so its answer (a 413) reaches
// the client ahead of a reset.
func (c *cappedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
