package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// The public forms' rows: contact messages, feedback with its attachment,
// and the addresses that left the e-mail list.

// ContactMessage is a message sent through the contact form.
type ContactMessage struct {
	Name, Email, Phone, Subject, Message string
}

// AddContactMessage stores a contact message.
func (tx *Tx) AddContactMessage(at time.Time, m ContactMessage) error {
	_, err := tx.tx.Exec(`INSERT INTO contact_messages (created_at, name, email, phone, subject, message) VALUES (?, ?, ?, ?, ?, ?)`,
		timestamp(at), m.Name, m.Email, m.Phone, m.Subject, m.Message)
	return err
}

// Feedback is a visitor's feedback; ErrorType names the error page it was
// sent from ("" for none).
type Feedback struct {
	Name, Email, Phone, Feedback, ErrorType string
}

// Attachment is a file kept with feedback; outbox messages point at it
// instead of copying it.
type Attachment struct {
	Name, MediaType string
	Data            []byte
}

// AddFeedback stores feedback with its attachment (nil for none) and
// returns the attachment's id (0 for none), for the notification to carry.
func (tx *Tx) AddFeedback(at time.Time, f Feedback, file *Attachment) (attachmentID int64, err error) {
	if file != nil {
		if err := tx.tx.QueryRow(`INSERT INTO attachments (name, media_type, data) VALUES (?, ?, ?) RETURNING id`, file.Name, file.MediaType, file.Data).Scan(&attachmentID); err != nil {
			return 0, err
		}
	}
	_, err = tx.tx.Exec(`INSERT INTO feedback (created_at, name, email, phone, feedback, error_type, attachment_id) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		timestamp(at), f.Name, f.Email, f.Phone, f.Feedback, f.ErrorType, nullID(attachmentID))
	return attachmentID, err
}

// AddOptOut keeps an address (lowercase) that leaves the e-mail list with
// the reason given; an address that opted out already keeps its time, and
// gets the reason only if it had none.
func (tx *Tx) AddOptOut(email, reason string, at time.Time) error {
	_, err := tx.tx.Exec(`INSERT INTO mail_opt_outs (email, created_at, reason) VALUES (?, ?, ?)
		ON CONFLICT (email) DO UPDATE SET reason = excluded.reason WHERE mail_opt_outs.reason = ''`, email, timestamp(at), reason)
	return err
}

// OptOut is an address that left the e-mail list, when, and the reason
// the visitor gave ("" for none).
type OptOut struct {
	Email   string
	Created time.Time
	Reason  string
}

// OptOuts lists every opt-out, oldest first, so the network's list tool
// can leave those addresses out.
func (s *Store) OptOuts(ctx context.Context) ([]OptOut, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT email, created_at, reason FROM mail_opt_outs ORDER BY created_at, email`)
	if err != nil {
		return nil, s.fault(err)
	}
	defer rows.Close()
	var out []OptOut
	for rows.Next() {
		var o OptOut
		var created string
		if err := rows.Scan(&o.Email, &created, &o.Reason); err != nil {
			return nil, err
		}
		o.Created = parseTimestamp(created)
		out = append(out, o)
	}
	return out, s.fault(rows.Err())
}

// OptedOut reports whether an address (any case) left the e-mail list.
func (s *Store) OptedOut(ctx context.Context, email string) (bool, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM mail_opt_outs WHERE email = ?`, strings.TrimSpace(email)).Scan(&n)
	return n > 0, s.fault(err)
}

// RemoveOptOut lifts the opt-out of an address (any case) and reports
// whether there was one.
func (s *Store) RemoveOptOut(ctx context.Context, email string) (bool, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.Exec(`DELETE FROM mail_opt_outs WHERE email = ?`, strings.TrimSpace(email))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}
