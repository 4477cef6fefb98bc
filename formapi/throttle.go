package formapi

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"freightsite/internal/clientaddr"
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
// The counts live in the database (sign_in_failures), so every instance of
// the server sharing it counts the same failures.
type signInThrottle struct {
	store  *Store
	window time.Duration // the first lockout, and how long failures are remembered
	now    func() time.Time
	swept  atomic.Int64 // when this instance last dropped old rows (Unix ns)
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

// signInNetworkBits is how much of an IPv6 address the throttle counts as
// one address.
const signInNetworkBits = 56

// throttleAddress is the address the throttle counts a client address as.
func throttleAddress(clientIP string) string {
	return clientaddr.KeyStringWithin(clientIP, signInNetworkBits)
}

// DefaultSignInLockout is the first lockout after too many failures.
const DefaultSignInLockout = 15 * time.Minute

func newSignInThrottle(store *Store, window time.Duration, now func() time.Time) *signInThrottle {
	if window <= 0 {
		window = DefaultSignInLockout
	}
	return &signInThrottle{store: store, window: window, now: now}
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

// entries reads the failures kept under keys (absent keys have none).
func (t *signInThrottle) entries(ctx context.Context, keys ...string) (map[string]failures, error) {
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	rows, err := t.store.read.QueryContext(ctx, `SELECT key, failures, last_at, locked_until, lockouts FROM sign_in_failures
		WHERE key IN (?`+strings.Repeat(", ?", len(keys)-1)+`)`, args...)
	if err != nil {
		return nil, storageError(err)
	}
	defer rows.Close()
	out := map[string]failures{}
	for rows.Next() {
		var key string
		f, err := scanFailures(rows, &key)
		if err != nil {
			return nil, err
		}
		out[key] = f
	}
	return out, storageError(rows.Err())
}

func scanFailures(row interface{ Scan(...any) error }, key *string) (failures, error) {
	var f failures
	var last, until string
	err := row.Scan(key, &f.count, &last, &until, &f.lockouts)
	f.last, f.until = parseTimestamp(last), parseTimestamp(until)
	return f, err
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
	entries, err := t.entries(ctx, keys...)
	var longest time.Duration
	for _, f := range entries {
		if f.until.After(now) {
			longest = max(longest, f.until.Sub(now))
		}
	}
	return longest, err
}

// needsCaptcha reports whether the account has had so many recent
// failures that sign-in to it needs a solved captcha.
func (t *signInThrottle) needsCaptcha(ctx context.Context, account string) (bool, error) {
	now := t.now()
	entries, err := t.entries(ctx, accountKey(account))
	f, ok := entries[accountKey(account)]
	return ok && f.count >= limitAccount && now.Sub(f.last) <= t.window, err
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
	addressBefore failures
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
	lock := ""
	if t.store.pg {
		lock = " FOR UPDATE"
	}
	at := attempt{account: account, address: address}
	var refusal *signInRefusal
	err := t.store.write(ctx, func(tx *sql.Tx) error {
		at.addressLocked, refusal = false, nil
		if err := t.sweep(tx, now); err != nil {
			return err
		}
		keys := signInKeys(account, address)
		rows := make([]failures, len(keys))
		var wait time.Duration
		for i, k := range keys {
			if _, err := tx.Exec(`INSERT INTO sign_in_failures (key) VALUES (?) ON CONFLICT (key) DO NOTHING`, k.key); err != nil {
				return err
			}
			var key string
			f, err := scanFailures(tx.QueryRow(`SELECT key, failures, last_at, locked_until, lockouts FROM sign_in_failures WHERE key = ?`+lock, k.key), &key)
			if err != nil {
				return err
			}
			rows[i] = f
			switch {
			case k.lock && f.until.After(now):
				wait = max(wait, f.until.Sub(now))
			case !k.lock && !captchaSolved && f.count >= k.limit && now.Sub(f.last) <= t.window:
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
				if k.key == addressKey(address) {
					at.addressLocked, at.addressUntil = true, f.until
				}
			}
			if err := updateFailures(tx, k.key, f); err != nil {
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

func updateFailures(tx *sql.Tx, key string, f failures) error {
	until := ""
	if !f.until.IsZero() {
		until = timestamp(f.until)
	}
	_, err := tx.Exec(`UPDATE sign_in_failures SET failures = ?, last_at = ?, locked_until = ?, lockouts = ? WHERE key = ?`,
		f.count, timestamp(f.last), until, f.lockouts, key)
	return err
}

// succeeded forgets the account's failures from this address and its
// step-up, and takes back the attempt's count of the address (one good
// account must neither count against an address nor reset one that is
// guessing others).
func (t *signInThrottle) succeeded(ctx context.Context, at attempt) error {
	return t.store.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`DELETE FROM sign_in_failures WHERE key IN (?, ?)`, accountAddressKey(at.account, at.address), accountKey(at.account)); err != nil {
			return err
		}
		if at.addressLocked {
			// Unless a later lockout replaced the one this attempt set.
			before := at.addressBefore
			until := ""
			if !before.until.IsZero() {
				until = timestamp(before.until)
			}
			_, err := tx.Exec(`UPDATE sign_in_failures SET failures = ?, locked_until = ?, lockouts = ? WHERE key = ? AND locked_until = ?`,
				limitAddress-1, until, before.lockouts, addressKey(at.address), timestamp(at.addressUntil))
			return err
		}
		_, err := tx.Exec(`UPDATE sign_in_failures SET failures = failures - 1 WHERE key = ? AND failures > 0`, addressKey(at.address))
		return err
	})
}

// forgetAccount clears every failure, lockout and step-up of the account,
// from every address, in the transaction of a completed password reset:
// it proves the owner, and whoever guessed the old password now guesses
// at a new one.
func forgetAccount(tx *sql.Tx, account string) error {
	prefix := accountAddressKey(account, "")
	// substr counts characters (on both engines), not bytes.
	_, err := tx.Exec(`DELETE FROM sign_in_failures WHERE key = ? OR substr(key, 1, ?) = ?`, accountKey(account), utf8.RuneCountInString(prefix), prefix)
	return err
}

func (t *signInThrottle) longest() time.Duration { return t.window << maxLockoutDoublings }

// sweep drops, once a window, what can no longer matter, so the table
// stays bounded by the failures of the last few windows.
func (t *signInThrottle) sweep(tx *sql.Tx, now time.Time) error {
	if now.Sub(time.Unix(0, t.swept.Load())) < t.window {
		return nil
	}
	t.swept.Store(now.UnixNano())
	_, err := tx.Exec(`DELETE FROM sign_in_failures WHERE last_at < ? AND locked_until <= ?`, timestamp(now.Add(-t.longest())), timestamp(now))
	return err
}
