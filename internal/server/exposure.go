package server

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"

	"freightsite/data"
)

// checkExposure refuses to serve links to localhost on an address other
// machines can reach (unless opts.AllowLocalBaseURL), and warns about
// every placeholder still in use there.
func checkExposure(opts Options, addr net.Addr, log *slog.Logger) error {
	if loopbackOnly(addr) {
		return nil
	}
	base := opts.Accounts.BaseURL
	if base == "" {
		base = data.Site().BaseURL
	}
	for _, b := range []struct{ url, what string }{
		{opts.Built.BaseURL, "the pages were built with the base URL %s (canonical links, sitemap): rebuild with `freightsite build --base-url https://your.site`"},
		{base, "password-reset links start with %s: set --base-url https://your.site"},
	} {
		if u, err := url.Parse(b.url); err == nil && b.url != "" && data.IsLoopbackHost(u.Hostname()) {
			why := fmt.Sprintf(b.what, b.url)
			if !opts.AllowLocalBaseURL {
				return &UsageError{fmt.Errorf("listening on %s, which other machines can reach, but %s, or listen on 127.0.0.1 (--allow-local-base-url serves it anyway)", addr, why)}
			}
			log.Warn("serving links to localhost on an address other machines can reach (--allow-local-base-url)", "why", why)
		}
	}
	placeholders := opts.Built.Placeholders
	if email := providerOf(opts).Email; data.IsLocalHost(email[strings.LastIndex(email, "@")+1:]) {
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

// loopbackOnly reports whether only this machine can reach a listening
// address (a loopback address, or a socket that is not TCP).
func loopbackOnly(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return !ok || tcp.IP.IsLoopback()
}
