package formapi

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	"freightsite/internal/clientaddr"
	"freightsite/internal/store"
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
// never tell which exist. An account is its canonical login id (loginID),
// the same the user lookup compares exactly. An address is the client's
// IPv4 address or its IPv6 /56 (clientaddr): a subscriber is handed at
// least a /64 and often a /56, and each address of it must not guess
// afresh.
//
// An attempt is counted before its password is checked (reserve) and
// taken back when it succeeds, so attempts sent all at once are no more
// than the limits either.
//
// The counts live in the database (store.Failures), so every instance of
// the server sharing it counts the same failures.
type signInThrottle struct {
	store  *store.Store
	window time.Duration // the first lockout, and how long failures are remembered
	now    func() time.Time
	swept  atomic.Int64 // when this instance last dropped old rows (Unix ns)
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

// signInNetworkBits is how much of an IPv6 address the throttle counts as
// one address.
const signInNetworkBits = 56

// throttleAddress is the address the throttle counts a client address as.
func throttleAddress(clientIP string) string {
	return clientaddr.KeyStringWithin(clientIP, signInNetworkBits)
}

// DefaultSignInLockout is the first lockout after too many failures.
const DefaultSignInLockout = 15 * time.Minute

func newSignInThrottle(s *store.Store, window time.Duration, now func() time.Time) *signInThrottle {
	if window <= 0 {
		window = DefaultSignInLockout
	}
	return &signInThrottle{store: s, window: window, now: now}
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

func addressKey(address string) string { return "address:" + address }

func signInKeys(account, address string) []throttleKey {
	return []throttleKey{
		{accountAddressKey(account, address), limitAccountAddress, true},
		{addressKey(address), limitAddress, true},
		{accountKey(account), limitAccount, false},
	}
}

// wait says how long sign-in stays refused for this account from this
// address; zero means it may be tried.
func (t *signInThrottle) wait(ctx context.Context, account, address string) (time.Duration, error) {
	now := t.now()
	var keys []string
	for _, k := range signInKeys(account, address) {
		if k.lock {
			keys = append(keys, k.key)
		}
	}
	entries, err := t.store.SignInFailures(ctx, keys...)
	var longest time.Duration
	for _, f := range entries {
		if f.Until.After(now) {
			longest = max(longest, f.Until.Sub(now))
		}
	}
	return longest, err
}

// needsCaptcha reports whether the account has had so many recent
// failures that sign-in to it needs a solved captcha.
func (t *signInThrottle) needsCaptcha(ctx context.Context, account string) (bool, error) {
	now := t.now()
	entries, err := t.store.SignInFailures(ctx, accountKey(account))
	f, ok := entries[accountKey(account)]
	return ok && f.Count >= limitAccount && now.Sub(f.Last) <= t.window, err
}

// attempt is a sign-in attempt the throttle let through: counted as a
// failure before its password is checked (reserve), so however many
// attempts arrive at once, no more are checked than the limits allow. A
// success takes the count back (succeeded).
type attempt struct {
	account, address string
	// addressLocked says this attempt's count locked the address, and
	// addressBefore is the address's row before it, to put back.
	addressLocked bool
	addressBefore store.Failures
	addressUntil  time.Time // the lockout this attempt set
}

// errSignInRefused rolls back a reservation that was refused.
var errSignInRefused = errors.New("sign-in refused by the throttle")

// reserve counts an attempt at account from address as a failure, unless
// the address is locked out for it (LOGIN.LOCKED) or the account is
// stepped up and captchaSolved is false (LOGIN.CAPTCHA); then nothing is
// counted. Each key's row is locked (on PostgreSQL) and read and written
// in one transaction, so attempts counted by several requests or
// instances at once all count, and the one that reaches a limit is the
// last let through.
func (t *signInThrottle) reserve(ctx context.Context, account, address string, captchaSolved bool) (attempt, *signInRefusal, error) {
	now := t.now()
	at := attempt{account: account, address: address}
	var refusal *signInRefusal
	err := t.store.Write(ctx, func(tx *store.Tx) error {
		at.addressLocked, refusal = false, nil
		if err := t.sweep(tx, now); err != nil {
			return err
		}
		keys := signInKeys(account, address)
		rows := make([]store.Failures, len(keys))
		var wait time.Duration
		for i, k := range keys {
			f, err := tx.LockSignInFailures(k.key)
			if err != nil {
				return err
			}
			rows[i] = f
			switch {
			case k.lock && f.Until.After(now):
				wait = max(wait, f.Until.Sub(now))
			case !k.lock && !captchaSolved && f.Count >= k.limit && now.Sub(f.Last) <= t.window:
				refusal = &signInRefusal{status: http.StatusUnauthorized, answer: signInAnswer{Status: statusSignInCaptcha}}
			}
		}
		if wait > 0 {
			refusal = &signInRefusal{http.StatusTooManyRequests, signInAnswer{Status: statusSignInLocked}, wait}
		}
		if refusal != nil {
			return errSignInRefused
		}
		for i, k := range keys {
			f := rows[i]
			if k.key == addressKey(address) {
				at.addressBefore = f
			}
			if now.Sub(f.Last) > t.window {
				f.Count = 0
			}
			if now.Sub(f.Last) > t.longest() {
				f.Lockouts = 0
			}
			f.Count++
			f.Last = now
			if k.lock && f.Count >= k.limit {
				f.Until = now.Add(t.window << min(f.Lockouts, maxLockoutDoublings))
				f.Lockouts++
				f.Count = 0
				if k.key == addressKey(address) {
					at.addressLocked, at.addressUntil = true, f.Until
				}
			}
			if err := tx.PutSignInFailures(k.key, f); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, errSignInRefused) {
		return at, refusal, nil
	}
	return at, nil, err
}

// succeeded forgets the account's failures from this address and its
// step-up, and takes back the attempt's count of the address (one good
// account must neither count against an address nor reset one that is
// guessing others).
func (t *signInThrottle) succeeded(ctx context.Context, at attempt) error {
	return t.store.Write(ctx, func(tx *store.Tx) error {
		if err := tx.DropSignInFailures(accountAddressKey(at.account, at.address), accountKey(at.account)); err != nil {
			return err
		}
		if at.addressLocked {
			// Unless a later lockout replaced the one this attempt set.
			return tx.RestoreSignInLockout(addressKey(at.address), limitAddress-1, at.addressBefore, at.addressUntil)
		}
		return tx.TakeBackSignInFailure(addressKey(at.address))
	})
}

// forgetAccount clears every failure, lockout and step-up of the account,
// from every address, in the transaction of a completed password reset:
// it proves the owner, and whoever guessed the old password now guesses
// at a new one.
func forgetAccount(tx *store.Tx, account string) error {
	return tx.DropSignInFailuresByPrefix(accountKey(account), accountAddressKey(account, ""))
}

func (t *signInThrottle) longest() time.Duration { return t.window << maxLockoutDoublings }

// sweep drops, once a window, what can no longer matter, so the table
// stays bounded by the failures of the last few windows.
func (t *signInThrottle) sweep(tx *store.Tx, now time.Time) error {
	if now.Sub(time.Unix(0, t.swept.Load())) < t.window {
		return nil
	}
	t.swept.Store(now.UnixNano())
	return tx.DropStaleSignInFailures(now.Add(-t.longest()), now)
}
