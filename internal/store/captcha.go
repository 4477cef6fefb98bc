package store

import (
	"context"
	"database/sql"
	"time"
)

// SpendCaptcha spends a solved captcha challenge that works until
// expires: the first spend reports fresh, any later one (through any
// instance, after any restart) not. Spent challenges are dropped once
// expired at now, when they could not pass anyway.
func (s *Store) SpendCaptcha(ctx context.Context, challenge string, expires, now time.Time) (fresh bool, err error) {
	var inserted int64
	err = s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`DELETE FROM captcha_spent WHERE expires_at <= ?`, timestamp(now)); err != nil {
			return err
		}
		res, err := tx.Exec(`INSERT INTO captcha_spent (challenge, expires_at) VALUES (?, ?) ON CONFLICT (challenge) DO NOTHING`, challenge, timestamp(expires))
		if err != nil {
			return err
		}
		inserted, err = res.RowsAffected()
		return err
	})
	return inserted == 1, err
}
