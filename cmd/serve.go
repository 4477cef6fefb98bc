package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
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
			site, err := generator.Site(dist)
			if err != nil {
				return exitError{2, err}
			}
			built, err := generator.ReadBuilt(dist)
			if err != nil {
				return exitError{2, err}
			}
			return api.run(c, addr, site, built)
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (:8080 for every interface; then set --base-url)")
	c.Flags().StringVar(&dist, "dist", "dist", "where freightsite build published the site")
	api.register(c.Flags())
	return c
}

// listenAndServe serves h on ln until ctx ends (SIGINT or SIGTERM), then
// stops taking connections, lets a reverse proxy part (drain) and lets
// requests in flight finish.
func listenAndServe(ctx context.Context, log *slog.Logger, ln net.Listener, h http.Handler, d *drain) error {
	srv := &http.Server{
		Handler:           d.handler(h),
		ConnState:         d.track,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	log.Info("serving", "url", "http://"+displayAddr(ln.Addr()), "version", version())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight")
	ln.Close()
	<-errc // Serve returns once the listener is closed; connections go on
	d.wait(log)
	shutdown, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}

func displayAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if ok && tcp.IP.IsUnspecified() {
		return fmt.Sprintf("localhost:%d", tcp.Port)
	}
	return a.String()
}
