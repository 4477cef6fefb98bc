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
	"sync"
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
			collectLessGarbage()
			api.answersPlain = true
			return api.run(c, addr, site, built, func(store *formapi.Store) { news = store.NewsExists })
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (:8080 for every interface; then set --base-url)")
	c.Flags().StringVar(&dist, "dist", "dist", "where freightsite build published the site")
	api.register(c.Flags())
	return c
}

// listenAndServe serves h on ln until ctx ends (SIGINT or SIGTERM), then
// stops taking connections, lets a reverse proxy part (drain) and lets
// requests in flight finish, all within stop: past it the connections
// still open are closed, whatever their clients do, and the stop still
// succeeds. With answersPlain, connections start with front, which
// answers their plain page and file requests and hands them to net/http
// at their first other one; without it they all go to net/http.
func listenAndServe(ctx context.Context, log *slog.Logger, ln net.Listener, stop time.Duration, h http.Handler, d *drain, answersPlain bool) error {
	var open connCount
	h = d.handler(h)
	front := newFront(h, log, ln.Addr(), d.track, answersPlain)
	srv := &http.Server{
		Handler: h,
		ConnState: func(c net.Conn, s http.ConnState) {
			d.track(c, s)
			open.track(c, s)
		},
		ConnContext:       holdingContext,
		ReadHeaderTimeout: frontHeadTimeout,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      frontWriteTimeout,
		IdleTimeout:       frontIdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	log.Info("serving", "url", "http://"+displayAddr(ln.Addr()), "version", version())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(front.handoffs) }()
	accepted := make(chan error, 1)
	go func() { accepted <- front.accept(ln) }()
	select {
	case err := <-accepted:
		front.handoffs.Close()
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight", "deadline", stop)
	deadline := time.Now().Add(stop)
	ln.Close()
	<-accepted // connections go on
	d.wait(log, deadline)
	cut := front.stop(deadline) // connections closed past the deadline
	late := cut > 0
	front.handoffs.Close()
	<-served
	shutdown, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, net.ErrClosed) {
		late, cut = true, cut+open.n()
		srv.Close()
	}
	if late {
		log.Warn("stop deadline passed: closing the connections still open", "connections", cut)
	}
	return nil
}

// serverGCPercent is the garbage collector's GOGC for serve and api
// (unless GOGC is set). They keep little (the built files, the caches)
// and make a few KB of garbage an answer, so at Go's default of 100 they
// collected some fifty times a second under load: 400 costs some 15 MB
// more memory and takes a fifth off the CPU time of a static answer
// (37-41 -> 30-34 µs on the bench machine). Not for dev, which keeps
// whole builds and their JavaScript runtimes.
const serverGCPercent = 400

// collectLessGarbage sets serverGCPercent unless GOGC is set.
func collectLessGarbage() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
}

// connCount counts the connections serving a request
// (http.Server.ConnState): those a stop deadline cuts off. An idle one
// is not counted: closing it loses nothing.
type connCount struct {
	mu     sync.Mutex
	active map[net.Conn]bool
}

func (c *connCount) track(conn net.Conn, s http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active == nil {
		c.active = map[net.Conn]bool{}
	}
	if s == http.StateActive {
		c.active[conn] = true
	} else {
		delete(c.active, conn)
	}
}

func (c *connCount) n() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.active)
}

func displayAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if ok && tcp.IP.IsUnspecified() {
		return fmt.Sprintf("localhost:%d", tcp.Port)
	}
	return a.String()
}
