package formapi

import (
	"fmt"
	"maps"
	"math"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"freightsite/internal/clientaddr"
)

// Rate is how many requests one client may make per period; the bucket
// holds N, so a burst of N is allowed, then one per Per/N. Zero N: no limit.
type Rate struct {
	N   int
	Per time.Duration
}

// String writes the rate the way ParseRate reads it ("10/1m", "off").
func (r Rate) String() string {
	if r.N == 0 {
		return "off"
	}
	per := r.Per.String() // "1m0s", "1h0m0s": drop the zero parts
	if strings.HasSuffix(per, "m0s") {
		per = strings.TrimSuffix(per, "0s")
	}
	if strings.HasSuffix(per, "h0m") {
		per = strings.TrimSuffix(per, "0m")
	}
	return strconv.Itoa(r.N) + "/" + per
}

// DefaultRatesText lists every rate limit's name with its default, for
// the commands' help: "captcha=60/1m, contact=10/1m, ...".
func DefaultRatesText() string {
	var parts []string
	for _, name := range rateNames() {
		parts = append(parts, name+"="+DefaultRates[name].String())
	}
	return strings.Join(parts, ", ")
}

// ParseRate reads "10/1m" (10 per minute), "2000/1s" or "off".
func ParseRate(s string) (Rate, error) {
	if s == "off" {
		return Rate{}, nil
	}
	n, per, ok := strings.Cut(s, "/")
	count, err := strconv.Atoi(n)
	if !ok || err != nil || count <= 0 {
		return Rate{}, fmt.Errorf("rate %q: want COUNT/DURATION such as 10/1m, or off", s)
	}
	d, err := time.ParseDuration(per)
	if err != nil || d <= 0 {
		return Rate{}, fmt.Errorf("rate %q: want COUNT/DURATION such as 10/1m, or off", s)
	}
	return Rate{N: count, Per: d}, nil
}

// DefaultRates are the per-client limits of the rate-limited calls; the
// names are what --rate-limit NAME=RATE sets.
var DefaultRates = map[string]Rate{
	"contact":     {10, time.Minute},
	"feedback":    {5, time.Minute},
	"unsubscribe": {10, time.Minute},
	"uniqueness":  {30, time.Minute},
	"auction":     {10, time.Minute},
	"import":      {10, time.Minute},
	// Accounts: sign-in (POST /auth and the token call, besides the
	// failure throttle of throttle.go), registration, password recovery
	// and captcha challenges.
	"signin":       {30, time.Minute},
	"registration": {10, time.Minute},
	"forgot":       {10, time.Minute},
	"reset":        {10, time.Minute},
	"captcha":      {60, time.Minute},
}

// ParseRates reads NAME=RATE settings over the defaults.
func ParseRates(settings []string) (map[string]Rate, error) {
	rates := map[string]Rate{}
	for k, v := range DefaultRates {
		rates[k] = v
	}
	for _, s := range settings {
		name, value, ok := strings.Cut(s, "=")
		if _, known := DefaultRates[name]; !ok || !known {
			return nil, fmt.Errorf("rate limit %q: want NAME=RATE with NAME one of %s", s, strings.Join(rateNames(), ", "))
		}
		r, err := ParseRate(value)
		if err != nil {
			return nil, err
		}
		rates[name] = r
	}
	return rates, nil
}

func rateNames() []string { return slices.Sorted(maps.Keys(DefaultRates)) }

// limiter keeps a token bucket per client key.
type limiter struct {
	rate    Rate
	now     func() time.Time
	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(r Rate, now func() time.Time) *limiter {
	return &limiter{rate: r, now: now, buckets: map[string]*bucket{}}
}

// allow takes one token from key's bucket, or says how long until one is
// there.
func (l *limiter) allow(key string) (bool, time.Duration) {
	if l.rate.N == 0 {
		return true, 0
	}
	now := l.now()
	perToken := l.rate.Per / time.Duration(l.rate.N)
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > l.rate.Per {
		// Full buckets carry no information: drop them so memory stays
		// bounded by the clients of one period.
		for k, b := range l.buckets {
			if now.Sub(b.last) >= l.rate.Per {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: float64(l.rate.N), last: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(float64(l.rate.N), b.tokens+float64(now.Sub(b.last))/float64(perToken))
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) * float64(perToken))
}

// limitRate answers 429 with Retry-After (whole seconds, rounded up) when
// the client has used its rate (the one named name). The client is its
// IPv4 address or its IPv6 /64 (clientaddr), so one home or phone cannot
// take a new bucket from each address of the network it was handed.
func limitRate(name string, l *limiter, clientIP func(*http.Request) string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, wait := l.allow(clientaddr.KeyString(clientIP(r)))
		if !ok {
			metricsOf(r).rateLimitedBy(name)
			secs := int(math.Ceil(wait.Seconds()))
			w.Header().Set("Retry-After", strconv.Itoa(max(1, secs)))
			writeJSON(w, http.StatusTooManyRequests, errorBody{Error: fmt.Sprintf("too many requests: try again in %d s", max(1, secs)), Message: "api.errors.tooManyRequests"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// clientIPFunc returns how to find a request's client address: the peer,
// unless the peer is a trusted proxy, in which case the right-most
// X-Forwarded-For address that is not itself a trusted proxy. It is the
// real address, for logs and captcha checks; limits key it with
// clientaddr.
func clientIPFunc(trusted []netip.Prefix) func(*http.Request) string {
	return func(r *http.Request) string {
		peer, ok := trustedPeer(trusted, r)
		if !ok {
			return peer
		}
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break
			}
			if !isTrusted(trusted, a) {
				return a.String()
			}
		}
		return peer
	}
}

// trustedPeer returns the address of the connection's peer and whether it
// is one of the trusted proxies, whose X-Forwarded-* headers count.
func trustedPeer(trusted []netip.Prefix, r *http.Request) (string, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	return host, err == nil && isTrusted(trusted, peer)
}

func isTrusted(trusted []netip.Prefix, a netip.Addr) bool {
	for _, p := range trusted {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// ParseTrustedProxies reads CIDR prefixes or single addresses.
func ParseTrustedProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, fmt.Errorf("trusted proxy %q: %w", s, err)
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: %w", s, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
