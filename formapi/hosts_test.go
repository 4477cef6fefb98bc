package formapi

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHostsAllows: which Host each kind of Hosts answers, one row per
// rule.
func TestHostsAllows(t *testing.T) {
	site := func(base string, origins ...string) *Hosts {
		h, err := SiteHosts(base, origins)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	on := func(addr string) func(*http.Request) *http.Request {
		return func(r *http.Request) *http.Request {
			a, err := net.ResolveTCPAddr("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, a))
		}
	}
	for _, c := range []struct {
		rule  string
		hosts *Hosts
		host  string
		via   func(*http.Request) *http.Request // the connection's local address
		want  bool
	}{
		{"the base URL's host", site("https://freight.example.com"), "freight.example.com", nil, true},
		{"any case, a port, a final dot", site("https://freight.example.com"), "Freight.Example.COM.:443", nil, true},
		{"a tenant: one label in front", site("https://freight.example.com"), "acme.freight.example.com", nil, true},
		{"not two labels in front", site("https://freight.example.com"), "a.acme.freight.example.com", nil, false},
		{"not a name that merely ends the same", site("https://freight.example.com"), "evilfreight.example.com", nil, false},
		{"not the parent", site("https://freight.example.com"), "example.com", nil, false},
		{"a www base URL: its parent", site("https://www.freight.example.com"), "freight.example.com", nil, true},
		{"a www base URL: the tenants beside it", site("https://www.freight.example.com"), "acme.freight.example.com", nil, true},
		{"a site origin", site("https://freight.example.com", "https://pune.example.net:8443"), "pune.example.net", nil, true},
		{"not a site origin's tenants", site("https://freight.example.com", "https://pune.example.net"), "acme.pune.example.net", nil, false},
		{"an address base URL: that address", site("http://203.0.113.7:8080"), "203.0.113.7:8080", nil, true},
		{"an address base URL: nothing in front of it", site("http://203.0.113.7:8080"), "x.203.0.113.7", nil, false},
		{"an IPv6 address base URL", site("http://[2001:db8::7]/"), "[2001:DB8::7]:80", nil, true},
		{"the site: not localhost", site("https://freight.example.com"), "localhost", nil, false},
		{"the site: not its own address", site("https://freight.example.com"), "127.0.0.1", on("127.0.0.1:8080"), false},
		{"no Host", site("https://freight.example.com"), "", nil, false},
		{"local: localhost", LocalHosts(), "localhost:8080", nil, true},
		{"local: a localhost subdomain", LocalHosts(), "pune.localhost", nil, true},
		{"local: a loopback address", LocalHosts(), "127.0.0.1:8080", nil, true},
		{"local: IPv6 loopback", LocalHosts(), "[::1]:8080", nil, true},
		{"local: its own address", LocalHosts(), "192.168.1.20:8080", on("192.168.1.20:8080"), true},
		{"local: its own address, IPv4-mapped", LocalHosts(), "192.168.1.20", on("[::ffff:192.168.1.20]:8080"), true},
		{"local: another address", LocalHosts(), "192.168.1.21", on("192.168.1.20:8080"), false},
		{"local: a name", LocalHosts(), "freight.example.com", on("192.168.1.20:8080"), false},
		{"local: a name ending in localhost", LocalHosts(), "evillocalhost", nil, false},
		{"local: localhost under another name", LocalHosts(), "localhost.evil.example", nil, false},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = c.host
		if c.via != nil {
			r = c.via(r)
		}
		if got := c.hosts.Allows(r); got != c.want {
			t.Errorf("%s: Host %q allowed %v, want %v", c.rule, c.host, got, c.want)
		}
	}
}

// TestSiteHostsNeedsAHost: a base URL or a site origin without a host
// name is refused.
func TestSiteHostsNeedsAHost(t *testing.T) {
	for _, c := range []struct {
		base    string
		origins []string
	}{
		{"/relative", nil},
		{"https://freight.example.com", []string{"pune.example.net"}},
	} {
		if _, err := SiteHosts(c.base, c.origins); err == nil {
			t.Errorf("SiteHosts(%q, %q): no error", c.base, c.origins)
		}
	}
}
