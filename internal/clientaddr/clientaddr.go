// Package clientaddr says who a client is for every per-client limit
// (rate limits, sign-in lockouts, connection caps): an IPv4 address, or
// the /64 network of an IPv6 one. A home or mobile connection is handed a
// whole /64, so keying on the full IPv6 address would give one client 2^64
// identities. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d, what a dual-stack
// socket reports for an IPv4 peer) count as the IPv4 address.
package clientaddr

import (
	"net"
	"net/netip"
)

// Key is the network a client is counted as: a /32 for IPv4, a /64 for
// IPv6.
func Key(a netip.Addr) netip.Prefix {
	return Within(a, 64)
}

// Within is the client's network with at most bits bits of IPv6 prefix
// (an IPv4 address is always itself): Within(a, 56) for a limit that
// should hold across the /64s of one subscriber's delegated /56.
func Within(a netip.Addr, bits int) netip.Prefix {
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return netip.PrefixFrom(a, 32)
	}
	p, _ := a.Prefix(bits)
	return p
}

// KeyString is Key for an address written as text (with or without a
// port): "203.0.113.7", "2001:db8:1:2::/64". Text that is no IP address
// (a Unix socket's peer, say) is its own key.
func KeyString(s string) string { return KeyStringWithin(s, 64) }

// KeyStringWithin is Within for an address written as text, written as
// KeyString writes it.
func KeyStringWithin(s string, bits int) string {
	a, ok := Parse(s)
	if !ok {
		return s
	}
	p := Within(a, bits)
	if p.Addr().Is4() {
		return p.Addr().String()
	}
	return p.String()
}

// Parse reads an address written with or without a port.
func Parse(s string) (netip.Addr, bool) {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}
