package cmd

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"

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
}

func (f *apiFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.db, "db", "freightsite.db", "SQLite database file (created with its tables on first start)")
	fs.StringVar(&f.secret, "secret", "", "server secret (32+ characters) that signs anti-forgery tokens (default: generated once and kept in the database)")
	fs.StringVar(&f.smtpURL, "smtp-url", "", "SMTP server for the outbox: smtp://host:25, smtp+starttls://user:pass@host:587 or smtps://user:pass@host:465 (default: log messages instead of sending them)")
	fs.StringVar(&f.mailFrom, "mail-from", "", "sender address of outgoing mail (default: the provider's e-mail in data/site.json)")
	fs.StringSliceVar(&f.rateLimits, "rate-limit", nil, "per-client limit NAME=COUNT/DURATION or NAME=off, repeatable; names: contact, feedback, unsubscribe, uniqueness, auction, signin, registration, forgot, reset, captcha (defaults 10/1m, 5/1m, 10/1m, 30/1m, 10/1m, 30/1m, 10/1m, 10/1m, 10/1m, 60/1m)")
	f.accounts.register(fs)
	fs.StringSliceVar(&f.trustedProxies, "trusted-proxy", nil, "address or CIDR of a reverse proxy whose X-Forwarded-For names the client (e.g. 127.0.0.1 behind nginx on the same host)")
}

// apiRuntime is an open API: its handler, and stop to call after the
// HTTP server has stopped.
type apiRuntime struct {
	handler http.Handler
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
	return &apiRuntime{handler: h, stop: func() {
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

// newLogger is the text slog of the servers.
func newLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
