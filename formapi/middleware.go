package formapi

import (
	"context"
	"errors"
	"freightsite/internal/store"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// statusRecorder remembers the status a handler wrote, for the log
// line. The answer's X-Request-Id value and the log line's attributes
// live in it rather than in allocations of their own.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
	err    error // the cause of a 5xx, logged, never sent
	id     [1]string
	attrs  [8]slog.Attr
	// held is the connection's WriteHolder while it holds this answer.
	held WriteHolder
}

// A WriteHolder keeps what is written to a connection between Hold and
// Release and sends it in one write on Release, or before the server
// reads from the connection (the connections of freightsite serve, api
// and dev are ones).
// net/http writes an answer whose body outgrows its 4 KB buffer in two
// writes, and each write is a TCP push of its own.
type WriteHolder interface {
	Hold()
	Release() error
}

type writeHolderKey struct{}

// WithWriteHolder gives the requests on a connection its WriteHolder:
// each answer then leaves in one write.
func WithWriteHolder(ctx context.Context, h WriteHolder) context.Context {
	return context.WithValue(ctx, writeHolderKey{}, h)
}

// hold makes the connection hold the answer, when it can.
func (s *statusRecorder) hold(r *http.Request) {
	if h, ok := r.Context().Value(writeHolderKey{}).(WriteHolder); ok {
		h.Hold()
		s.held = h
	}
}

// release sends the held answer: one of known length (Content-Length)
// whole, out of net/http's buffers; any other as far as it went (a small
// one is still in those buffers, and net/http sends it in one write when
// the handler returns).
func (s *statusRecorder) release() {
	if s.held == nil {
		return
	}
	if s.status != 0 && s.Header().Get("Content-Length") != "" {
		_ = http.NewResponseController(s.ResponseWriter).Flush()
	}
	s.letGo()
}

// FlushError sends what the handler wrote so far, and the rest as it
// comes: an answer that flushes is streamed (freightsite dev's events).
func (s *statusRecorder) FlushError() error {
	err := http.NewResponseController(s.ResponseWriter).Flush()
	s.letGo()
	return err
}

// letGo sends what the connection holds and stops holding.
func (s *statusRecorder) letGo() {
	if s.held != nil {
		_ = s.held.Release()
		s.held = nil
	}
}

type recorderKey struct{}

// noteError records the cause of a failed request for its log line.
func noteError(r *http.Request, err error) {
	if rec, ok := r.Context().Value(recorderKey{}).(*statusRecorder); ok {
		rec.err = err
	}
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// logRequests writes one slog line per request: method, path (never the
// query, which may hold tokens), status, size, duration, the client's
// address (from X-Forwarded-For of a trusted proxy) and a request id,
// which the answer carries in X-Request-Id. The id is the proxy's
// X-Request-Id (nginx's $request_id) when a trusted proxy sends one, so
// both logs name the request alike. Successful probes write no line.
func logRequests(log *slog.Logger, trusted []netip.Prefix, next http.Handler) http.Handler {
	clientIP := clientIPFunc(trusted)
	ids := newRequestIDs()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := ""
		if len(trusted) > 0 {
			if _, ok := trustedPeer(trusted, r); ok {
				id = r.Header.Get("X-Request-Id")
			}
		}
		if id == "" || len(id) > 64 || strings.ContainsFunc(id, func(c rune) bool { return c <= ' ' || c > '~' }) {
			id = ids.next()
		}
		rec := &statusRecorder{ResponseWriter: w}
		rec.id[0] = id
		w.Header()["X-Request-Id"] = rec.id[:]
		rec.hold(r)
		defer rec.release() // a handler that panics holds nothing back either
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), recorderKey{}, rec)))
		rec.release()
		if probePaths[r.URL.Path] && rec.status < 300 {
			return
		}
		// A server error is an ERROR line: it needs someone's attention.
		// A refusal while the database is out is not: the store logs the
		// outage itself, once, then a count a minute (internal/store/outage.go).
		level := slog.LevelInfo
		if rec.status >= 500 && !errors.Is(rec.err, store.ErrUnavailable) && !errors.Is(rec.err, store.ErrOutcomeUnknown) {
			level = slog.LevelError
		}
		h := log.Handler()
		if !h.Enabled(r.Context(), level) {
			return
		}
		end := time.Now()
		attrs := rec.attrs[:7]
		attrs[0], attrs[1] = slog.String("method", r.Method), slog.String("path", r.URL.Path)
		attrs[2], attrs[3] = slog.Int("status", rec.status), slog.Int("bytes", rec.bytes)
		attrs[4] = slog.Float64("ms", float64(end.Sub(start).Microseconds())/1000)
		attrs[5], attrs[6] = slog.String("client", clientIP(r)), slog.String("id", id)
		if rec.err != nil {
			attrs = append(attrs, slog.String("err", rec.err.Error()))
		}
		// Typed attributes (no boxing) and no caller's PC, which the line
		// does not show: Logger.LogAttrs would walk the stack for it.
		line := slog.NewRecord(end, level, "request", 0)
		line.AddAttrs(attrs...)
		_ = h.Handle(r.Context(), line)
	})
}

// recoverPanics turns a panic in a handler into a logged 500 with a
// generic JSON error, so no stack trace reaches a client.
func recoverPanics(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("panic", "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
				writeJSON(w, http.StatusInternalServerError, errorBody{Error: "internal error"})
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// securityHeaders are sent with every answer, pages and API alike; the
// static pages add their CSP from the build's _headers.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["X-Content-Type-Options"] = nosniff
		h["Referrer-Policy"] = referrerPolicy
		h["X-Frame-Options"] = frameDeny
		if isHTTPS(r) {
			h["Strict-Transport-Security"] = hsts
		}
		next.ServeHTTP(w, r)
	})
}

// apiHeaders mark every answer as data: nothing in it may run or be
// framed, and no cache keeps it, unless its handler says otherwise (a
// cacheable list, a page the API writes with its own CSP, the static
// site with the headers of its build).
func apiHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Security-Policy"] = dataCSP
		h["Cross-Origin-Resource-Policy"] = sameOrigin
		h["Cache-Control"] = noStore
		next.ServeHTTP(w, r)
	})
}

// The values of the headers every answer gets, shared by all answers
// (canonical keys, set without an allocation a request). A handler that
// changes one sets a new value (Header.Set), never writes into these.
var (
	nosniff        = []string{"nosniff"}
	referrerPolicy = []string{"strict-origin-when-cross-origin"}
	frameDeny      = []string{"DENY"}
	hsts           = []string{"max-age=63072000; includeSubDomains"}
	dataCSP        = []string{"default-src 'none'; frame-ancestors 'none'"}
	sameOrigin     = []string{"same-origin"}
	noStore        = []string{"no-store"}
)

// clientBody is a request body that remembers why reading it failed when
// the client is to blame: a body cut short of its Content-Length, a
// malformed chunk, data that stopped coming before the read deadline.
// writeError then answers 400 (408 for the deadline) whatever error the
// handler passed on, since none of those is the server's fault.
type clientBody struct {
	io.ReadCloser
	fault error
}

func (b *clientBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.fault == nil {
		b.fault = err
	}
	return n, err
}

type clientBodyKey struct{}

// watchBody wraps every request body in a clientBody.
func watchBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := &clientBody{ReadCloser: r.Body}
		r = r.WithContext(context.WithValue(r.Context(), clientBodyKey{}, b))
		r.Body = b
		next.ServeHTTP(w, r)
	})
}

// bodyFault is why the client's body could not be read, or nil.
func bodyFault(r *http.Request) error {
	if b, ok := r.Context().Value(clientBodyKey{}).(*clientBody); ok {
		return b.fault
	}
	return nil
}

// limitBody refuses bodies over n bytes with 413, before reading them when
// Content-Length says so, and while reading otherwise.
func limitBody(n int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > n {
			writeError(w, r, &http.MaxBytesError{Limit: n})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, n)
		next.ServeHTTP(w, r)
	})
}

// UploadRate is how long an upload may take: it must keep arriving at
// MinBytesPerSecond on average once Grace has passed, and may take up to
// Max in all. A 50 MB file on a slow phone line takes minutes, which the
// server's usual read timeout would cut short; a client sending a byte a
// second must not hold a connection for all of Max.
type UploadRate struct {
	MinBytesPerSecond int64
	Grace, Max        time.Duration
}

// DefaultUploadRate asks 4 KiB/s (32 kbit/s, slower than any phone line
// that can send a form) after 30 s, for at most 15 minutes.
var DefaultUploadRate = UploadRate{MinBytesPerSecond: 4 << 10, Grace: 30 * time.Second, Max: 15 * time.Minute}

// limitUploadRate applies u to a route's body: before each read the
// connection's read deadline is set to when the bytes so far would be
// too few; a read past it fails and is answered 408 (writeError).
func limitUploadRate(u UploadRate, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		start := time.Now()
		_ = rc.SetWriteDeadline(start.Add(u.Max + time.Minute))
		r.Body = &rateLimitedBody{ReadCloser: r.Body, rc: rc, start: start, rate: u}
		next.ServeHTTP(w, r)
	})
}

type rateLimitedBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	start time.Time
	rate  UploadRate
	read  int64
}

func (b *rateLimitedBody) Read(p []byte) (int, error) {
	due := b.start.Add(b.rate.Grace + time.Duration(float64(b.read)/float64(b.rate.MinBytesPerSecond)*float64(time.Second)))
	if last := b.start.Add(b.rate.Max); last.Before(due) {
		due = last
	}
	_ = b.rc.SetReadDeadline(due)
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	return n, err
}

type httpsKey struct{}

// forwardedHTTPS marks a request that a trusted proxy received over HTTPS
// (X-Forwarded-Proto: https), so cookies get Secure and answers HSTS
// behind nginx's TLS as they do when the server holds the TLS itself.
func forwardedHTTPS(trusted []netip.Prefix, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(trusted) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		if _, ok := trustedPeer(trusted, r); ok && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
			r = r.WithContext(context.WithValue(r.Context(), httpsKey{}, true))
		}
		next.ServeHTTP(w, r)
	})
}

// isHTTPS reports whether the visitor reached us over HTTPS, directly or
// through a trusted proxy.
func isHTTPS(r *http.Request) bool {
	return r.TLS != nil || r.Context().Value(httpsKey{}) != nil
}

// requestIDs makes request ids: a random prefix per process and a
// counter, unique without a random read per request.
type requestIDs struct {
	prefix string
	n      atomic.Uint64
}

func newRequestIDs() *requestIDs {
	return &requestIDs{prefix: randomToken(6)}
}

func (ids *requestIDs) next() string {
	var b [40]byte // one allocation: the string
	id := append(append(b[:0], ids.prefix...), '-')
	return string(strconv.AppendUint(id, ids.n.Add(1), 36))
}
