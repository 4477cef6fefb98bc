package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	netmail "net/mail"
	"net/netip"
	"sync"

	"freightsite/data"
	"freightsite/formapi"
	"freightsite/internal/mail"
	"freightsite/internal/plaintext"
	"freightsite/internal/store"
)

// openedAPI is an open API: its handler, the proxies it trusts and close
// to call after the HTTP server has stopped.
type openedAPI struct {
	handler http.Handler
	proxies []netip.Prefix
	store   *store.Store
	metrics *formapi.Metrics // nil without a metrics address
	close   func()
}

// openAPI checks the API's settings, opens the database, starts the mail
// sender and builds the handler; opts.Site (may be nil) answers the
// paths the API does not own, hosts (may be nil) are the host names
// answered.
func openAPI(ctx context.Context, opts Options, log *slog.Logger, hosts *formapi.Hosts) (*openedAPI, error) {
	rates, err := formapi.ParseRates(opts.RateLimits)
	if err != nil {
		return nil, settingErr("rate-limit", err)
	}
	proxies, err := formapi.ParseTrustedProxies(opts.TrustedProxies)
	if err != nil {
		return nil, settingErr("trusted-proxy", err)
	}
	provider := providerOf(opts)
	if a, err := netmail.ParseAddress(provider.Email); err != nil || a.Address != provider.Email {
		return nil, settingErr("provider-email", fmt.Errorf("%q is not a bare e-mail address", provider.Email))
	}
	// Both are shown by mail clients (the sender's name too).
	for _, s := range []struct{ name, value string }{{"provider-email", opts.ProviderEmail}, {"mail-from", opts.MailFrom}} {
		if err := plaintext.CheckLine(s.value); err != nil {
			return nil, settingErr(s.name, err)
		}
	}
	var mailer *mail.SMTPMailer
	if opts.SMTPURL != "" {
		from := opts.MailFrom
		if from == "" {
			from = provider.Email
		}
		if mailer, err = mail.NewSMTPMailer(opts.SMTPURL, from); err != nil {
			return nil, settingErr("smtp-url", err)
		}
	}
	db, err := store.Open(opts.DB, store.Options{Log: log})
	if err != nil {
		return nil, err
	}
	secret, err := db.Secret(ctx, opts.Secret)
	if err != nil {
		db.Close()
		if opts.Secret != "" {
			return nil, settingErr("secret", err)
		}
		return nil, fmt.Errorf("reading the server secret from %s: %w", store.DisplayName(opts.DB), err)
	}
	var metrics *formapi.Metrics
	if opts.MetricsAddr != "" {
		metrics = formapi.NewMetrics(db)
	}
	mailCtx, stopMail := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { mail.Run(mailCtx, db, mail.Options{SMTP: mailer, Log: log}) })
	site := data.Site()
	h := formapi.NewServer(formapi.Config{Logger: log, Site: opts.Site, Store: db, Secret: secret, SiteName: site.Name, Languages: site.Languages,
		Rates: rates, TrustedProxies: proxies, Provider: provider, Accounts: opts.Accounts, Version: opts.Version, Metrics: metrics, Hosts: hosts})
	return &openedAPI{handler: h, proxies: proxies, store: db, metrics: metrics, close: func() {
		stopMail()
		wg.Wait()
		db.Close()
	}}, nil
}

// providerOf is data/site.json's provider with the operator's e-mail.
func providerOf(opts Options) data.Provider {
	p := data.Site().Provider
	if opts.ProviderEmail != "" {
		p.Email = opts.ProviderEmail
	}
	return p
}
