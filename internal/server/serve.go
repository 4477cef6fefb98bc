package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

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

// defaultLimits are the servers' limits; Run sets perClient and stop
// from its Options.
var defaultLimits = serverLimits{
	headerTimeout:  10 * time.Second,
	readTimeout:    60 * time.Second,
	writeTimeout:   60 * time.Second,
	idleTimeout:    120 * time.Second,
	maxHeaderBytes: maxHeaderBlock - 4096, // net/http reads 4096 bytes past it
	perClient:      DefaultConnsPerClient,
	stop:           DefaultStopTimeout,
}

// listenAndServe serves h on ln until ctx ends (SIGINT or SIGTERM), then
// stops taking connections, lets a reverse proxy part (drain) and lets
// requests in flight finish, all within lim.stop: past it the
// connections still open are closed, whatever their clients do, and the
// stop still succeeds. net/http reads and answers every request; the
// connections only hold each answer to send it in one write
// (holdingConn). Its start-up line, "serving", gives the URL and the
// attributes of about (the version, the database).
func listenAndServe(ctx context.Context, log *slog.Logger, ln net.Listener, lim serverLimits, about []any, h http.Handler, d *drain) error {
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
	log.Info("serving", append([]any{"url", "http://" + displayAddr(ln.Addr())}, about...)...)
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
