package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"freightsite/formapi"
	"freightsite/internal/server"
)

// serverFlags are the flags `serve`, `api` and `dev` share: the database,
// mail, secret, rate limits, proxies, the operator's settings and the
// log, held as the server's options.
type serverFlags struct {
	fs   *pflag.FlagSet
	opts server.Options
}

func (f *serverFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	o := &f.opts
	fs.StringVar(&o.DB, "db", "freightsite.db", "the database: a SQLite file, or a PostgreSQL URL postgres://USER:PASSWORD@HOST/NAME that several instances may share (a SQLite file is created with its tables on first start, readable by its owner only)")
	fs.StringVar(&o.Secret, "secret", "", "server secret (32+ characters) that signs anti-forgery tokens (default: generated once and kept in the database)")
	fs.StringVar(&o.SMTPURL, "smtp-url", "", "SMTP server for the outbox: smtp://host:25, smtp+starttls://user:pass@host:587 or smtps://user:pass@host:465 (default: hold messages in the outbox, where freightsite mail outbox --show ID prints one)")
	fs.StringVar(&o.ProviderEmail, "provider-email", "", "address that receives the contact and feedback notifications (default: provider.email of data/site.json, a placeholder)")
	fs.StringVar(&o.MailFrom, "mail-from", "", "sender address of outgoing mail (default: the provider's e-mail)")
	fs.StringSliceVar(&o.RateLimits, "rate-limit", nil, "per-client limit NAME=COUNT/DURATION or NAME=off, repeatable; the names and their defaults: "+formapi.DefaultRatesText())
	registerAccountFlags(fs, &o.Accounts)
	fs.StringSliceVar(&o.TrustedProxies, "trusted-proxy", nil, "address or CIDR of a reverse proxy whose X-Forwarded-For names the client (e.g. 127.0.0.1 behind nginx on the same host)")
	fs.BoolVar(&o.AllowLocalBaseURL, "allow-local-base-url", false, "serve on an address other machines can reach although the base URL is localhost (links in pages and mail then lead nowhere)")
	fs.StringVar(&o.LogFile, "log-file", "", "append the log to this file instead of standard error; SIGHUP reopens it (log rotation)")
	fs.StringVar(&o.MetricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics, e.g. 127.0.0.1:9090: an address apart from the public one (default: off)")
	fs.IntVar(&o.ConnsPerClient, "max-conns-per-client", server.DefaultConnsPerClient, "most connections one client (an IPv4 address, an IPv6 /64) may hold open at once; a further one is closed as it comes (0: no cap; a --trusted-proxy has none)")
	fs.DurationVar(&o.StopTimeout, "stop-timeout", server.DefaultStopTimeout, "on SIGINT or SIGTERM, how long requests in flight may take to finish; then the connections still open are closed")
}

// run serves with the flags' settings until the command's context ends.
// A bad setting exits 2 naming where it came from: --name, or the
// FREIGHTSITE_ variable that set it.
func (f *serverFlags) run(c *cobra.Command) error {
	f.opts.Version = version()
	err := server.Run(c.Context(), f.opts, c.ErrOrStderr())
	var bad *server.SettingError
	var usage *server.UsageError
	switch {
	case errors.As(err, &bad):
		return exitError{2, fmt.Errorf("%s: %w", flagSource(f.fs, bad.Setting), bad.Err)}
	case errors.As(err, &usage):
		return exitError{2, usage.Err}
	}
	return err
}
