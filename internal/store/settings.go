package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"time"
)

// setting reads a value kept in the settings table.
func (s *Store) setting(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.read.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, s.fault(err)
}

// Secret returns the server secret that signs XSRF tokens: the configured
// one when given, otherwise one generated on first start and kept in the
// database, so restarts keep issued tokens valid.
func (s *Store) Secret(ctx context.Context, configured string) ([]byte, error) {
	if configured != "" {
		if len(configured) < 32 {
			return nil, fmt.Errorf("the secret must be at least 32 characters")
		}
		return []byte(configured), nil
	}
	v, ok, err := s.setting(ctx, "xsrf_secret")
	if err != nil {
		return nil, err
	}
	if !ok {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		fresh := base64.RawURLEncoding.EncodeToString(b)
		err = s.write(ctx, func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO settings (key, value) VALUES ('xsrf_secret', ?) ON CONFLICT (key) DO NOTHING`, fresh)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("keeping a new server secret: %w", err)
		}
		if v, _, err = s.setting(ctx, "xsrf_secret"); err != nil {
			return nil, err
		}
	}
	return []byte(v), nil
}

// CheckWritable commits a write (the time of the check), so a full disk,
// a read-only file or a database that refuses writes shows in its error.
func (s *Store) CheckWritable(ctx context.Context, now time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO settings (key, value) VALUES ('readiness_checked_at', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, timestamp(now))
		return err
	})
}
