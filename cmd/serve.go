package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"freightsite/formapi"
	"freightsite/generator"
)

func newServe() *cobra.Command {
	var addr, dist string
	var api apiFlags
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the built site and its API on one address",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			// The site asks the database whether a news item exists (an
			// unknown id is a 404); the database opens with the API.
			var news generator.NewsLookup
			site, err := generator.Site(dist, func(ctx context.Context, id int64) (bool, error) { return news(ctx, id) })
			if err != nil {
				return exitError{2, err}
			}
			built, err := generator.ReadBuilt(dist)
			if err != nil {
				return exitError{2, err}
			}
			collectLessGarbage(c.Context())
			api.hosts = siteHosts
			return api.run(c, addr, site, built, func(store *formapi.Store) { news = store.NewsExists })
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (:8080 for every interface; then set --base-url)")
	c.Flags().StringVar(&dist, "dist", "dist", "where freightsite build published the site")
	api.register(c.Flags())
	return c
}

// serverLimits are what one client may take of a server (serve, api,
// dev) and how long a stop waits for requests in flight.
type serverLimits struct {
	// A header block must arrive whole within headerTimeout, a request
	// with its body within readTimeout; an answer must be taken within
	// writeTimeout; a kept-alive connection may wait idleTimeout for its
	// next request.
	headerTimeout, readTimeout, writeTimeout, idleTimeout time.Duration
	// maxHeaderBytes is http.Server.MaxHeaderBytes: a request line and
	// header block past it plus net/http's 4096 bytes of slack
	// (maxHeaderBlock) are answered 431.
	maxHeaderBytes int
	// perClient caps the connections open from one client
	// (clientaddr.Key) at once; 0 takes any number.
	perClient int
	// stop is how long a stop lets requests in flight finish.
	stop time.Duration
}

// maxHeaderBlock is the largest request line and header block the
// servers take: 12 KB, near nginx's (a request line and each header line
// within 8 KB), and more than a browser sends with this site's cookies.
// A larger block is answered 431 by net/http.
const maxHeaderBlock = 12 << 10

// defaultLimits are the servers' limits; the commands set perClient and
// stop from their flags.
var defaultLimits = serverLimits{
	headerTimeout:  10 * time.Second,
	readTimeout:    60 * time.Second,
	writeTimeout:   60 * time.Second,
	idleTimeout:    120 * time.Second,
	maxHeaderBytes: maxHeaderBlock - 4096, // net/http reads 4096 bytes past it
	perClient:      defaultConnsPerClient,
	stop:           20 * time.Second,
}

// listenAndServe serves h on ln until ctx ends (SIGINT or SIGTERM), then
// stops taking connections, lets a reverse proxy part (drain) and lets
// requests in flight finish, all within lim.stop: past it the
// connections still open are closed, whatever their clients do, and the
// stop still succeeds. net/http reads and answers every request; the
// connections only hold each answer to send it in one write
// (holdingConn).
func listenAndServe(ctx context.Context, log *slog.Logger, ln net.Listener, lim serverLimits, h http.Handler, d *drain) error {
	var open connCount
	ln = holdingListener{capPerClient(ln, lim.perClient, d.proxies, log)}
	srv := &http.Server{
		Handler: d.handler(h),
		ConnState: func(c net.Conn, s http.ConnState) {
			d.track(c, s)
			open.track(c, s)
		},
		ConnContext:       holdingContext,
		ReadHeaderTimeout: lim.headerTimeout,
		ReadTimeout:       lim.readTimeout,
		WriteTimeout:      lim.writeTimeout,
		IdleTimeout:       lim.idleTimeout,
		MaxHeaderBytes:    lim.maxHeaderBytes,
		// OPTIONS * goes to the handler, which answers it with the
		// site's headers, not net/http's bare 200.
		DisableGeneralOptionsHandler: true,
		ErrorLog:                     slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	log.Info("serving", "url", "http://"+displayAddr(ln.Addr()), "version", version())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight", "deadline", lim.stop)
	deadline := time.Now().Add(lim.stop)
	ln.Close()
	<-served // Serve returns once the listener is closed; connections go on
	d.wait(log, deadline)
	shutdown, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, net.ErrClosed) {
		log.Warn("stop deadline passed: closing the connections still open", "connections", open.n())
		srv.Close()
	}
	return nil
}

// serverGCPercent is the garbage collector's GOGC for serve and api
// (unless GOGC is set). They keep little (the built files, the caches)
// and make a few KB of garbage an answer: at Go's default of 100 the
// heap's goal is a few MB and they collect tens of times a second under
// load; 400 collects a quarter as often, for some 15 MB more. Not for
// dev, which keeps whole builds and their JavaScript runtimes.
const serverGCPercent = 400

// Returning memory. The runtime gives memory back to the system only
// down to the heap's goal, which GOGC 400 sets at five times what was
// live at the last collection, and collects on its own only every two
// minutes when nothing allocates: after a burst of connections (each
// with its buffers and goroutine stack, live while it lasts) a quiet
// server would keep the burst's heap for minutes. So every
// returnMemoryEvery, when the server has allocated returnMemoryAfter or
// more since, it collects and gives back all that is free
// (debug.FreeOSMemory): a burst's memory returns within seconds of its
// end, an idle server does nothing, and a busy one adds a collection
// every few seconds to the many it makes. A soft memory limit
// (GOMEMLIMIT) would bound the heap as well, but one low enough to
// matter makes the collector run without pause once the live heap nears
// it, as a large news archive's cached pages can.
const (
	returnMemoryEvery = 10 * time.Second
	returnMemoryAfter = 16 << 20
)

// collectLessGarbage sets serverGCPercent unless GOGC is set, and gives
// memory back after bursts until ctx ends.
func collectLessGarbage(ctx context.Context) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
	go func() {
		var m memoryReturner
		tick := time.NewTicker(returnMemoryEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				m.check()
			}
		}
	}()
}

// memoryReturner gives free memory back (see returnMemoryEvery).
type memoryReturner struct {
	allocated uint64 // bytes the heap had allocated when it last gave memory back
}

// check collects and gives free memory back when returnMemoryAfter or
// more has been allocated since it last did; it reports whether it did.
func (m *memoryReturner) check() bool {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	if s[0].Value.Uint64()-m.allocated < returnMemoryAfter {
		return false
	}
	debug.FreeOSMemory()
	metrics.Read(s)
	m.allocated = s[0].Value.Uint64()
	return true
}

// connCount counts the connections serving a request
// (http.Server.ConnState): those a stop deadline cuts off. An idle one
// is not counted: closing it loses nothing. ConnState is called twice a
// request, so the count is kept without a lock: each connection
// (holdingConn, as listenAndServe's listener makes them all) says
// whether it is counted.
type connCount struct {
	active atomic.Int64
}

func (c *connCount) track(conn net.Conn, s http.ConnState) {
	hc, ok := conn.(*holdingConn)
	if !ok {
		return
	}
	serving := s == http.StateActive
	if hc.serving.Swap(serving) == serving {
		return
	}
	if serving {
		c.active.Add(1)
	} else {
		c.active.Add(-1)
	}
}

func (c *connCount) n() int { return int(c.active.Load()) }

func displayAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if ok && tcp.IP.IsUnspecified() {
		return fmt.Sprintf("localhost:%d", tcp.Port)
	}
	return a.String()
}
