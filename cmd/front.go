package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"freightsite/formapi"
)

// front answers the requests a connection starts with, as long as they
// are plain page and file requests, and hands the connection to net/http
// at its first other request, with the bytes it has read, for the rest of
// its life. A plain request is a GET or HEAD of HTTP/1.1 with a Host, no
// body and no Expect or Upgrade, of a path the API does not own
// (formapi.OwnsPath): the pages, scripts, styles and images a browser
// loads, nearly all of what serve answers. Its answer comes from the same
// handler, with every middleware (log line, request id, security
// headers); front only reads the request with net/http's own parser
// (http.ReadRequest) and writes the answer as net/http would, in one
// write. Anything it is not sure of (a request it cannot parse, a header
// block past frontMaxHead, a line ending in a bare LF) goes to net/http
// too, which answers it as it always did. An answer leaves whole when
// its handler returns, so nothing streams through front (Flush is not
// supported): it is serve's, not dev's, whose page events stream.
//
// net/http spends most of a static answer's time around the handler (a
// response and its buffers, the header map cloned, sorted and escaped, a
// goroutine reading ahead for every request): serve's static answers ran
// at 0.73 of nginx's rate with it and 1.03 with front, at 1.10 times
// nginx's CPU time an answer (issue 14, make bench).
type front struct {
	h        http.Handler
	log      *slog.Logger
	handoffs *handoffListener
	// connState is told of each connection's start and end (as net/http's
	// ConnState hook: the drain counts those from proxies).
	connState func(net.Conn, http.ConnState)
	answers   bool // false: every connection goes to net/http at once
	// how long a header block may take to come, and a connection wait
	// for its next request (frontHeadTimeout, frontIdleTimeout)
	headTimeout, idleTimeout time.Duration

	mu      sync.Mutex
	conns   map[*frontConn]bool // open, true while a request is under way
	closing bool
}

// The limits of a connection front serves, as listenAndServe's
// http.Server has them.
const (
	frontHeadTimeout  = 10 * time.Second  // ReadHeaderTimeout
	frontWriteTimeout = 60 * time.Second  // WriteTimeout
	frontIdleTimeout  = 120 * time.Second // IdleTimeout
	frontMaxHead      = 16 << 10          // a longer header block goes to net/http (its limit is 1 MB)
	frontKeep         = 64 << 10          // the largest answer buffers a connection keeps between answers
)

type frontConn struct {
	net.Conn
	buf    []byte // read and not yet answered: the request under way and any after it
	remote string
	rd     bytes.Reader
	br     *bufio.Reader
	w      frontWriter
}

func newFront(h http.Handler, log *slog.Logger, addr net.Addr, connState func(net.Conn, http.ConnState), answers bool) *front {
	return &front{
		h:           h,
		log:         log,
		handoffs:    &handoffListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})},
		connState:   connState,
		answers:     answers,
		headTimeout: frontHeadTimeout,
		idleTimeout: frontIdleTimeout,
		conns:       map[*frontConn]bool{},
	}
}

// accept takes ln's connections until it fails (closed), pausing after a
// temporary failure (too many open files) as net/http does.
func (f *front) accept(ln net.Listener) error {
	var pause time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Temporary() { //nolint:staticcheck // as http.Server.Serve
				pause = min(max(2*pause, 5*time.Millisecond), time.Second)
				f.log.Warn("accepting a connection failed; retrying", "error", err, "in", pause)
				time.Sleep(pause)
				continue
			}
			return err
		}
		pause = 0
		if !f.answers {
			f.handOff(c, nil)
			continue
		}
		go f.serve(&frontConn{Conn: c, remote: c.RemoteAddr().String()})
	}
}

var frontReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// serve answers c's plain requests until it closes, idles out or hands
// it off.
func (f *front) serve(c *frontConn) {
	if !f.track(c, false) {
		c.Close()
		return
	}
	f.connState(c.Conn, http.StateNew)
	handedOff := false
	defer func() {
		if v := recover(); v != nil && v != http.ErrAbortHandler {
			f.log.Error("panic serving a connection", "remote", c.remote, "panic", v)
		}
		f.untrack(c)
		if handedOff {
			f.connState(c.Conn, http.StateHijacked)
		} else {
			c.Close()
			f.connState(c.Conn, http.StateClosed)
		}
	}()
	c.br = frontReaders.Get().(*bufio.Reader)
	defer func() { c.br.Reset(nil); frontReaders.Put(c.br) }()
	c.buf = make([]byte, 0, 4096)
	for first := true; ; first = false {
		end, ok := f.readHead(c, first)
		if !ok {
			return
		}
		var r *http.Request
		if end > 0 {
			r = c.parse(end)
		}
		if r == nil || !plain(r) {
			_ = c.SetDeadline(time.Time{})
			handedOff = true
			f.handOff(c.Conn, c.buf)
			return
		}
		if !f.answer(c, r) {
			return
		}
		c.buf = c.buf[:copy(c.buf, c.buf[end:])]
		if !f.track(c, len(c.buf) > 0) { // a request may be read already
			return
		}
	}
}

// readHead reads until c.buf holds a whole header block and returns its
// length; 0 when net/http should read it (too long, bare LF line ends);
// false when the connection is done (closed, timed out).
func (f *front) readHead(c *frontConn, first bool) (int, bool) {
	wait, head := f.idleTimeout, first || len(c.buf) > 0
	if head {
		wait = f.headTimeout
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	for {
		if i := bytes.Index(c.buf, []byte("\n\r\n")); i >= 0 {
			if i+3 > frontMaxHead || bytes.Contains(c.buf[:i+1], []byte("\n\n")) {
				return 0, true
			}
			return i + 3, true
		}
		if bytes.Contains(c.buf, []byte("\n\n")) || len(c.buf) >= frontMaxHead {
			return 0, true
		}
		if len(c.buf) > 0 && !head { // the rest of a header block begun
			_ = c.SetReadDeadline(time.Now().Add(f.headTimeout))
			head = true
		}
		if len(c.buf) == cap(c.buf) {
			c.buf = append(c.buf, make([]byte, cap(c.buf))...)[:len(c.buf)]
		}
		n, err := c.Read(c.buf[len(c.buf):cap(c.buf)])
		if n > 0 && len(c.buf) == 0 {
			f.track(c, true) // a request is under way: a stop lets it finish
		}
		c.buf = c.buf[:len(c.buf)+n]
		if err != nil {
			return 0, false
		}
	}
}

// parse reads the request whose header block is c.buf[:end], as
// net/http's server does (textproto checks the header's names and
// values); nil when net/http should.
func (c *frontConn) parse(end int) *http.Request {
	c.rd.Reset(c.buf[:end])
	c.br.Reset(&c.rd)
	r, err := http.ReadRequest(c.br)
	if err != nil {
		return nil
	}
	if !validHost(r.Host) { // ReadRequest refused two; none leaves it empty
		return nil
	}
	r.RemoteAddr = c.remote
	return r
}

// plain reports whether front answers r itself.
func plain(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead || r.ProtoMajor != 1 || r.ProtoMinor != 1 || r.Close {
		return false
	}
	if !strings.HasPrefix(r.RequestURI, "/") || formapi.OwnsPath(r.URL.Path) {
		return false
	}
	for k, vv := range r.Header {
		switch k {
		case "Content-Length", "Transfer-Encoding", "Expect", "Upgrade", "Trailer":
			return false
		}
		if !validHeader(k, vv) {
			return false
		}
	}
	return true
}

// validHeader checks a header's name and values as net/http's server
// does (httpguts.ValidHeaderFieldName and ValidHeaderFieldValue), which
// textproto leaves to it.
func validHeader(name string, values []string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	for _, v := range values {
		for i := 0; i < len(v); i++ {
			if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
				return false
			}
		}
	}
	return true
}

// validHost accepts the host names and addresses a browser sends; net/http
// judges anything else.
func validHost(h string) bool {
	if h == "" {
		return false
	}
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '-', c == ':', c == '[', c == ']', c == '_':
		default:
			return false
		}
	}
	return true
}

// answer runs the handler for r and sends its answer in one write; false
// when the connection is to close.
func (f *front) answer(c *frontConn, r *http.Request) bool {
	w := &c.w
	w.reset(r.Method == http.MethodHead)
	f.h.ServeHTTP(w, r)
	f.mu.Lock()
	closing := f.closing
	f.mu.Unlock()
	out, keep := w.finish(closing)
	_ = c.SetWriteDeadline(time.Now().Add(frontWriteTimeout))
	_, err := c.Write(out)
	if cap(w.out) > frontKeep { // an idle connection keeps no large file
		w.body, w.out = nil, nil
	}
	return err == nil && keep
}

// handOff gives c to net/http, which reads pending first.
func (f *front) handOff(c net.Conn, pending []byte) {
	if len(pending) > 0 {
		c = &replayConn{Conn: c, pending: bytes.Clone(pending)}
	}
	select {
	case f.handoffs.conns <- &holdingConn{Conn: c}:
	case <-f.handoffs.done:
		c.Close()
	}
}

// track notes whether c has a request under way; false when front is
// stopping and c, idle, is to close (one under way always goes on).
func (f *front) track(c *frontConn, active bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closing && !active {
		return false
	}
	f.conns[c] = active
	return true
}

func (f *front) untrack(c *frontConn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.conns, c)
}

// stop closes the idle connections and lets those with a request under
// way finish it (they close after its answer) until deadline, then closes
// what is left; it returns how many it had to close then.
func (f *front) stop(deadline time.Time) int {
	f.mu.Lock()
	f.closing = true
	for c, active := range f.conns {
		if !active {
			c.Close()
		}
	}
	f.mu.Unlock()
	for {
		f.mu.Lock()
		n := len(f.conns)
		late := n > 0 && time.Now().After(deadline)
		if late {
			for c := range f.conns {
				c.Close()
			}
		}
		f.mu.Unlock()
		if n == 0 || late {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// handoffListener is the listener of net/http's server: the connections
// front hands it.
type handoffListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *handoffListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *handoffListener) Addr() net.Addr { return l.addr }

// replayConn reads pending before the connection.
type replayConn struct {
	net.Conn
	pending []byte
}

func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

func (c *replayConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// frontWriter keeps a handler's answer and writes it as net/http's
// server would (chunkWriter.writeHeader): the header as it was at
// WriteHeader, Content-Length, a sniffed Content-Type, Date; no body for
// HEAD, 204 and 304.
type frontWriter struct {
	header http.Header
	// out is the answer, written at once: the status line and the
	// handler's header from WriteHeader, net/http's headers and the body
	// from finish.
	out []byte
	// names are the last answer's header names, sorted, and which of
	// them are valid: answers on a connection mostly have the same.
	names       []string
	valid       []bool
	body        []byte
	status      int
	isHEAD      bool
	wroteHeader bool
	// the handler's header at WriteHeader
	hasLength, hasType, hasEncoding, hasDate, closes bool
	length                                           int
}

func (w *frontWriter) reset(isHEAD bool) {
	if w.header == nil {
		w.header = http.Header{}
	}
	clear(w.header)
	w.out = w.out[:0]
	w.body = w.body[:0]
	w.status, w.isHEAD, w.wroteHeader = 0, isHEAD, false
}

func (w *frontWriter) Header() http.Header { return w.header }

// suppressed are the headers an answer without a body leaves out.
var suppressed = map[int]map[string]bool{
	http.StatusNotModified: {"Content-Type": true, "Content-Length": true, "Transfer-Encoding": true},
	http.StatusNoContent:   {"Content-Length": true, "Transfer-Encoding": true},
}

// noTE: front always sends a length, never chunks.
var noTE = map[string]bool{"Transfer-Encoding": true}

func (w *frontWriter) WriteHeader(code int) {
	if w.wroteHeader || code >= 100 && code <= 199 {
		return // a second status is ignored, as are 1xx (no page sends one)
	}
	if code < 100 || code > 999 {
		panic("invalid WriteHeader code " + strconv.Itoa(code))
	}
	w.wroteHeader, w.status = true, code
	h := w.header
	w.length, w.hasLength = 0, false
	if cl := h.Get("Content-Length"); cl != "" {
		if n, err := strconv.Atoi(cl); err == nil && n >= 0 {
			w.length, w.hasLength = n, true
		}
	}
	_, w.hasType = h["Content-Type"]
	w.hasEncoding = h.Get("Content-Encoding") != ""
	_, w.hasDate = h["Date"]
	w.closes = h.Get("Connection") == "close"
	w.out = strconv.AppendInt(append(w.out, "HTTP/1.1 "...), int64(code), 10)
	if text := http.StatusText(code); text != "" {
		w.out = append(append(w.out, ' '), text...)
	} else {
		w.out = strconv.AppendInt(append(w.out, " status code "...), int64(code), 10)
	}
	w.out = append(w.out, "\r\n"...)
	exclude := noTE
	if s, ok := suppressed[code]; ok {
		exclude = s
		w.hasLength = false
	}
	w.writeHeader(exclude)
}

// writeHeader appends the handler's header but the excluded names, as
// http.Header.WriteSubset writes it (names in order, an invalid one left
// out, line breaks in a value made spaces, the value trimmed) without its
// per-answer allocations.
func (w *frontWriter) writeHeader(exclude map[string]bool) {
	if !w.sameNames() {
		w.names = w.names[:0]
		for k := range w.header {
			w.names = append(w.names, k)
		}
		slices.Sort(w.names)
		w.valid = w.valid[:0]
		for _, k := range w.names {
			w.valid = append(w.valid, validHeader(k, nil))
		}
	}
	for i, k := range w.names {
		if !w.valid[i] || exclude[k] {
			continue
		}
		for _, v := range w.header[k] {
			if strings.IndexByte(v, '\n') >= 0 || strings.IndexByte(v, '\r') >= 0 {
				v = strings.NewReplacer("\r", " ", "\n", " ").Replace(v)
			}
			w.out = append(append(append(append(w.out, k...), ": "...), strings.Trim(v, " \t")...), "\r\n"...)
		}
	}
}

// sameNames reports whether the header has the last answer's names:
// as many, all there.
func (w *frontWriter) sameNames() bool {
	if len(w.header) != len(w.names) {
		return false
	}
	for _, k := range w.names {
		if _, ok := w.header[k]; !ok {
			return false
		}
	}
	return true
}

func (w *frontWriter) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if w.hasLength && len(w.body)+len(p) > w.length && !w.isHEAD {
		return 0, http.ErrContentLength
	}
	w.body = append(w.body, p...)
	return len(p), nil
}

func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// finish returns the answer's bytes and whether the connection may serve
// another request: not when the handler said close, sent less than its
// Content-Length, or the server is stopping.
func (w *frontWriter) finish(stopping bool) ([]byte, bool) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	keep := !w.closes && !stopping
	if bodyAllowed(w.status) {
		if !w.hasLength && (!w.isHEAD || len(w.body) > 0) {
			w.out = append(w.out, "Content-Length: "...)
			w.out = strconv.AppendInt(w.out, int64(len(w.body)), 10)
			w.out = append(w.out, "\r\n"...)
		}
		if w.hasLength && !w.isHEAD && len(w.body) < w.length {
			keep = false
		}
		if !w.hasType && !w.hasEncoding && len(w.body) > 0 {
			w.out = append(w.out, "Content-Type: "...)
			w.out = append(w.out, http.DetectContentType(w.body)...)
			w.out = append(w.out, "\r\n"...)
		}
	}
	if !w.hasDate {
		w.out = append(w.out, "Date: "...)
		w.out = time.Now().UTC().AppendFormat(w.out, http.TimeFormat)
		w.out = append(w.out, "\r\n"...)
	}
	if stopping && !w.closes {
		w.out = append(w.out, "Connection: close\r\n"...)
	}
	w.out = append(w.out, "\r\n"...)
	if !w.isHEAD && bodyAllowed(w.status) {
		w.out = append(w.out, w.body...)
	}
	return w.out, keep
}
