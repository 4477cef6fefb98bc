// Package formapi is the site's HTTP API (SPEC §7): the form calls,
// accounts, news, reference lists and tenants, behind one gorilla/mux
// router (routes.go) with the security middleware of DESIGN.md
// (anti-forgery, security headers, body and rate limits, JSON errors).
// Handlers decode a request into its type, which validates itself
// against data/forms.json, and store it through internal/store, queueing
// its mail (internal/mail) in the same write. `freightsite serve` mounts
// the static site behind it; `freightsite api` runs it alone.
package formapi

import (
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"freightsite/data"
	"freightsite/internal/store"
)

// Config holds every dependency of the API.
type Config struct {
	Logger *slog.Logger
	// Site answers every path the API does not own (the static site);
	// nil answers them with a JSON 404.
	Site  http.Handler
	Store *store.Store
	// Secret signs the anti-forgery tokens (store.Store.Secret gives one).
	Secret []byte
	// SiteName names the site in mail and in the pages the API writes.
	SiteName string
	// Languages are the site's languages, the default first.
	Languages []data.Language
	// Rates are the per-client limits by name (DefaultRates when nil).
	Rates map[string]Rate
	// TrustedProxies may report the client address in X-Forwarded-For.
	TrustedProxies []netip.Prefix
	// Provider receives the contact and feedback notifications.
	Provider data.Provider
	// Accounts configure registration, sign-in and password recovery.
	Accounts AccountOptions
	// Uploads is the time the upload calls give a body
	// (DefaultUploadRate when zero).
	Uploads UploadRate
	Now     func() time.Time
	// Version names the running build in GET /healthz.
	Version string
	// Metrics count the requests and refusals (nil: none are kept).
	Metrics *Metrics
	// Hosts are the host names answered (nil: any).
	Hosts *Hosts
	// FileChecks bound the import checks at once (DefaultFileChecks
	// where zero).
	FileChecks FileChecks
}

// NewServer returns the API's handler with its routes and middleware.
func NewServer(cfg Config) http.Handler {
	h, _ := newServer(cfg)
	return h
}

// newServer is NewServer, also returning the router inside the handler,
// so tests can walk every route it has.
func newServer(cfg Config) (http.Handler, *mux.Router) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Rates == nil {
		cfg.Rates = DefaultRates
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Uploads == (UploadRate{}) {
		cfg.Uploads = DefaultUploadRate
	}
	if cfg.Store == nil || len(cfg.Secret) == 0 || len(cfg.Languages) == 0 {
		panic("formapi.NewServer needs a Store, a Secret and the site's Languages")
	}
	if cfg.Metrics != nil && cfg.Site != nil {
		cfg.Site = nameSiteRoute(cfg.Site)
	}
	// The router matches paths as they come: it never answers a redirect
	// of its own to a cleaned path (redirects stay on the site; the static
	// site makes the only ones, from known pages).
	r := mux.NewRouter().SkipClean(true)
	posts := addRoutes(r, cfg)
	if cfg.Metrics != nil {
		cfg.Metrics.startRoutes(r, cfg.Site != nil)
	}
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusMethodNotAllowed, errorBody{Error: r.Method + " is not allowed on " + r.URL.Path, Message: "api.errors.badRequest"})
	})
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !OwnsPath(r.URL.Path) {
			posts.ServeHTTP(w, r) // a form posted to its page (formposts.go)
			return
		}
		if cfg.Site == nil || strings.HasPrefix(r.URL.Path, "/api/") {
			notFoundJSON(w, r)
			return
		}
		cfg.Site.ServeHTTP(w, r)
	})
	// Outermost first: the log line, panics, HTTPS behind a proxy, the
	// headers of every answer, then the refusals (another site's host,
	// the server as a whole, anti-forgery, no such call or method, body
	// faults), so each refusal carries the headers.
	var h http.Handler = r
	if cfg.Metrics != nil {
		r.Use(nameRoute)
	}
	h = protectXSRF(cfg.Secret, h)
	h = watchBody(h)
	h = apiHeaders(h)
	if cfg.Site != nil {
		h = staticFirst(h, apiHeaders(cfg.Site))
	}
	h = serverOptions(h)
	h = checkHost(cfg.Hosts, h)
	h = securityHeaders(h)
	h = forwardedHTTPS(cfg.TrustedProxies, h)
	if cfg.Metrics != nil {
		h = measureRequests(cfg.Metrics, h)
	}
	return recoverPanics(cfg.Logger, logRequests(cfg.Logger, cfg.TrustedProxies, h)), r
}

// staticFirst sends a GET or HEAD of a path the API does not own (Paths)
// straight to the static site: no route to miss first, no body to watch,
// and no anti-forgery cookie, which a page never needs (its script asks
// GET /api/xsrf-token for one before its first post, as it must behind
// nginx). Every other request goes to the API, which hands the site
// what it does not own.
func staticFirst(api, site http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && !OwnsPath(r.URL.Path) {
			site.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// serverOptions answers the requests for the server as a whole (the
// target "*", which net/http hands over with DisableGeneralOptionsHandler):
// OPTIONS * is a ping (RFC 9110 §9.3.7), answered 204 with the methods
// the site's resources take, and with the headers of every answer; any
// other method cannot ask for "*" and is answered 400.
func serverOptions(next http.Handler) http.Handler {
	ping := apiHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodOptions {
			writeJSON(w, http.StatusBadRequest, errorBody{Error: "the target * is for OPTIONS only", Message: "api.errors.badRequest"})
			return
		}
		w.Header()["Allow"] = serverMethods
		w.WriteHeader(http.StatusNoContent)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.RequestURI == "*" {
			ping.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

var serverMethods = []string{"GET, HEAD, POST"}

// OwnsPath reports whether the API owns a URL path (Paths).
func OwnsPath(p string) bool {
	for _, owned := range Paths {
		if p == owned || strings.HasSuffix(owned, "/") && strings.HasPrefix(p, owned) {
			return true
		}
	}
	return false
}

func notFoundJSON(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusNotFound, errorBody{Error: "no such call: " + r.Method + " " + r.URL.Path, Message: "api.errors.notFound"})
}
