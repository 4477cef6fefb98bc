package formapi

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"
	"time"
)

// Signed-in state. A browser session is a cookie; an API client holds a
// bearer token (POST /token/generate-token). Both are 256-bit random values
// of which the database keeps only the SHA-256 (table credentials), so
// reading the database signs nobody in.

const (
	sessionCookie = "SESSION"
	// A session without "remember me" ends with the browser, and on the
	// server at the latest after a working day.
	sessionLifetime    = 12 * time.Hour
	rememberedLifetime = 30 * 24 * time.Hour
	bearerLifetime     = 2 * time.Hour
)

type credentialKind string

const (
	kindSession credentialKind = "session"
	kindBearer  credentialKind = "bearer"
)

// member is the signed-in user with their company.
type member struct {
	UserID    int64
	Email     string
	FirstName string
	LastName  string
	Company   string
	Language  string
}

// issueCredential stores a new credential for the user and returns its
// value, to hand out once.
func (s *Store) issueCredential(ctx context.Context, kind credentialKind, userID int64, now time.Time, lifetime time.Duration) (string, time.Time, error) {
	value := randomToken(32)
	expires := now.Add(lifetime)
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`DELETE FROM credentials WHERE expires_at <= ?`, timestamp(now)); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO credentials (token_hash, kind, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
			sha256Hex(value), kind, userID, timestamp(now), timestamp(expires))
		return err
	})
	return value, expires, err
}

// credentialMember finds who a credential value belongs to, if it is one
// of that kind and has not expired.
func (s *Store) credentialMember(ctx context.Context, kind credentialKind, value string, now time.Time) (member, bool, error) {
	var m member
	if value == "" {
		return m, false, nil
	}
	err := s.read.QueryRowContext(ctx, `SELECT u.id, u.email, u.first_name, u.last_name, COALESCE(c.name, ''), u.preferred_language
		FROM credentials k JOIN users u ON u.id = k.user_id LEFT JOIN companies c ON c.id = u.company_id
		WHERE k.token_hash = ? AND k.kind = ? AND k.expires_at > ?`, sha256Hex(value), kind, timestamp(now)).
		Scan(&m.UserID, &m.Email, &m.FirstName, &m.LastName, &m.Company, &m.Language)
	if errors.Is(err, sql.ErrNoRows) {
		return m, false, nil
	}
	if err != nil {
		return m, false, storageError(err)
	}
	return m, true, nil
}

// revokeCredential deletes one credential by its value.
func (s *Store) revokeCredential(ctx context.Context, value string) error {
	if value == "" {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`DELETE FROM credentials WHERE token_hash = ?`, sha256Hex(value))
		return err
	})
}

func sessionValue(r *http.Request) string {
	if c, err := r.Cookie(sessionCookie); err == nil {
		return c.Value
	}
	return ""
}

// bearerValue is the token of an "Authorization: Bearer ..." header.
func bearerValue(r *http.Request) string {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// setSessionCookie sends the session: HttpOnly (no script reads it),
// SameSite=Lax (not sent on cross-site posts), Secure over TLS, and
// persistent only when the member asked to be remembered.
func setSessionCookie(w http.ResponseWriter, r *http.Request, value string, remember bool) {
	c := &http.Cookie{Name: sessionCookie, Value: value, Path: "/", HttpOnly: true, Secure: isHTTPS(r), SameSite: http.SameSiteLaxMode}
	if remember {
		c.MaxAge = int(rememberedLifetime.Seconds())
	}
	http.SetCookie(w, c)
}

func clearSessionCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, Secure: isHTTPS(r), SameSite: http.SameSiteLaxMode, MaxAge: -1})
}
