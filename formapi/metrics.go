package formapi

import (
	"context"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"freightsite/internal/store"
)

// Metrics are the API's Prometheus metrics, on a registry of their own
// (never the global one): requests by route and status, their latency,
// the group-commit writer's batches and queue, the database's errors by
// kind, the outbox by state, and the refusals of the rate limits and the
// sign-in throttle. Every series a dashboard draws exists from the first
// scrape, at 0: each route with its methods (and statuses 200, 500 and
// 503), each rate limit, each kind of database error. `freightsite api
// --metrics-addr` serves Handler on an address of its own. A nil
// *Metrics records nothing.
type Metrics struct {
	registry    *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	batches     prometheus.Histogram
	rateLimited *prometheus.CounterVec
	locked      prometheus.Counter
	captcha     prometheus.Counter
}

// NewMetrics makes the metrics of an API on s and starts counting the
// store's commits.
func NewMetrics(s *store.Store) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "freightsite_http_requests_total",
			Help: "Requests answered, by route (the path template; \"page\" for the site's pages, \"asset\" for its other files; \"other\" for paths no route matched), method (\"other\" for a method HTTP does not define) and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "freightsite_http_request_duration_seconds",
			Help:    "Time from a request's arrival to its handler's return, by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
		batches: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "freightsite_store_commit_batch_size",
			Help:    "Writes committed together in one transaction (group commit).",
			Buckets: prometheus.ExponentialBuckets(1, 2, 10), // 1 to 512 (store.MaxBatch)
		}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "freightsite_rate_limited_total",
			Help: "Requests refused with 429 by a per-client rate limit, by the limit's name (--rate-limit).",
		}, []string{"limit"}),
		locked: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "freightsite_signin_locked_total",
			Help: "Sign-ins refused because the account or the address is locked out after too many failures.",
		}),
		captcha: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "freightsite_signin_captcha_stepups_total",
			Help: "Sign-ins answered LOGIN.CAPTCHA: the account is under attack and needs a solved captcha.",
		}),
	}
	m.registry.MustRegister(m.requests, m.latency, m.batches, m.rateLimited, m.locked, m.captcha,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "freightsite_store_write_queue_depth",
			Help: "Writes waiting for the group-commit writer.",
		}, func() float64 { return float64(s.QueueDepth()) }),
		outboxCollector{s},
		databaseErrors{s},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	s.ObserveBatches(func(n int) { m.batches.Observe(float64(n)) })
	for name := range DefaultRates {
		m.rateLimited.WithLabelValues(name)
	}
	return m
}

// preStatuses are the statuses each route's series start with: success,
// and the two a dashboard watches, a fault (500) and the database
// unavailable (503).
var preStatuses = []string{"200", "500", "503"}

// startRoutes creates the series of every route of the router and, with
// a site, of its pages and assets, so each is there at 0 from the first
// scrape.
func (m *Metrics) startRoutes(r *mux.Router, site bool) {
	start := func(route string, methods ...string) {
		m.latency.WithLabelValues(route)
		for _, method := range methods {
			for _, status := range preStatuses {
				m.requests.WithLabelValues(route, method, status)
			}
		}
	}
	_ = r.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		if t, err := route.GetPathTemplate(); err == nil {
			methods, _ := route.GetMethods()
			start(t, methods...)
		}
		return nil
	})
	if site {
		start(routePage, http.MethodGet, http.MethodHead)
		start(routeAsset, http.MethodGet, http.MethodHead)
	}
}

// The route labels of the static site: pages (paths without an extension:
// /, /faq, /hi/news-feed/news/7) and the other files (/assets/...,
// /favicon.svg, /sitemap.xml), whatever the path, so a client cannot
// make a series of each path it asks for.
const (
	routePage  = "page"
	routeAsset = "asset"
)

// nameSiteRoute tells measureRequests that the site answers: a page or
// an asset.
func nameSiteRoute(site http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rm, ok := r.Context().Value(metricsKey{}).(*requestMetrics); ok {
			rm.route = routePage
			if strings.Contains(path.Base(r.URL.Path), ".") {
				rm.route = routeAsset
			}
		}
		site.ServeHTTP(w, r)
	})
}

// Handler serves the metrics in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// requestMetrics is what measureRequests keeps for one request.
type requestMetrics struct {
	m     *Metrics
	route string
}

type metricsKey struct{}

// metricsOf is the request's Metrics, nil when they are off.
func metricsOf(r *http.Request) *Metrics {
	if rm, ok := r.Context().Value(metricsKey{}).(*requestMetrics); ok {
		return rm.m
	}
	return nil
}

// rateLimitedBy counts a refusal of the named rate limit.
func (m *Metrics) rateLimitedBy(name string) {
	if m != nil {
		m.rateLimited.WithLabelValues(name).Inc()
	}
}

// signInRefused counts the refusals that are lockouts and step-ups.
func (m *Metrics) signInRefused(status string) {
	if m == nil {
		return
	}
	switch status {
	case statusSignInLocked:
		m.locked.Inc()
	case statusSignInCaptcha:
		m.captcha.Inc()
	}
}

// measureRequests counts each request by route and status and times it.
// It runs inside logRequests, whose statusRecorder knows the status; the
// route is the template of the mux route that matched (nameRoute), so
// /api/news/7 and /api/news/8 count as one route.
func measureRequests(m *Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rm := &requestMetrics{m: m, route: "other"}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), metricsKey{}, rm)))
		status := http.StatusOK
		if rec, ok := r.Context().Value(recorderKey{}).(*statusRecorder); ok && rec.status != 0 {
			status = rec.status
		}
		m.requests.WithLabelValues(rm.route, methodLabel(r.Method), strconv.Itoa(status)).Inc()
		m.latency.WithLabelValues(rm.route).Observe(time.Since(start).Seconds())
	})
}

// methodLabel is the method as the metrics name it: a client may send
// any token as its method, and each would otherwise become a series of
// its own, so the ones HTTP defines are kept and the rest are "other".
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}

// nameRoute is the router's middleware that tells measureRequests which
// route matched.
func nameRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rm, ok := r.Context().Value(metricsKey{}).(*requestMetrics); ok {
			if route := mux.CurrentRoute(r); route != nil {
				if t, err := route.GetPathTemplate(); err == nil {
					rm.route = t
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// databaseErrors reports the store's count of database errors by kind.
type databaseErrors struct{ store *store.Store }

var databaseErrorsDesc = prometheus.NewDesc("freightsite_database_errors_total",
	"Errors of the database met by reads and writes, by kind: busy (locked by another writer too long), connection (PostgreSQL unreachable, gone or timed out), storage (read-only, full disk, I/O error), constraint, outcome_unknown (a commit whose answer never came), other.",
	[]string{"kind"}, nil)

func (c databaseErrors) Describe(ch chan<- *prometheus.Desc) { ch <- databaseErrorsDesc }

func (c databaseErrors) Collect(ch chan<- prometheus.Metric) {
	counts := c.store.Errors()
	for i, kind := range store.ErrorKinds {
		ch <- prometheus.MustNewConstMetric(databaseErrorsDesc, prometheus.CounterValue, float64(counts[i]), kind)
	}
}

// outboxCollector reports the outbox's messages by state, counted when
// Prometheus scrapes.
type outboxCollector struct{ store *store.Store }

var outboxDesc = prometheus.NewDesc("freightsite_outbox_messages", "Messages in the outbox, by state (pending, sent, held, suppressed, failed).", []string{"state"}, nil)

func (c outboxCollector) Describe(ch chan<- *prometheus.Desc) { ch <- outboxDesc }

func (c outboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts := map[string]float64{"pending": 0, "sent": 0, "held": 0, "suppressed": 0, "failed": 0}
	states, err := c.store.OutboxStates(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(outboxDesc, err)
		return
	}
	for state, n := range states {
		counts[state] = float64(n)
	}
	for state, n := range counts {
		ch <- prometheus.MustNewConstMetric(outboxDesc, prometheus.GaugeValue, n, state)
	}
}
