package server

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

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
// proxies (Options.TrustedProxies).
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
