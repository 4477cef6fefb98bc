package formapi

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The IPv6 tests need real IPv6 sockets from many addresses: the test
// runs again, alone, in a network namespace of its own (unshare), whose
// loopback carries the addresses of a documentation network
// (2001:db8::/32). So the machine's own interfaces are never touched.

// netnsEnv names the test a namespaced run is for.
const netnsEnv = "FREIGHTSITE_TEST_NETNS"

// inNetworkNamespace reports true when the test runs in its namespace, with
// the addresses (each with its prefix length) on the loopback. Otherwise
// it runs the test there and reports false: the test's result is that
// run's. Where the machine cannot make a namespace (no unshare or ip, no
// privilege, IPv6 off) the test is skipped saying why, unless CI is set,
// where it fails.
func inNetworkNamespace(t *testing.T, addrs ...string) bool {
	t.Helper()
	if os.Getenv(netnsEnv) == t.Name() {
		return true
	}
	flags := "-n"
	if os.Geteuid() != 0 {
		flags = "-rn" // an unprivileged user namespace, where the kernel allows one
	}
	script := `set -e; ip link set lo up; `
	for _, a := range addrs {
		script += `ip -6 addr add ` + a + ` dev lo nodad; `
	}
	cannot := func(why string, out []byte) {
		t.Helper()
		msg := "this machine cannot make a network namespace with IPv6 addresses (unshare " + flags + ", ip -6 addr add): " + why + " " + strings.TrimSpace(string(out))
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		cannot(err.Error(), nil)
	}
	if out, err := exec.Command("unshare", flags, "sh", "-c", `set -e; ip link set lo up; ip -6 addr add 2001:db8::1/128 dev lo nodad`).CombinedOutput(); err != nil {
		cannot(err.Error(), out)
	}
	cmd := exec.Command("unshare", flags, "sh", "-c", script+`exec "$@"`, "sh",
		os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), netnsEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("the run in a network namespace failed (%v):\n%s", err, out)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Fatalf("the run in a network namespace did not pass:\n%s", out)
	}
	t.Logf("passed in a network namespace:\n%s", out)
	return false
}

// from makes the test API's requests come from a local address (the
// cookies stay the same).
func (a *testAPI) from(local string) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 5 * time.Second}
	a.client = &http.Client{Jar: a.client.Jar, Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// In the namespace: the server's /64, two more networks of its /56, and
// a network outside it.
const (
	ipv6Server    = "2001:db8:1:2::1"
	ipv6Home      = "2001:db8:1:2::"  // the /64 the clients rotate through
	ipv6Neighbor  = "2001:db8:1:3::"  // another /64 of the same /56
	ipv6Elsewhere = "2001:db8:77:1::" // another /56
)

func ipv6Addresses() []string {
	addrs := []string{ipv6Server + "/64"}
	for n := range 40 {
		addrs = append(addrs, homeAddress(n)+"/128")
	}
	return append(addrs, ipv6Neighbor+"5/64", ipv6Elsewhere+"9/64")
}

// homeAddress is the nth client address of the server's /64 (n from 0),
// spread over its interface identifiers.
func homeAddress(n int) string {
	return fmt.Sprintf("%s%x:%x::%x", strings.TrimSuffix(ipv6Home, ":"), n*0x3ff+0x10, n*7, n+2)
}

// TestIPv6ClientIsItsNetwork: over real IPv6 sockets, a client rotating
// through the addresses of its /64 is one client to the rate limits (the
// contact form's 10 a minute: the 11th post is refused whichever address
// it comes from, while another /64 posts) and to the sign-in lockout,
// which holds for the whole /56. Behind a trusted proxy the
// X-Forwarded-For addresses count the same, and an IPv4-mapped address
// is its IPv4 address.
func TestIPv6ClientIsItsNetwork(t *testing.T) {
	if !inNetworkNamespace(t, ipv6Addresses()...) {
		return
	}
	listen := "[" + ipv6Server + "]:0"

	t.Run("rate limit", func(t *testing.T) {
		rates := map[string]Rate{}
		for k := range DefaultRates {
			rates[k] = Rate{}
		}
		rates["contact"] = DefaultRates["contact"]
		a := newTestAPIAt(t, testDB(t, "api.db"), listen, withRates(rates))
		if !strings.HasPrefix(a.srv.URL, "http://["+ipv6Server+"]:") {
			t.Fatalf("the server listens at %s", a.srv.URL)
		}
		post := func(from string) int {
			t.Helper()
			a.from(from)
			resp := a.postJSON("/api/contact_us", validContact())
			resp.Body.Close()
			return resp.StatusCode
		}
		n := DefaultRates["contact"].N
		for i := range n {
			if got := post(homeAddress(i)); got != http.StatusOK {
				t.Fatalf("post %d from %s: %d", i+1, homeAddress(i), got)
			}
		}
		for i := n; i < n+5; i++ {
			if got := post(homeAddress(i)); got != http.StatusTooManyRequests {
				t.Errorf("post %d from %s, the %d addresses before it in its /64: %d, want 429", i+1, homeAddress(i), n, got)
			}
		}
		if got := post(ipv6Neighbor + "5"); got != http.StatusOK {
			t.Errorf("a post from another /64: %d, want 200", got)
		}
		if got := post(ipv6Server); got != http.StatusTooManyRequests {
			t.Errorf("a post from the server's own address of the limited /64: %d, want 429", got)
		}
	})

	t.Run("behind a trusted proxy", func(t *testing.T) {
		rates := map[string]Rate{}
		for k := range DefaultRates {
			rates[k] = Rate{}
		}
		rates["contact"] = DefaultRates["contact"]
		a := newTestAPIAt(t, testDB(t, "api.db"), listen, withRates(rates), func(cfg *Config) {
			cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix(ipv6Elsewhere + "9/128")}
		})
		a.from(ipv6Elsewhere + "9")
		post := func(client string) int {
			t.Helper()
			resp := a.do(http.MethodPost, "/api/contact_us", "application/json", strings.NewReader(`{"name":"Ravi","email":"ravi@example.in","subject":"Loads"}`),
				http.Header{xsrfHeader: {a.token()}, "X-Forwarded-For": {client}})
			resp.Body.Close()
			return resp.StatusCode
		}
		for i := range 10 {
			if got := post("2001:db8:9:9::" + strconv.Itoa(i+1)); got != http.StatusOK {
				t.Fatalf("forwarded post %d: %d", i+1, got)
			}
		}
		if got := post("2001:db8:9:9:ffff::1"); got != http.StatusTooManyRequests {
			t.Errorf("the 11th forwarded post from one /64: %d, want 429", got)
		}
		for i := range 5 {
			if got := post("::ffff:203.0.113.7"); got != http.StatusOK {
				t.Fatalf("forwarded post %d from an IPv4-mapped address: %d", i+1, got)
			}
			if got := post("203.0.113.7"); got != http.StatusOK {
				t.Fatalf("forwarded post %d from the IPv4 address: %d", i+1, got)
			}
		}
		if got := post("::ffff:203.0.113.7"); got != http.StatusTooManyRequests {
			t.Errorf("the 11th forwarded post from one IPv4 address, mapped or not: %d, want 429", got)
		}
	})

	t.Run("sign-in lockout", func(t *testing.T) {
		a := newTestAPIAt(t, testDB(t, "api.db"), listen, unlimited(), withAccounts(AccountOptions{BaseURL: "https://freight.example"}))
		a.register("ravi@carriers.example", "Cargo#777")
		for i := range limitAccountAddress {
			a.from(homeAddress(20 + i))
			if resp, got := a.signIn("ravi@carriers.example", "Guess#"+strconv.Itoa(i), false); resp.StatusCode != http.StatusUnauthorized || got.Status != statusSignInFailed {
				t.Fatalf("guess %d from %s: %d %+v", i+1, homeAddress(20+i), resp.StatusCode, got)
			}
		}
		for _, from := range []string{homeAddress(30), ipv6Server, ipv6Neighbor + "5"} {
			a.from(from)
			if resp, got := a.signIn("ravi@carriers.example", "Cargo#777", false); resp.StatusCode != http.StatusTooManyRequests || got.Status != statusSignInLocked {
				t.Errorf("from %s, after %d guesses from other addresses of its /56: %d %+v, want 429 LOGIN.LOCKED", from, limitAccountAddress, resp.StatusCode, got)
			}
		}
		a.from(ipv6Elsewhere + "9")
		if resp, got := a.signIn("ravi@carriers.example", "Cargo#777", false); resp.StatusCode != http.StatusOK || !got.Success {
			t.Errorf("the owner from another /56: %d %+v", resp.StatusCode, got)
		}
	})
}
