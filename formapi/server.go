// Package formapi is the site's HTTP API (SPEC §7) on SQLite: the form
// calls, news, reference lists and accounts, behind one gorilla/mux router
// with the security middleware of DESIGN.md. `freightsite serve` mounts the
// static site behind it; `freightsite api` runs it alone.
package formapi

import (
	"log/slog"
	"net/http"

	"github.com/gorilla/mux"
)

// Config holds every dependency of the API.
type Config struct {
	Logger *slog.Logger
	// Site answers every path the API does not own (the static site);
	// nil answers them with a JSON 404.
	Site http.Handler
}

// NewServer returns the API's handler with its routes and middleware.
func NewServer(cfg Config) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	r := mux.NewRouter()
	addRoutes(r, cfg)
	if cfg.Site != nil {
		r.NotFoundHandler = cfg.Site
	} else {
		r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, http.StatusNotFound, errorBody{Error: "not found"})
		})
	}
	return recoverPanics(cfg.Logger, logRequests(cfg.Logger, r))
}
