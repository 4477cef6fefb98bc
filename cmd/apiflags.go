package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"freightsite/data"
	"freightsite/formapi"
)

// apiFlags are the flags `serve` and `api` share: the database, mail,
// secret, rate limits and proxies.
type apiFlags struct {
	db             string
	secret         string
	smtpURL        string
	mailFrom       string
	rateLimits     []string
	trustedProxies []string
	accounts       accountFlags
	stopTimeout    time.Duration
}

func (f *apiFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.db, "db", "freightsite.db", "SQLite database file (created with its tables on first start)")
	fs.StringVar(&f.secret, "secret", "", "server secret (32+ characters) that signs anti-forgery tokens (default: generated once and kept in the database)")
	fs.StringVar(&f.smtpURL, "smtp-url", "", "SMTP server for the outbox: smtp://host:25, smtp+starttls://user:pass@host:587 or smtps://user:pass@host:465 (default: hold messages in the outbox, where freightsite mail outbox --show ID prints one)")
	fs.StringVar(&f.mailFrom, "mail-from", "", "sender address of outgoing mail (default: the provider's e-mail in data/site.json)")
	fs.StringSliceVar(&f.rateLimits, "rate-limit", nil, "per-client limit NAME=COUNT/DURATION or NAME=off, repeatable; names: contact, feedback, unsubscribe, uniqueness, auction, signin, registration, forgot, reset, captcha (defaults 10/1m, 5/1m, 10/1m, 30/1m, 10/1m, 30/1m, 10/1m, 10/1m, 10/1m, 60/1m)")
	f.accounts.register(fs)
	fs.StringSliceVar(&f.trustedProxies, "trusted-proxy", nil, "address or CIDR of a reverse proxy whose X-Forwarded-For names the client (e.g. 127.0.0.1 behind nginx on the same host)")
	fs.DurationVar(&f.stopTimeout, "stop-timeout", 20*time.Second, "on SIGINT or SIGTERM, how long requests in flight may take to finish; then the connections still open are closed")
}

// apiRuntime is an open API: its handler, and stop to call after the
// HTTP server has stopped.
type apiRuntime struct {
	handler http.Handler
	store   *formapi.Store
	stop    func()
}

// openAPI opens the database, starts the mail sender and builds the
// handler; site (may be nil) answers the paths the API does not own.
func (f *apiFlags) open(ctx context.Context, log *slog.Logger, site http.Handler) (*apiRuntime, error) {
	rates, err := formapi.ParseRates(f.rateLimits)
	if err != nil {
		return nil, exitError{2, err}
	}
	proxies, err := formapi.ParseTrustedProxies(f.trustedProxies)
	if err != nil {
		return nil, exitError{2, err}
	}
	if err := f.accounts.validate(); err != nil {
		return nil, err
	}
	var mailer *formapi.SMTPMailer
	if f.smtpURL != "" {
		from := f.mailFrom
		if from == "" {
			from = data.Site().Provider.Email
		}
		if mailer, err = formapi.NewSMTPMailer(f.smtpURL, from); err != nil {
			return nil, exitError{2, err}
		}
	}
	store, err := formapi.OpenStore(f.db, log)
	if err != nil {
		return nil, err
	}
	secret, err := store.Secret(ctx, f.secret)
	if err != nil {
		store.Close()
		return nil, exitError{2, err}
	}
	mailCtx, stopMail := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { store.RunMail(mailCtx, formapi.MailOptions{SMTP: mailer, Log: log}) })
	h := formapi.NewServer(formapi.Config{Logger: log, Site: site, Store: store, Secret: secret, Rates: rates, TrustedProxies: proxies, Accounts: f.accounts.opts})
	return &apiRuntime{handler: h, store: store, stop: func() {
		stopMail()
		wg.Wait()
		store.Close()
	}}, nil
}

// openStore opens the database for the data commands (news, tenant, mail).
func openStore(db string) (*formapi.Store, error) {
	s, err := formapi.OpenStore(db, nil)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", db, err)
	}
	return s, nil
}

// newLogger is the text slog of the servers, written to w through a
// serverLog; call stop when the server has stopped.
func newLogger(w io.Writer) (log *slog.Logger, stop func()) {
	l := &serverLog{buf: bufio.NewWriterSize(w, 64<<10), done: make(chan struct{})}
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
	return slog.New(flushingHandler{slog.NewTextHandler(l, nil), l}), func() {
		close(l.done)
		l.wg.Wait()
		l.flush()
	}
}

// serverLog holds log lines for at most logFlushEvery and writes them
// together: under load one write carries many request lines instead of
// one write each (nginx's access_log buffer= and flush= do the same). A
// warning or an error is written at once (flushingHandler).
type serverLog struct {
	mu   sync.Mutex
	buf  *bufio.Writer
	done chan struct{}
	wg   sync.WaitGroup
}

const logFlushEvery = 200 * time.Millisecond

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
