package formapi

import (
	"context"
	"database/sql"
	"strings"
	"sync/atomic"
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

func signInKeys(account, address string) []throttleKey {
	return []throttleKey{
		{accountAddressKey(account, address), limitAccountAddress, true},
		{"address:" + address, limitAddress, true},
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

// failed counts a failed sign-in. Each key's row is read and written in
// one transaction, locked on PostgreSQL, so failures counted by several
// instances at once all count.
func (t *signInThrottle) failed(ctx context.Context, account, address string) error {
	now := t.now()
	lock := ""
	if t.store.pg {
		lock = " FOR UPDATE"
	}
	return t.store.write(ctx, func(tx *sql.Tx) error {
		if err := t.sweep(tx, now); err != nil {
			return err
		}
		for _, k := range signInKeys(account, address) {
			if _, err := tx.Exec(`INSERT INTO sign_in_failures (key) VALUES (?) ON CONFLICT (key) DO NOTHING`, k.key); err != nil {
				return err
			}
			var key string
			f, err := scanFailures(tx.QueryRow(`SELECT key, failures, last_at, locked_until, lockouts FROM sign_in_failures WHERE key = ?`+lock, k.key), &key)
			if err != nil {
				return err
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
			until := ""
			if !f.until.IsZero() {
				until = timestamp(f.until)
			}
			if _, err := tx.Exec(`UPDATE sign_in_failures SET failures = ?, last_at = ?, locked_until = ?, lockouts = ? WHERE key = ?`,
				f.count, timestamp(f.last), until, f.lockouts, k.key); err != nil {
				return err
			}
		}
		return nil
	})
}

// succeeded forgets the account's failures from this address and its
// step-up (not the address's count: one good account must not reset an
// address that is guessing others).
func (t *signInThrottle) succeeded(ctx context.Context, account, address string) error {
	return t.store.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`DELETE FROM sign_in_failures WHERE key IN (?, ?)`, accountAddressKey(account, address), accountKey(account))
		return err
	})
}

// forgetAccount clears every failure, lockout and step-up of the account,
// from every address, in the transaction of a completed password reset:
// it proves the owner, and whoever guessed the old password now guesses
// at a new one.
func forgetAccount(tx *sql.Tx, account string) error {
	prefix := accountAddressKey(account, "")
	_, err := tx.Exec(`DELETE FROM sign_in_failures WHERE key = ? OR substr(key, 1, ?) = ?`, accountKey(account), len(prefix), prefix)
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
