package server

import (
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"freightsite/internal/clientaddr"
)

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
