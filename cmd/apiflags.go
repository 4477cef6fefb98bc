package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/mail"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"freightsite/data"
	"freightsite/formapi"
	"freightsite/internal/plaintext"
	"freightsite/generator"
)

// apiFlags are the flags `serve` and `api` share: the database, mail,
// secret, rate limits, proxies, the operator's settings and the log.
type apiFlags struct {
	fs                *pflag.FlagSet
	db                string
	secret            string
	smtpURL           string
	mailFrom          string
	providerEmail     string
	rateLimits        []string
	trustedProxies    []string
	allowLocalBaseURL bool
	logFile           string
	accounts          accountFlags
	stopTimeout       time.Duration
	connsPerClient    int
	metricsAddr       string
	// hosts says which host names the server answers: any (api, behind
	// its proxy, which names the host it serves), the site's (serve) or
	// this machine's (dev).
	hosts hostNames
}

// hostNames are the host names a server answers (formapi.Hosts).
type hostNames int

const (
	anyHost    hostNames = iota
	siteHosts            // the base URL's host, its tenants and --site-origin; any host when the base URL is localhost
	localHosts           // localhost names and the server's own address
)

func (f *apiFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.db, "db", "freightsite.db", "the database: a SQLite file, or a PostgreSQL URL postgres://USER:PASSWORD@HOST/NAME that several instances may share (a SQLite file is created with its tables on first start, readable by its owner only)")
	fs.StringVar(&f.secret, "secret", "", "server secret (32+ characters) that signs anti-forgery tokens (default: generated once and kept in the database)")
	fs.StringVar(&f.smtpURL, "smtp-url", "", "SMTP server for the outbox: smtp://host:25, smtp+starttls://user:pass@host:587 or smtps://user:pass@host:465 (default: hold messages in the outbox, where freightsite mail outbox --show ID prints one)")
	fs.StringVar(&f.providerEmail, "provider-email", "", "address that receives the contact and feedback notifications (default: provider.email of data/site.json, a placeholder)")
	fs.StringVar(&f.mailFrom, "mail-from", "", "sender address of outgoing mail (default: the provider's e-mail)")
	fs.StringSliceVar(&f.rateLimits, "rate-limit", nil, "per-client limit NAME=COUNT/DURATION or NAME=off, repeatable; the names and their defaults: "+formapi.DefaultRatesText())
	f.accounts.register(fs)
	fs.StringSliceVar(&f.trustedProxies, "trusted-proxy", nil, "address or CIDR of a reverse proxy whose X-Forwarded-For names the client (e.g. 127.0.0.1 behind nginx on the same host)")
	fs.BoolVar(&f.allowLocalBaseURL, "allow-local-base-url", false, "serve on an address other machines can reach although the base URL is localhost (links in pages and mail then lead nowhere)")
	fs.StringVar(&f.logFile, "log-file", "", "append the log to this file instead of standard error; SIGHUP reopens it (log rotation)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics, e.g. 127.0.0.1:9090: an address apart from the public one (default: off)")
	fs.IntVar(&f.connsPerClient, "max-conns-per-client", defaultConnsPerClient, "most connections one client (an IPv4 address, an IPv6 /64) may hold open at once; a further one is closed as it comes (0: no cap; a --trusted-proxy has none)")
	fs.DurationVar(&f.stopTimeout, "stop-timeout", defaultLimits.stop, "on SIGINT or SIGTERM, how long requests in flight may take to finish; then the connections still open are closed")
}

// flagErr is a bad value of a flag, named as the user gave it: --name,
// or the FREIGHTSITE_ variable it came from.
func (f *apiFlags) flagErr(name string, err error) error {
	return exitError{2, fmt.Errorf("%s: %w", flagSource(f.fs, name), err)}
}

// apiRuntime is an open API: its handler, the proxies it trusts and stop
// to call after the HTTP server has stopped.
type apiRuntime struct {
	handler http.Handler
	proxies []netip.Prefix
	store   *formapi.Store
	metrics *formapi.Metrics // nil without --metrics-addr
	stop    func()
}

// run serves the API (and site, unless nil) until the command's context
// ends: it checks the flags, opens the log, listens, refuses a local base
// URL on an address others can reach, opens the database (handing it to
// opened, unless nil) and serves.
func (f *apiFlags) run(c *cobra.Command, addr string, site http.Handler, built generator.Built, opened func(*formapi.Store)) error {
	logs, err := openServerLog(f.logFile, c.ErrOrStderr())
	if err != nil {
		return f.flagErr("log-file", err)
	}
	defer logs.stop()
	log := logs.logger()
	defer reopenOnHangup(log, logs)()
	if f.accounts.opts.BaseURL == "" {
		f.accounts.opts.BaseURL = built.BaseURL
	}
	if err := f.accounts.validate(f.fs); err != nil {
		return err
	}
	if f.connsPerClient < 0 {
		return f.flagErr("max-conns-per-client", fmt.Errorf("%d: want 0 (no cap) or more", f.connsPerClient))
	}
	ln, err := listen(addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	if err := f.checkExposure(ln.Addr(), built, log); err != nil {
		return err
	}
	var metricsLn net.Listener
	if f.metricsAddr != "" {
		if metricsLn, err = listenMetrics(f.metricsAddr, ln.Addr(), log); err != nil {
			return err
		}
		defer metricsLn.Close()
	}
	hosts, err := f.answeredHosts()
	if err != nil {
		return err
	}
	if hosts != nil {
		log.Info("answering only these hosts (421 for others; /healthz and /readyz on any)", "hosts", hosts.String())
	}
	rt, err := f.open(c.Context(), log, site, hosts)
	if err != nil {
		return err
	}
	defer rt.stop()
	if metricsLn != nil {
		defer serveMetrics(metricsLn, rt.metrics.Handler(), log)()
	}
	if opened != nil {
		opened(rt.store)
	}
	lim := defaultLimits
	lim.stop, lim.perClient = f.stopTimeout, f.connsPerClient
	return listenAndServe(c.Context(), log, ln, lim, rt.handler, newDrain(rt.proxies))
}

// answeredHosts are the host names the server answers (nil: any): for
// serve, the site's when its base URL is not localhost; for dev, this
// machine's.
func (f *apiFlags) answeredHosts() (*formapi.Hosts, error) {
	switch f.hosts {
	case localHosts:
		return formapi.LocalHosts(), nil
	case siteHosts:
		base := f.accounts.opts.BaseURL
		if u, err := url.Parse(base); err != nil || data.IsLoopbackHost(u.Hostname()) {
			return nil, nil // validate has refused a malformed one
		}
		hosts, err := formapi.SiteHosts(base, f.accounts.opts.SiteOrigins)
		if err != nil {
			return nil, exitError{2, err}
		}
		return hosts, nil
	}
	return nil, nil
}

// provider is data/site.json's provider with the operator's e-mail.
func (f *apiFlags) provider() data.Provider {
	p := data.Site().Provider
	if f.providerEmail != "" {
		p.Email = f.providerEmail
	}
	return p
}

// checkExposure refuses to serve links to localhost on an address other
// machines can reach (unless --allow-local-base-url), and warns about
// every placeholder still in use there.
func (f *apiFlags) checkExposure(addr net.Addr, built generator.Built, log *slog.Logger) error {
	if loopbackOnly(addr) {
		return nil
	}
	base := f.accounts.opts.BaseURL
	if base == "" {
		base = data.Site().BaseURL
	}
	for _, b := range []struct{ url, what string }{
		{built.BaseURL, "the pages were built with the base URL %s (canonical links, sitemap): rebuild with `freightsite build --base-url https://your.site`"},
		{base, "password-reset links start with %s: set --base-url https://your.site"},
	} {
		if u, err := url.Parse(b.url); err == nil && b.url != "" && data.IsLoopbackHost(u.Hostname()) {
			why := fmt.Sprintf(b.what, b.url)
			if !f.allowLocalBaseURL {
				return exitError{2, fmt.Errorf("listening on %s, which other machines can reach, but %s, or listen on 127.0.0.1 (--allow-local-base-url serves it anyway)", addr, why)}
			}
			log.Warn("serving links to localhost on an address other machines can reach (--allow-local-base-url)", "why", why)
		}
	}
	placeholders := built.Placeholders
	if email := f.provider().Email; data.IsLocalHost(email[strings.LastIndex(email, "@")+1:]) {
		placeholders = append(placeholders, "provider.email "+email+" (--provider-email: it receives every contact and feedback notification)")
	}
	if u, err := url.Parse(base); err == nil && data.IsLocalHost(u.Hostname()) && !data.IsLoopbackHost(u.Hostname()) {
		placeholders = append(placeholders, "base URL "+base+" (--base-url: password-reset links start with it)")
	}
	for _, p := range placeholders {
		log.Warn("a placeholder is in use on an address other machines can reach", "setting", p)
	}
	return nil
}

// open opens the database, starts the mail sender and builds the
// handler; site (may be nil) answers the paths the API does not own,
// hosts (may be nil) the host names answered.
func (f *apiFlags) open(ctx context.Context, log *slog.Logger, site http.Handler, hosts *formapi.Hosts) (*apiRuntime, error) {
	rates, err := formapi.ParseRates(f.rateLimits)
	if err != nil {
		return nil, f.flagErr("rate-limit", err)
	}
	proxies, err := formapi.ParseTrustedProxies(f.trustedProxies)
	if err != nil {
		return nil, f.flagErr("trusted-proxy", err)
	}
	provider := f.provider()
	if a, err := mail.ParseAddress(provider.Email); err != nil || a.Address != provider.Email {
		return nil, f.flagErr("provider-email", fmt.Errorf("%q is not a bare e-mail address", provider.Email))
	}
	// Both are shown by mail clients (the sender's name too).
	for _, flag := range []struct{ name, value string }{{"provider-email", f.providerEmail}, {"mail-from", f.mailFrom}} {
		if err := plaintext.CheckLine(flag.value); err != nil {
			return nil, f.flagErr(flag.name, err)
		}
	}
	var mailer *formapi.SMTPMailer
	if f.smtpURL != "" {
		from := f.mailFrom
		if from == "" {
			from = provider.Email
		}
		if mailer, err = formapi.NewSMTPMailer(f.smtpURL, from); err != nil {
			return nil, f.flagErr("smtp-url", err)
		}
	}
	store, err := formapi.OpenStore(f.db, log)
	if err != nil {
		return nil, err
	}
	secret, err := store.Secret(ctx, f.secret)
	if err != nil {
		store.Close()
		if f.secret != "" {
			return nil, f.flagErr("secret", err)
		}
		return nil, fmt.Errorf("reading the server secret from %s: %w", formapi.DisplayName(f.db), err)
	}
	var metrics *formapi.Metrics
	if f.metricsAddr != "" {
		metrics = formapi.NewMetrics(store)
	}
	mailCtx, stopMail := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { store.RunMail(mailCtx, formapi.MailOptions{SMTP: mailer, Log: log}) })
	h := formapi.NewServer(formapi.Config{Logger: log, Site: site, Store: store, Secret: secret, Rates: rates, TrustedProxies: proxies,
		Provider: provider, Accounts: f.accounts.opts, Version: version(), Metrics: metrics, Hosts: hosts})
	return &apiRuntime{handler: h, proxies: proxies, store: store, metrics: metrics, stop: func() {
		stopMail()
		wg.Wait()
		store.Close()
	}}, nil
}

// openStore opens the database for the data commands (news, tenant, mail).
func openStore(db string) (*formapi.Store, error) {
	s, err := formapi.OpenStore(db, nil)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", formapi.DisplayName(db), err)
	}
	return s, nil
}

// newLogger is the text slog of the servers, written to w through a
// serverLog; call stop when the server has stopped.
func newLogger(w io.Writer) (log *slog.Logger, stop func()) {
	l := newServerLog(w, nil, "")
	return l.logger(), l.stop
}

// openServerLog logs to the file at path (appending), or to stderr when
// path is empty.
func openServerLog(path string, stderr io.Writer) (*serverLog, error) {
	if path == "" {
		return newServerLog(stderr, nil, ""), nil
	}
	f, err := openLogFile(path)
	if err != nil {
		return nil, err
	}
	return newServerLog(f, f, path), nil
}

func openLogFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
}

// reopenOnHangup makes SIGHUP write out the held lines and reopen the log
// file (logrotate's postrotate sends it); it never stops the server.
// Call the function it returns when the server has stopped.
func reopenOnHangup(log *slog.Logger, l *serverLog) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-hup:
				if err := l.reopen(); err != nil {
					log.Error("SIGHUP: reopening the log file", "file", l.path, "err", err)
				} else if l.path != "" {
					log.Info("SIGHUP: log file reopened", "file", l.path)
				} else {
					log.Info("SIGHUP: held log lines written (logging to standard error: nothing to reopen)")
				}
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
	}
}

func newServerLog(w io.Writer, file *os.File, path string) *serverLog {
	l := &serverLog{buf: bufio.NewWriterSize(w, 64<<10), file: file, path: path, done: make(chan struct{})}
	l.wg.Go(func() {
		tick := time.NewTicker(logFlushEvery)
		defer tick.Stop()
		for {
			select {
			case <-l.done:
				return
			case <-tick.C:
				l.flush()
			}
		}
	})
	return l
}

// serverLog holds log lines for at most logFlushEvery and writes them
// together: under load one write carries many request lines instead of
// one write each (nginx's access_log buffer= and flush= do the same). A
// warning or an error is written at once (flushingHandler).
type serverLog struct {
	mu   sync.Mutex
	buf  *bufio.Writer
	file *os.File // the log file, nil for standard error
	path string
	done chan struct{}
	wg   sync.WaitGroup
}

const logFlushEvery = 200 * time.Millisecond

func (l *serverLog) logger() *slog.Logger {
	return slog.New(flushingHandler{slog.NewTextHandler(l, nil), l})
}

func (l *serverLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *serverLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Flush()
}

// reopen writes out the held lines and, logging to a file, opens its
// path again: after a rotation renamed it, new lines go to a new file.
func (l *serverLog) reopen() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.buf.Flush(); err != nil || l.file == nil {
		return err
	}
	f, err := openLogFile(l.path)
	if err != nil {
		return err
	}
	l.file.Close()
	l.file = f
	l.buf.Reset(f)
	return nil
}

// stop writes out what is left; call it when the server has stopped.
func (l *serverLog) stop() {
	close(l.done)
	l.wg.Wait()
	l.flush()
	if l.file != nil {
		l.file.Close()
	}
}

// flushingHandler writes out the held lines after a warning or an error.
type flushingHandler struct {
	slog.Handler
	log *serverLog
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		h.log.flush()
	}
	return err
}

func (h flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(attrs), h.log}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.log}
}
