package formapi

import (
	"sync"
	"time"
)

// signInThrottle slows password guessing (OWASP Authentication Cheat
// Sheet): it counts failed sign-ins per account from one address, per
// account from anywhere and per address over all accounts, and refuses
// sign-in for a while once one count reaches its limit. Each further
// lockout of the same key doubles, up to 4 times the first, and attempts
// during a lockout neither count nor extend it: every lockout ends, so an
// attacker can delay the real member but never shut them out for good.
// Unknown accounts are counted exactly like real ones, so the answers
// never tell which exist.
type signInThrottle struct {
	window time.Duration // the first lockout, and how long failures are remembered
	now    func() time.Time

	mu      sync.Mutex
	entries map[string]*failures
	swept   time.Time
}

type failures struct {
	count    int       // failures since the last lockout or success
	last     time.Time // the latest failure
	until    time.Time // refused before this
	lockouts int       // lockouts in a row
}

// Failures that lock a key. One person mistyping stays far below them;
// the per-account and per-address limits catch guessing spread over many
// addresses or many accounts.
const (
	limitAccountAddress = 5
	limitAccount        = 20
	limitAddress        = 50
	maxLockoutDoublings = 2
)

// DefaultSignInLockout is the first lockout after too many failures.
const DefaultSignInLockout = 15 * time.Minute

func newSignInThrottle(window time.Duration, now func() time.Time) *signInThrottle {
	if window <= 0 {
		window = DefaultSignInLockout
	}
	return &signInThrottle{window: window, now: now, entries: map[string]*failures{}}
}

type throttleKey struct {
	key   string
	limit int
}

func signInKeys(account, address string) []throttleKey {
	return []throttleKey{
		{"account+address:" + account + "|" + address, limitAccountAddress},
		{"account:" + account, limitAccount},
		{"address:" + address, limitAddress},
	}
}

// wait says how long sign-in stays refused for this account from this
// address; zero means it may be tried.
func (t *signInThrottle) wait(account, address string) time.Duration {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	var longest time.Duration
	for _, k := range signInKeys(account, address) {
		if f, ok := t.entries[k.key]; ok && f.until.After(now) {
			longest = max(longest, f.until.Sub(now))
		}
	}
	return longest
}

// failed counts a failed sign-in.
func (t *signInThrottle) failed(account, address string) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sweep(now)
	for _, k := range signInKeys(account, address) {
		f, ok := t.entries[k.key]
		if !ok {
			f = &failures{}
			t.entries[k.key] = f
		}
		if now.Sub(f.last) > t.window {
			f.count = 0
		}
		if now.Sub(f.last) > t.longest() {
			f.lockouts = 0
		}
		f.count++
		f.last = now
		if f.count >= k.limit {
			f.until = now.Add(t.window << min(f.lockouts, maxLockoutDoublings))
			f.lockouts++
			f.count = 0
		}
	}
}

// succeeded forgets the account's failures (not the address's: one good
// account must not reset an address that is guessing others).
func (t *signInThrottle) succeeded(account, address string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range signInKeys(account, address)[:2] {
		delete(t.entries, k.key)
	}
}

func (t *signInThrottle) longest() time.Duration { return t.window << maxLockoutDoublings }

// sweep drops what can no longer matter, so memory stays bounded by the
// failures of the last few windows.
func (t *signInThrottle) sweep(now time.Time) {
	if now.Sub(t.swept) < t.window {
		return
	}
	t.swept = now
	for k, f := range t.entries {
		if now.Sub(f.last) > t.longest() && !f.until.After(now) {
			delete(t.entries, k)
		}
	}
}
