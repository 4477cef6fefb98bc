package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Accounts: companies and their users, the credentials of signed-in
// members, and the links of forgot password. A user's email is the login
// id in its canonical form (formapi's loginID), compared exactly; secret
// values (credentials, reset links) are kept as their TokenHash only.

// Company is a registered company.
type Company struct {
	Name, ContactName, ContactEmail string
	Address1, Address2, City, State string
	PostalCode, Country             string
	ContactPhone, ContactFax        string
}

// User is a company's user as registration makes it.
type User struct {
	Email               string // the login id
	FirstName, LastName string
	PasswordHash        string // an argon2id PHC string; "" cannot sign in
	PreferredLanguage   string
}

// AddCompanyUser stores a company and its user; a login id registered
// already is ErrDuplicate.
func (tx *Tx) AddCompanyUser(at time.Time, c Company, u User) error {
	var company int64
	err := tx.tx.QueryRow(`INSERT INTO companies (created_at, name, contact_name, contact_email, address1, address2, city, state, postal_code, country, contact_phone, contact_fax)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, timestamp(at), c.Name, c.ContactName, c.ContactEmail, c.Address1, c.Address2,
		c.City, c.State, c.PostalCode, c.Country, c.ContactPhone, c.ContactFax).Scan(&company)
	if err != nil {
		return err
	}
	_, err = tx.tx.Exec(`INSERT INTO users (email, created_at, company_id, first_name, last_name, password_hash, preferred_language) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		u.Email, timestamp(at), company, u.FirstName, u.LastName, u.PasswordHash, u.PreferredLanguage)
	return duplicate(err)
}

// LoginTaken reports whether an account has the login id.
func (s *Store) LoginTaken(ctx context.Context, loginID string) (bool, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE email = ?`, loginID).Scan(&n)
	return n > 0, s.fault(err)
}

// Login is what sign-in needs of an account.
type Login struct {
	UserID       int64
	Email        string
	PasswordHash string
}

// LoginByID finds the account of a login id.
func (s *Store) LoginByID(ctx context.Context, loginID string) (Login, bool, error) {
	var l Login
	err := s.read.QueryRowContext(ctx, `SELECT id, email, password_hash FROM users WHERE email = ?`, loginID).Scan(&l.UserID, &l.Email, &l.PasswordHash)
	if errors.Is(err, sql.ErrNoRows) {
		return l, false, nil
	}
	return l, err == nil, s.fault(err)
}

// CredentialKind is a credential's kind: a browser session or a bearer
// token.
type CredentialKind string

const (
	Session CredentialKind = "session"
	Bearer  CredentialKind = "bearer"
)

// AddCredential keeps a credential's value (as its TokenHash) for the user
// until expires, and drops the credentials expired at now.
func (s *Store) AddCredential(ctx context.Context, kind CredentialKind, value string, userID int64, now, expires time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`DELETE FROM credentials WHERE expires_at <= ?`, timestamp(now)); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO credentials (token_hash, kind, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
			TokenHash(value), kind, userID, timestamp(now), timestamp(expires))
		return err
	})
}

// Member is a signed-in user with their company.
type Member struct {
	UserID    int64
	Email     string
	FirstName string
	LastName  string
	Company   string
	Language  string
}

// CredentialMember finds who a credential value belongs to, if it is one
// of that kind and has not expired at now.
func (s *Store) CredentialMember(ctx context.Context, kind CredentialKind, value string, now time.Time) (Member, bool, error) {
	var m Member
	if value == "" {
		return m, false, nil
	}
	err := s.read.QueryRowContext(ctx, `SELECT u.id, u.email, u.first_name, u.last_name, COALESCE(c.name, ''), u.preferred_language
		FROM credentials k JOIN users u ON u.id = k.user_id LEFT JOIN companies c ON c.id = u.company_id
		WHERE k.token_hash = ? AND k.kind = ? AND k.expires_at > ?`, TokenHash(value), kind, timestamp(now)).
		Scan(&m.UserID, &m.Email, &m.FirstName, &m.LastName, &m.Company, &m.Language)
	if errors.Is(err, sql.ErrNoRows) {
		return m, false, nil
	}
	if err != nil {
		return m, false, s.fault(err)
	}
	return m, true, nil
}

// RevokeCredential deletes one credential by its value ("" deletes none).
func (s *Store) RevokeCredential(ctx context.Context, value string) error {
	if value == "" {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`DELETE FROM credentials WHERE token_hash = ?`, TokenHash(value))
		return err
	})
}

// ResetRecipient is the account a reset link is mailed for.
type ResetRecipient struct {
	UserID   int64
	Language string
}

// ResetRecipientByID finds the account of a login id that can sign in
// (has a password).
func (s *Store) ResetRecipientByID(ctx context.Context, loginID string) (ResetRecipient, bool, error) {
	var r ResetRecipient
	err := s.read.QueryRowContext(ctx, `SELECT id, preferred_language FROM users WHERE email = ? AND password_hash != ''`, loginID).Scan(&r.UserID, &r.Language)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, s.fault(err)
}

// AddPasswordReset keeps a reset link's token for the user (0: a request
// for no account, kept all the same so both cost the same) until expires,
// drops the links expired at at, and returns how many links the user
// already had that have not expired. On PostgreSQL the user's row is
// locked first, so requests for one account through several instances at
// once take turns: each counts the links of the others before it, and a
// cap on them holds (SQLite's write lock holds the whole file already).
func (tx *Tx) AddPasswordReset(token string, userID int64, at, expires time.Time) (earlier int, err error) {
	if userID != 0 {
		var locked int64
		if err := tx.tx.QueryRow(`SELECT id FROM users WHERE id = ?`+tx.forUpdate(), userID).Scan(&locked); err != nil {
			return 0, err
		}
	}
	if _, err := tx.tx.Exec(`DELETE FROM password_resets WHERE expires_at <= ?`, timestamp(at)); err != nil {
		return 0, err
	}
	if err := tx.tx.QueryRow(`SELECT COUNT(*) FROM password_resets WHERE user_id = ?`, nullID(userID)).Scan(&earlier); err != nil {
		return 0, err
	}
	_, err = tx.tx.Exec(`INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		TokenHash(token), nullID(userID), timestamp(at), timestamp(expires))
	return earlier, err
}

// ResetOwner finds the user a reset link's token works for at now: known,
// unused, unexpired and for an account.
func (s *Store) ResetOwner(ctx context.Context, token string, now time.Time) (userID int64, ok bool, err error) {
	err = s.read.QueryRowContext(ctx, `SELECT user_id FROM password_resets
		WHERE token_hash = ? AND user_id IS NOT NULL AND used_at IS NULL AND expires_at > ?`, TokenHash(token), timestamp(now)).Scan(&userID)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return userID, err == nil, s.fault(err)
}

// ResetPassword uses a reset link's token at now and sets its account's
// password hash: every link of the account is used up, and every
// credential of it ends but keep (a credential value: the session making
// the call). It returns the account's login id, or ErrSpent when the token
// is unknown, used or expired: using it is the guard, so of two requests
// racing with one link only the first finds it unused.
func (tx *Tx) ResetPassword(token, passwordHash, keep string, now time.Time) (loginID string, err error) {
	at := timestamp(now)
	var owner int64
	err = tx.tx.QueryRow(`UPDATE password_resets SET used_at = ?
		WHERE token_hash = ? AND user_id IS NOT NULL AND used_at IS NULL AND expires_at > ? RETURNING user_id`, at, TokenHash(token), at).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrSpent
	}
	if err != nil {
		return "", err
	}
	if err := tx.tx.QueryRow(`SELECT email FROM users WHERE id = ?`, owner).Scan(&loginID); err != nil {
		return "", err
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE users SET password_hash = ? WHERE id = ?`, []any{passwordHash, owner}},
		{`DELETE FROM credentials WHERE user_id = ? AND token_hash != ?`, []any{owner, TokenHash(keep)}},
		{`UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL`, []any{at, owner}},
	} {
		if _, err := tx.tx.Exec(q.sql, q.args...); err != nil {
			return "", err
		}
	}
	return loginID, nil
}
