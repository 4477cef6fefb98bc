package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

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
			log, flushLog := newLogger(c.ErrOrStderr())
			defer flushLog()
			rt, err := api.open(c.Context(), log, site)
			if err != nil {
				return err
			}
			defer rt.stop()
			news = rt.store.NewsExists
			return listenAndServe(c.Context(), log, addr, api.stopTimeout, rt.handler, c.OutOrStdout())
		},
	}
	c.Flags().StringVar(&addr, "addr", ":8080", "address to listen on")
	c.Flags().StringVar(&dist, "dist", "dist", "folder written by freightsite build")
	api.register(c.Flags())
	return c
}

// listenAndServe serves h until ctx ends (SIGINT or SIGTERM), then stops
// taking connections and lets requests in flight finish, for at most
// stop: past it the connections still open are closed, whatever their
// clients do, and the stop still succeeds.
func listenAndServe(ctx context.Context, log *slog.Logger, addr string, stop time.Duration, h http.Handler, out interface{ Write([]byte) (int, error) }) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return exitError{2, fmt.Errorf("listening on %s: %w", addr, err)}
	}
	var open connCount
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ConnState:         open.track,
	}
	fmt.Fprintf(out, "serving on http://%s\n", displayAddr(ln.Addr()))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight", "deadline", stop)
	shutdown, cancel := context.WithTimeout(context.Background(), stop)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		log.Warn("stop deadline passed: closing the connections still open", "connections", open.n.Load())
		srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// connCount counts the server's open connections (http.Server.ConnState).
type connCount struct{ n atomic.Int64 }

func (c *connCount) track(_ net.Conn, s http.ConnState) {
	switch s {
	case http.StateNew:
		c.n.Add(1)
	case http.StateClosed, http.StateHijacked:
		c.n.Add(-1)
	}
}

func displayAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if ok && tcp.IP.IsUnspecified() {
		return fmt.Sprintf("localhost:%d", tcp.Port)
	}
	return a.String()
}
