package formapi

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"freightsite/data"
)

// Hosts are the host names a server answers for (a request's Host, its
// port aside); any other is answered 421 Misdirected Request. A page on
// another site can point its own name at this server's address (DNS
// rebinding): the browser then treats the server as that site, and the
// page could read its answers (dev's event stream, the pages) and post
// its forms. Its requests carry the page's own name, which is not one
// of these.
type Hosts struct {
	names   []string // answered as they are: lower case, no trailing dot
	parents []string // ".freight.example.com": one label in front of it is answered
	// local: localhost names, loopback addresses and the address the
	// request came to (http.LocalAddrContextKey)
	local bool
}

// SiteHosts are the hosts a site is served at: the base URL's, its
// tenants' (one label in front of it: acme.freight.example.com; for a
// base URL on www.freight.example.com, freight.example.com and one label
// in front of that, as the tenants' labels are read) and the hosts of
// the other origins the site is served at (--site-origin).
func SiteHosts(baseURL string, origins []string) (*Hosts, error) {
	h := &Hosts{}
	base, err := url.Parse(baseURL)
	if err != nil || base.Hostname() == "" {
		return nil, fmt.Errorf("base URL %q: no host name in it", baseURL)
	}
	name := normalHost(base.Hostname())
	h.names = append(h.names, name)
	if parent, ok := strings.CutPrefix(name, "www."); ok {
		h.names = append(h.names, parent)
		name = parent
	}
	if net.ParseIP(name) == nil {
		h.parents = append(h.parents, "."+name)
	}
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || u.Hostname() == "" {
			return nil, fmt.Errorf("site origin %q: no host name in it", o)
		}
		h.names = append(h.names, normalHost(u.Hostname()))
	}
	return h, nil
}

// LocalHosts are the names of this machine alone (localhost and its
// subdomains, loopback addresses) and the address a request came to:
// freightsite dev's, which no other site may reach through a name of
// its own.
func LocalHosts() *Hosts {
	return &Hosts{local: true}
}

// normalHost is a host name as compared: lower case, without the dot
// that ends a fully qualified name or an IPv6 address's brackets.
func normalHost(host string) string {
	return strings.Trim(strings.TrimSuffix(strings.ToLower(host), "."), "[]")
}

// Allows reports whether r's Host is one of h.
func (h *Hosts) Allows(r *http.Request) bool {
	host := r.Host
	if name, _, err := net.SplitHostPort(host); err == nil {
		host = name
	}
	host = normalHost(host)
	if host == "" {
		return false
	}
	if h.local {
		if data.IsLoopbackHost(host) {
			return true
		}
		if own, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr); ok {
			if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap() == own.AddrPort().Addr().Unmap() {
				return true
			}
		}
	}
	for _, n := range h.names {
		if host == n {
			return true
		}
	}
	for _, p := range h.parents {
		if label, ok := strings.CutSuffix(host, p); ok && label != "" && !strings.Contains(label, ".") {
			return true
		}
	}
	return false
}

// String lists the hosts, for the log and the refusal.
func (h *Hosts) String() string {
	var all []string
	if h.local {
		all = append(all, "localhost", "*.localhost", "loopback addresses", "this server's address")
	}
	all = append(all, h.names...)
	for _, p := range h.parents {
		all = append(all, "*"+p)
	}
	return strings.Join(all, ", ")
}

// checkHost answers a request for a host h does not hold with 421 (so a
// client that reached the wrong server may try another connection), and
// passes the rest on. Probes (/healthz, /readyz) are answered on any
// host: load balancers and supervisors ask by address. A nil h passes
// every request on.
func checkHost(h *Hosts, next http.Handler) http.Handler {
	if h == nil {
		return next
	}
	refuse := apiHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusMisdirectedRequest, errorBody{Error: "this server does not answer for the host " + r.Host, Message: "api.errors.badRequest"})
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.Allows(r) && !probePaths[r.URL.Path] {
			refuse.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
