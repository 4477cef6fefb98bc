package clientaddr

import (
	"net/netip"
	"testing"
)

func TestKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"203.0.113.7", "203.0.113.7"},
		{"203.0.113.7:51234", "203.0.113.7"},
		{"::ffff:203.0.113.7", "203.0.113.7"},
		{"[::ffff:203.0.113.7]:443", "203.0.113.7"},
		{"2001:db8:1:2::1", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:aaaa::5]:8080", "2001:db8:1:2::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"::1", "::/64"},
		{"@", "@"},
	} {
		if got := KeyString(tc.in); got != tc.want {
			t.Errorf("KeyString(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWithin(t *testing.T) {
	a := netip.MustParseAddr("2001:db8:1:2a::9")
	b := netip.MustParseAddr("2001:db8:1:3f::9")
	if Key(a) == Key(b) {
		t.Fatal("two /64s of one /56 are one key")
	}
	if Within(a, 56) != Within(b, 56) {
		t.Fatalf("two /64s of one /56: %v and %v", Within(a, 56), Within(b, 56))
	}
	if got := KeyStringWithin("[2001:db8:1:2a::9]:443", 56); got != "2001:db8:1::/56" {
		t.Errorf("KeyStringWithin(56) = %q", got)
	}
	if got := KeyStringWithin("::ffff:198.51.100.1", 56); got != "198.51.100.1" {
		t.Errorf("KeyStringWithin of an IPv4-mapped address = %q", got)
	}
	if v4 := netip.MustParseAddr("198.51.100.1"); Within(v4, 56) != netip.PrefixFrom(v4, 32) {
		t.Fatal("an IPv4 address is itself at any IPv6 prefix length")
	}
}
