package formapi

import (
	"strings"
	"sync"
	"time"
)

// signInThrottle slows password guessing without letting a stranger shut
// the owner out (OWASP Authentication Cheat Sheet):
//
//   - failures of one account from one address, and of one address over
//     all accounts, lock that address out for a while: each further
//     lockout of the same key doubles, up to 4 times the first, and tries
//     during a lockout neither count nor extend it, so every lockout ends.
//     Only the guessing address is refused; the owner elsewhere is not.
//   - failures of one account from anywhere never lock it: once an
//     account has had many recent failures, sign-in to it needs a solved
//     captcha as well (step-up), until the failures are a window old or
//     the owner signs in or resets the password. The right password with
//     a solved captcha always signs in.
//
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

// Failures that lock a key or step sign-in up to a captcha. One person
// mistyping stays far below them; the per-account and per-address limits
// catch guessing spread over many addresses or many accounts.
const (
	limitAccountAddress = 5  // lock: this account from this address
	limitAddress        = 50 // lock: this address, over all accounts
	limitAccount        = 20 // captcha: this account, from anywhere
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
	lock  bool // at the limit: lock out (true) or ask for a captcha (false)
}

func accountAddressKey(account, address string) string {
	return "account+address:" + account + "|" + address
}

func accountKey(account string) string { return "account:" + account }

func signInKeys(account, address string) []throttleKey {
	return []throttleKey{
		{accountAddressKey(account, address), limitAccountAddress, true},
		{"address:" + address, limitAddress, true},
		{accountKey(account), limitAccount, false},
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
		if f, ok := t.entries[k.key]; ok && k.lock && f.until.After(now) {
			longest = max(longest, f.until.Sub(now))
		}
	}
	return longest
}

// needsCaptcha reports whether the account has had so many recent
// failures that sign-in to it needs a solved captcha.
func (t *signInThrottle) needsCaptcha(account string) bool {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.entries[accountKey(account)]
	return ok && f.count >= limitAccount && now.Sub(f.last) <= t.window
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
		if k.lock && f.count >= k.limit {
			f.until = now.Add(t.window << min(f.lockouts, maxLockoutDoublings))
			f.lockouts++
			f.count = 0
		}
	}
}

// succeeded forgets the account's failures from this address and its
// step-up (not the address's count: one good account must not reset an
// address that is guessing others).
func (t *signInThrottle) succeeded(account, address string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.entries, accountAddressKey(account, address))
	delete(t.entries, accountKey(account))
}

// forgetAccount clears every failure, lockout and step-up of the account,
// from every address: a completed password reset proves the owner, and
// whoever guessed the old password now guesses at a new one.
func (t *signInThrottle) forgetAccount(account string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.entries, accountKey(account))
	prefix := accountAddressKey(account, "")
	for k := range t.entries {
		if strings.HasPrefix(k, prefix) {
			delete(t.entries, k)
		}
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
