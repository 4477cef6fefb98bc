package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// listenMetrics listens on the metrics address, which must not be the public
// address: neither the port the API serves on nor every interface
// (0.0.0.0, [::]), which includes the public one. A single address of a
// private network, for a Prometheus on another machine, is allowed with a
// warning; loopback is the usual choice.
func listenMetrics(addr string, public net.Addr, log *slog.Logger) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, settingErr("metrics-addr", fmt.Errorf("%w (want host:port, e.g. 127.0.0.1:9090)", err))
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return nil, settingErr("metrics-addr", fmt.Errorf("%s listens on every interface, the public one included: name one address, e.g. 127.0.0.1:%s", addr, port))
	}
	if p, ok := public.(*net.TCPAddr); ok && port == fmt.Sprint(p.Port) {
		return nil, settingErr("metrics-addr", fmt.Errorf("%s has the port the API serves on (%s): the metrics never go on the public address", addr, public))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, settingErr("metrics-addr", fmt.Errorf("listening on %s: %w", addr, err))
	}
	if !loopbackOnly(ln.Addr()) {
		log.Warn("the metrics can be read from other machines (they show the traffic, not the data): firewall the address", "metrics_addr", ln.Addr().String())
	}
	return ln, nil
}

// serveMetrics serves h on ln until stop is called.
func serveMetrics(ln net.Listener, h http.Handler, log *slog.Logger) (stop func()) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
		MaxHeaderBytes: defaultLimits.maxHeaderBytes, DisableGeneralOptionsHandler: true}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("serving the metrics", "err", err)
		}
	}()
	log.Info("serving metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	}
}
