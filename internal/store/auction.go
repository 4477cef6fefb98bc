package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// The public trucking auction: carriers registered under their MC
// numbers, and the changes to a registration that wait for the link
// mailed to the address on file (formapi/auction.go says why).

// AuctionDetails is what a carrier registers under its MC number; its
// JSON is how a change waiting for confirmation is kept (and compared
// with the changes waiting already), so its fields keep their order.
type AuctionDetails struct {
	CompanyName   string `json:"companyName"`
	ContactName   string `json:"contactName"`
	Email         string `json:"email"`
	Phone         string `json:"phone"`
	City          string `json:"city"`
	State         string `json:"state"`
	TruckCount    int    `json:"truckCount"`
	EquipmentType string `json:"equipmentType"`
	Language      string `json:"preferredLanguage"`
}

// RegisterCarrier registers a new MC number with its details; created is
// false (and nothing changes) when the number is registered already.
func (tx *Tx) RegisterCarrier(mc string, d AuctionDetails, at time.Time) (created bool, err error) {
	res, err := tx.tx.Exec(`INSERT INTO auction_registrations (mc_number, company_name, contact_name, email, phone, city, state, truck_count, equipment_type, language, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (mc_number) DO NOTHING`,
		mc, d.CompanyName, d.ContactName, d.Email, d.Phone, d.City, d.State, d.TruckCount, d.EquipmentType, d.Language, timestamp(at), timestamp(at))
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// LockRegistration reads what is on file for a registered MC number and
// locks its row (on PostgreSQL; SQLite's write lock holds the whole file)
// until the write ends, so changes posted through several instances at
// once take turns.
func (tx *Tx) LockRegistration(mc string) (AuctionDetails, error) {
	var d AuctionDetails
	err := tx.tx.QueryRow(`SELECT company_name, contact_name, email, phone, city, state, truck_count, equipment_type, language FROM auction_registrations WHERE mc_number = ?`+tx.forUpdate(), mc).
		Scan(&d.CompanyName, &d.ContactName, &d.Email, &d.Phone, &d.City, &d.State, &d.TruckCount, &d.EquipmentType, &d.Language)
	return d, err
}

// AuctionChanges drops the changes expired at now and counts an MC
// number's others: those waiting with exactly the proposed details, and
// all of them (used or not) within a link's lifetime.
func (tx *Tx) AuctionChanges(mc string, proposed AuctionDetails, now time.Time) (waiting, recent int, err error) {
	fields, _ := json.Marshal(proposed)
	if _, err := tx.tx.Exec(`DELETE FROM auction_changes WHERE expires_at <= ?`, timestamp(now)); err != nil {
		return 0, 0, err
	}
	err = tx.tx.QueryRow(`SELECT COUNT(*) FILTER (WHERE fields = ? AND used_at IS NULL), COUNT(*) FROM auction_changes WHERE mc_number = ?`, string(fields), mc).Scan(&waiting, &recent)
	return waiting, recent, err
}

// AddAuctionChange keeps a proposed change to an MC number until expires,
// under its link's token (kept as its TokenHash).
func (tx *Tx) AddAuctionChange(mc, token string, proposed AuctionDetails, at, expires time.Time) error {
	fields, _ := json.Marshal(proposed)
	_, err := tx.tx.Exec(`INSERT INTO auction_changes (token_hash, mc_number, fields, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
		TokenHash(token), mc, string(fields), timestamp(at), timestamp(expires))
	return err
}

// ApplyAuctionChange uses a change's token at now and registers its
// details; the number's other changes still waiting end now. It returns
// the MC number, or ErrSpent for a token unknown, used or expired: using
// it is the guard, so of two requests racing with one link only the first
// finds it unused.
func (tx *Tx) ApplyAuctionChange(token string, now time.Time) (mc string, err error) {
	at := timestamp(now)
	var fields string
	err = tx.tx.QueryRow(`UPDATE auction_changes SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING mc_number, fields`,
		at, TokenHash(token), at).Scan(&mc, &fields)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrSpent
	}
	if err != nil {
		return "", err
	}
	var d AuctionDetails
	if err := json.Unmarshal([]byte(fields), &d); err != nil {
		return "", err
	}
	if _, err := tx.tx.Exec(`UPDATE auction_registrations SET company_name = ?, contact_name = ?, email = ?, phone = ?, city = ?, state = ?, truck_count = ?, equipment_type = ?, language = ?, updated_at = ? WHERE mc_number = ?`,
		d.CompanyName, d.ContactName, d.Email, d.Phone, d.City, d.State, d.TruckCount, d.EquipmentType, d.Language, at, mc); err != nil {
		return "", err
	}
	// The others end now: their links say so in the carrier's language
	// until they are cleared out with other expired ones.
	_, err = tx.tx.Exec(`UPDATE auction_changes SET expires_at = ? WHERE mc_number = ? AND used_at IS NULL`, at, mc)
	return mc, err
}

// Registration is what the public lookup of an MC number shows.
type Registration struct {
	MCNumber      string
	CompanyName   string
	City          string
	State         string
	TruckCount    int
	EquipmentType string
	RegisteredAt  string // as stored: RFC 3339, UTC, milliseconds
	UpdatedAt     string
}

// RegistrationByMC finds the registration of an MC number.
func (s *Store) RegistrationByMC(ctx context.Context, mc string) (Registration, bool, error) {
	var r Registration
	err := s.read.QueryRowContext(ctx, `SELECT mc_number, company_name, city, state, truck_count, equipment_type, created_at, updated_at FROM auction_registrations WHERE mc_number = ?`, mc).
		Scan(&r.MCNumber, &r.CompanyName, &r.City, &r.State, &r.TruckCount, &r.EquipmentType, &r.RegisteredAt, &r.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, s.fault(err)
}

// AuctionChange is a change found by its link's token.
type AuctionChange struct {
	MCNumber string
	Proposed AuctionDetails
	Language string // the carrier's, on file
	Expires  time.Time
	Used     bool
}

// AuctionChangeByToken finds the change of a link's token.
func (s *Store) AuctionChangeByToken(ctx context.Context, token string) (AuctionChange, bool, error) {
	var c AuctionChange
	var fields, expires string
	var used sql.NullString
	err := s.read.QueryRowContext(ctx, `SELECT c.mc_number, c.fields, c.expires_at, c.used_at, r.language
		FROM auction_changes c JOIN auction_registrations r ON r.mc_number = c.mc_number WHERE c.token_hash = ?`, TokenHash(token)).
		Scan(&c.MCNumber, &fields, &expires, &used, &c.Language)
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, s.fault(err)
	}
	if err := json.Unmarshal([]byte(fields), &c.Proposed); err != nil {
		return c, false, err
	}
	c.Expires, c.Used = parseTimestamp(expires), used.Valid
	return c, true, nil
}
