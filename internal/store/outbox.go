package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The mail outbox (internal/mail sends it): a message is queued in the
// transaction of the row it reports, so an acknowledged submission always
// has its notification, and moves from pending to sent, held (no SMTP
// server configured), suppressed (an opt-out) or failed.

// Mail is a message to queue. Kind is one of internal/mail's kinds (list,
// notification, account).
type Mail struct {
	Kind                       string
	To, ReplyTo, Subject, Body string
	AttachmentID               int64 // 0: none
}

// QueueMail queues a message, due at once.
func (tx *Tx) QueueMail(m Mail, at time.Time) error {
	if m.Kind == "" {
		return errors.New("queueing mail: no kind")
	}
	_, err := tx.tx.Exec(`INSERT INTO outbox (created_at, kind, recipient, reply_to, subject, body, attachment_id, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		timestamp(at), m.Kind, m.To, m.ReplyTo, m.Subject, m.Body, nullID(m.AttachmentID), timestamp(at))
	return err
}

// OutboxEntry is one message of the outbox as `freightsite mail outbox`
// lists it.
type OutboxEntry struct {
	ID        int64
	Created   time.Time
	Kind      string
	To        string
	Subject   string
	State     string // pending, sent, held, suppressed, failed
	Attempts  int
	LastError string
}

// OutboxMessage is one message whole, as `freightsite mail outbox --show`
// prints it.
type OutboxMessage struct {
	OutboxEntry
	ReplyTo    string
	Body       string
	Attachment string // file name, "" when none
}

const outboxColumns = `o.id, o.created_at, o.kind, o.recipient, o.subject, o.state, o.attempts, o.last_error`

func scanOutboxEntry(row interface{ Scan(...any) error }, e *OutboxEntry, more ...any) error {
	var created string
	err := row.Scan(append([]any{&e.ID, &created, &e.Kind, &e.To, &e.Subject, &e.State, &e.Attempts, &e.LastError}, more...)...)
	e.Created = parseTimestamp(created)
	return err
}

// Outbox lists the newest messages first, at most limit of them, with the
// given state only when state is not empty.
func (s *Store) Outbox(ctx context.Context, state string, limit int) ([]OutboxEntry, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+outboxColumns+` FROM outbox o
		WHERE ? = '' OR o.state = ? ORDER BY o.id DESC LIMIT ?`, state, state, limit)
	if err != nil {
		return nil, s.fault(err)
	}
	defer rows.Close()
	var out []OutboxEntry
	for rows.Next() {
		var e OutboxEntry
		if err := scanOutboxEntry(rows, &e); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, s.fault(rows.Err())
}

// ErrNoSuchMessage is OutboxMessageByID's answer for an unknown id.
var ErrNoSuchMessage = errors.New("no such outbox message")

// OutboxMessageByID returns one message with its body.
func (s *Store) OutboxMessageByID(ctx context.Context, id int64) (OutboxMessage, error) {
	var m OutboxMessage
	var attachment sql.NullString
	row := s.read.QueryRowContext(ctx, `SELECT `+outboxColumns+`, o.reply_to, o.body, a.name FROM outbox o
		LEFT JOIN attachments a ON a.id = o.attachment_id WHERE o.id = ?`, id)
	err := scanOutboxEntry(row, &m.OutboxEntry, &m.ReplyTo, &m.Body, &attachment)
	if errors.Is(err, sql.ErrNoRows) {
		return m, fmt.Errorf("%w: %d", ErrNoSuchMessage, id)
	}
	if err != nil {
		return m, s.fault(err)
	}
	m.Attachment = attachment.String
	return m, nil
}

// DueMail is a message the sender has claimed, whole.
type DueMail struct {
	ID                         int64
	Kind                       string
	To, ReplyTo, Subject, Body string
	Attempts                   int         // attempts made before
	Attachment                 *Attachment // nil: none
}

// ClaimDueMail claims up to limit messages due at now for this sender:
// their next attempt moves lease ahead, so no other instance's sender
// takes them, and if this one's instance dies, another retries them once
// the lease is over. On PostgreSQL the claim locks the rows it takes and
// skips those another sender is claiming (FOR UPDATE SKIP LOCKED), so
// senders of several instances work side by side and each message goes
// out once.
func (s *Store) ClaimDueMail(ctx context.Context, now time.Time, limit int, lease time.Duration) ([]DueMail, error) {
	// A cheap look first: an empty claim would be a commit, and every
	// commit wakes the sender.
	var one int
	err := s.read.QueryRowContext(ctx, `SELECT 1 FROM outbox WHERE state = 'pending' AND next_attempt_at <= ? LIMIT 1`, timestamp(now)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, s.fault(err)
	}
	lock := ""
	if s.pg {
		lock = " FOR UPDATE OF o SKIP LOCKED"
	}
	var out []DueMail
	err = s.write(ctx, func(tx *sql.Tx) error {
		out = nil
		rows, err := tx.Query(`SELECT o.id, o.kind, o.recipient, o.reply_to, o.subject, o.body, o.attempts, a.name, a.media_type, a.data
			FROM outbox o LEFT JOIN attachments a ON a.id = o.attachment_id
			WHERE o.state = 'pending' AND o.next_attempt_at <= ? ORDER BY o.next_attempt_at, o.id LIMIT ?`+lock, timestamp(now), limit)
		if err != nil {
			return err
		}
		for rows.Next() {
			var m DueMail
			var attName, attType sql.NullString
			var attData []byte
			if err := rows.Scan(&m.ID, &m.Kind, &m.To, &m.ReplyTo, &m.Subject, &m.Body, &m.Attempts, &attName, &attType, &attData); err != nil {
				rows.Close()
				return err
			}
			if attName.Valid {
				m.Attachment = &Attachment{Name: attName.String, MediaType: attType.String, Data: attData}
			}
			out = append(out, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, m := range out {
			if _, err := tx.Exec(`UPDATE outbox SET next_attempt_at = ? WHERE id = ?`, timestamp(now.Add(lease)), m.ID); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// RecordAttempt notes an attempt at a message: its new state, the error
// of a failed attempt, and when to try again (a pending message) or when
// it was done (any other).
func (s *Store) RecordAttempt(ctx context.Context, id int64, state, lastErr string, next, now time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE outbox SET state = ?, attempts = attempts + 1, last_error = ?, next_attempt_at = ?, done_at = CASE WHEN ? = 'pending' THEN NULL ELSE ? END WHERE id = ?`,
			state, lastErr, timestamp(next), state, timestamp(now), id)
		return err
	})
}

// NextMailDue is when the next pending message is due (zero if none is).
func (s *Store) NextMailDue(ctx context.Context) (time.Time, error) {
	var next sql.NullString
	err := s.read.QueryRowContext(ctx, `SELECT MIN(next_attempt_at) FROM outbox WHERE state = 'pending'`).Scan(&next)
	if err != nil || !next.Valid {
		return time.Time{}, s.fault(err)
	}
	return parseTimestamp(next.String), nil
}

// OutboxBacklog counts the pending messages, and those of them due since
// before dueBefore.
func (s *Store) OutboxBacklog(ctx context.Context, dueBefore time.Time) (pending, overdue int, err error) {
	err = s.read.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(CASE WHEN next_attempt_at < ? THEN 1 END) FROM outbox WHERE state = 'pending'`, timestamp(dueBefore)).Scan(&pending, &overdue)
	return pending, overdue, s.fault(err)
}

// OutboxStates counts the messages of the outbox by state (states with
// none are absent).
func (s *Store) OutboxStates(ctx context.Context) (map[string]int, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT state, COUNT(*) FROM outbox GROUP BY state`)
	if err != nil {
		return nil, s.fault(err)
	}
	defer rows.Close()
	counts := map[string]int{}
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return nil, err
		}
		counts[state] = n
	}
	return counts, s.fault(rows.Err())
}
