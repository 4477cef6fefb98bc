// Package server runs freightsite's HTTP servers (serve, api and dev):
// from a set of Options it opens the log, takes its socket (socket
// activation or a new one), refuses settings that would expose a local
// site, opens the database, the mail sender and the metrics, serves the
// form API (and the site) through net/http with caps per client, and on
// stop lets requests in flight and a reverse proxy finish before it
// closes everything.
package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"freightsite/data"
	"freightsite/formapi"
	"freightsite/internal/site"
	"freightsite/internal/store"
)

// Options are every setting of a server; the commands fill them from
// their flags. An empty string or a nil takes the default each field
// names; Addr, StopTimeout and ConnsPerClient are used as they are.
type Options struct {
	// Addr is the address to listen on, unless socket activation hands a
	// socket over (LISTEN_FDS).
	Addr string
	// Site answers the paths the API does not own; nil serves the API
	// alone.
	Site http.Handler
	// Built describes the build Site serves: its base URL and the
	// placeholders still in it (zero for the API alone).
	Built site.Built
	// Opened, unless nil, is handed the database once it is open, before
	// the first request (the site asks it whether a news item exists).
	Opened func(*store.Store)
	// Hosts says which host names are answered.
	Hosts HostNames
	// CollectLessGarbage runs the garbage collector at serverGCPercent
	// (unless GOGC is set) and gives memory back after bursts: for serve
	// and api, not for dev, which keeps whole builds.
	CollectLessGarbage bool
	// Version names the binary in the log and in /healthz.
	Version string

	DB                string   // a SQLite file or a postgres:// URL
	Secret            string   // signs anti-forgery tokens; empty: kept in the database
	SMTPURL           string   // empty: mail is held in the outbox
	MailFrom          string   // empty: the provider's e-mail
	ProviderEmail     string   // empty: data/site.json's
	RateLimits        []string // NAME=COUNT/DURATION or NAME=off (formapi.ParseRates)
	TrustedProxies    []string // addresses or CIDRs (formapi.ParseTrustedProxies)
	AllowLocalBaseURL bool     // serve links to localhost where other machines can reach
	LogFile           string   // empty: the log goes to the stderr Run is given
	MetricsAddr       string   // empty: no metrics
	Accounts          formapi.AccountOptions
	// StopTimeout is how long a stop lets requests in flight finish.
	StopTimeout time.Duration
	// ConnsPerClient caps the connections one client holds open at once
	// (0: no cap).
	ConnsPerClient int
}

// HostNames say which host names a server answers (formapi.Hosts).
type HostNames int

const (
	// AnyHost: any name (api, behind its proxy, which names the host it
	// serves).
	AnyHost HostNames = iota
	// SiteHosts: the base URL's host, its tenants and the other site
	// origins; any host when the base URL is localhost (serve).
	SiteHosts
	// LocalHosts: localhost names and the server's own address (dev).
	LocalHosts
)

// DefaultConnsPerClient is Options.ConnsPerClient's usual value: far
// more than a browser opens to one site (six), with room for an office
// or a mobile network's clients behind one address, and few enough that
// one client holds little of the server.
const DefaultConnsPerClient = 64

// DefaultStopTimeout is Options.StopTimeout's usual value.
const DefaultStopTimeout = 20 * time.Second

// SettingError is a bad value of one setting, named as the commands'
// flags name it (smtp-url, rate-limit), so that a command can say where
// the value came from: the flag or its environment variable.
type SettingError struct {
	Setting string
	Err     error
}

func (e *SettingError) Error() string { return e.Setting + ": " + e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }

// UsageError is a server that cannot start as it was told to (its
// address is taken, links to localhost would be served to the world):
// the operator's to change, not a failure of the server.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func settingErr(setting string, err error) error { return &SettingError{setting, err} }

// Run serves until ctx ends (SIGINT or SIGTERM), then stops gracefully
// and closes what it opened. Every setting is checked, and a local base
// URL on an address others can reach refused, before the database
// opens. The log goes to opts.LogFile, or to stderr.
func Run(ctx context.Context, opts Options, stderr io.Writer) error {
	if opts.CollectLessGarbage {
		collectLessGarbage(ctx)
	}
	logs, err := openServerLog(opts.LogFile, stderr)
	if err != nil {
		return settingErr("log-file", err)
	}
	defer logs.stop()
	log := logs.logger()
	defer reopenOnHangup(log, logs)()
	if opts.Accounts.BaseURL == "" {
		opts.Accounts.BaseURL = opts.Built.BaseURL
	}
	if opts.Accounts.BaseURL == "" {
		opts.Accounts.BaseURL = data.Site().BaseURL
	}
	if err := validateAccounts(opts.Accounts); err != nil {
		return err
	}
	if opts.ConnsPerClient < 0 {
		return settingErr("max-conns-per-client", fmt.Errorf("%d: want 0 (no cap) or more", opts.ConnsPerClient))
	}
	ln, err := listen(opts.Addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	if err := checkExposure(opts, ln.Addr(), log); err != nil {
		return err
	}
	var metricsLn net.Listener
	if opts.MetricsAddr != "" {
		if metricsLn, err = listenMetrics(opts.MetricsAddr, ln.Addr(), log); err != nil {
			return err
		}
		defer metricsLn.Close()
	}
	hosts, err := answeredHosts(opts)
	if err != nil {
		return err
	}
	if hosts != nil {
		log.Info("answering only these hosts (421 for others; /healthz and /readyz on any)", "hosts", hosts.String())
	}
	api, err := openAPI(ctx, opts, log, hosts)
	if err != nil {
		return err
	}
	defer api.close()
	if metricsLn != nil {
		defer serveMetrics(metricsLn, api.metrics.Handler(), log)()
	}
	if opts.Opened != nil {
		opts.Opened(api.store)
	}
	lim := defaultLimits
	lim.stop, lim.perClient = opts.StopTimeout, opts.ConnsPerClient
	driver, db := store.Describe(opts.DB)
	return listenAndServe(ctx, log, ln, lim, []any{"version", opts.Version, "db_driver", driver, "db", db}, api.handler, newDrain(api.proxies))
}

// validateAccounts checks the account settings, naming the one at fault.
func validateAccounts(o formapi.AccountOptions) error {
	err := o.Validate()
	if err == nil {
		return nil
	}
	for prefix, setting := range map[string]string{"base URL": "base-url", "site origin": "site-origin", "reCAPTCHA verify URL": "recaptcha-verify-url"} {
		if strings.HasPrefix(err.Error(), prefix) {
			return settingErr(setting, err)
		}
	}
	return &UsageError{err}
}

// answeredHosts are the host names the server answers (nil: any): for
// serve, the site's when its base URL is not localhost; for dev, this
// machine's.
func answeredHosts(opts Options) (*formapi.Hosts, error) {
	switch opts.Hosts {
	case LocalHosts:
		return formapi.LocalHosts(), nil
	case SiteHosts:
		base := opts.Accounts.BaseURL
		if u, err := url.Parse(base); err != nil || data.IsLoopbackHost(u.Hostname()) {
			return nil, nil // validateAccounts has refused a malformed one
		}
		hosts, err := formapi.SiteHosts(base, opts.Accounts.SiteOrigins)
		if err != nil {
			return nil, &UsageError{err}
		}
		return hosts, nil
	}
	return nil, nil
}
