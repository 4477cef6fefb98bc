package formapi

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/emersion/go-smtp"
)

// The mail outbox: handlers queue a message in the same transaction as the
// row it reports (queueMail), so an acknowledged submission always has its
// notification; the sender (RunMail) delivers pending messages over SMTP
// with retries, or holds them when no SMTP server is configured. Only list
// mail honours opt-outs (see MailKind).

// MailKind says who a message is for, which decides whether an opt-out
// applies to it.
type MailKind string

const (
	// MailList goes to many people (announcements, news digests): an
	// address that unsubscribed does not get it.
	MailList MailKind = "list"
	// MailNotification tells the provider about a contact message or
	// feedback; an opt-out never silences it.
	MailNotification MailKind = "notification"
	// MailAccount is mail a person asked for (password reset,
	// confirmations); an opt-out never applies to it.
	MailAccount MailKind = "account"
)

// honoursOptOut is the opt-out rule (SPEC §1: the unsubscribe leaves "the
// e-mail list"): only list mail is suppressed.
func (k MailKind) honoursOptOut() bool { return k == MailList }

// outgoing is a message to queue.
type outgoing struct {
	kind                       MailKind
	to, replyTo, subject, body string
	attachmentID               int64 // 0: none
}

func queueMail(tx *sql.Tx, m outgoing, now time.Time) error {
	if m.kind == "" {
		return errors.New("queueing mail: no kind")
	}
	var att any
	if m.attachmentID != 0 {
		att = m.attachmentID
	}
	_, err := tx.Exec(`INSERT INTO outbox (created_at, kind, recipient, reply_to, subject, body, attachment_id, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		timestamp(now), m.kind, m.to, m.replyTo, m.subject, m.body, att, timestamp(now))
	return err
}

// OutboxEntry is one message of the outbox as `freightsite mail outbox`
// lists it.
type OutboxEntry struct {
	ID        int64
	Created   time.Time
	Kind      MailKind
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
		return nil, storageError(err)
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
	return out, rows.Err()
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
		return m, storageError(err)
	}
	m.Attachment = attachment.String
	return m, nil
}

// MailOptions configure the sender.
type MailOptions struct {
	SMTP        *SMTPMailer   // nil: hold each message in the outbox instead of sending it
	Log         *slog.Logger  // where deliveries, held messages and failures are noted
	RetryBase   time.Duration // first retry delay, doubled each attempt (default 30 s, at most 1 h)
	MaxAttempts int           // attempts before a message is failed (default 8)
	Poll        time.Duration // longest sleep between looks at the outbox (default 30 s)
}

// RunMail delivers the outbox until ctx ends. It wakes up after every
// commit and otherwise at the next due retry.
func (s *Store) RunMail(ctx context.Context, opts MailOptions) {
	if opts.Log == nil {
		opts.Log = s.log
	}
	if opts.RetryBase <= 0 {
		opts.RetryBase = 30 * time.Second
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 8
	}
	if opts.Poll <= 0 {
		opts.Poll = 30 * time.Second
	}
	for {
		next, err := s.deliverDue(ctx, opts)
		switch {
		case err == nil || ctx.Err() != nil:
		case errors.Is(err, ErrUnavailable) && s.outage.active():
			s.outage.fail(0, err) // logged with the outage
		default:
			opts.Log.Error("delivering mail", "err", err)
		}
		wait := opts.Poll
		if !next.IsZero() {
			wait = min(wait, max(time.Until(next), 10*time.Millisecond))
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-s.written:
		case <-timer.C:
		}
		timer.Stop()
	}
}

type pendingMail struct {
	id                         int64
	kind                       MailKind
	to, replyTo, subject, body string
	attempts                   int
	attName, attType           sql.NullString
	attData                    []byte
}

// deliverDue tries every due message once and returns when the next
// pending one is due (zero if none is).
func (s *Store) deliverDue(ctx context.Context, opts MailOptions) (time.Time, error) {
	for {
		now := time.Now()
		due, err := s.dueMail(ctx, now, 20)
		if err != nil || len(due) == 0 {
			if err != nil {
				return time.Time{}, err
			}
			return s.nextDue(ctx)
		}
		for _, m := range due {
			if ctx.Err() != nil {
				return time.Time{}, ctx.Err()
			}
			state, lastErr, next := s.deliver(ctx, opts, m)
			err := s.write(ctx, func(tx *sql.Tx) error {
				_, err := tx.Exec(`UPDATE outbox SET state = ?, attempts = attempts + 1, last_error = ?, next_attempt_at = ?, done_at = CASE WHEN ? = 'pending' THEN NULL ELSE ? END WHERE id = ?`,
					state, lastErr, timestamp(next), state, timestamp(time.Now()), m.id)
				return err
			})
			if err != nil {
				return time.Time{}, err
			}
		}
	}
}

// deliver sends one message and says what became of it.
func (s *Store) deliver(ctx context.Context, opts MailOptions, m pendingMail) (state, lastErr string, next time.Time) {
	now := time.Now()
	if m.kind.honoursOptOut() {
		var opted int
		if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM mail_opt_outs WHERE email = ?`, strings.TrimSpace(m.to)).Scan(&opted); err != nil {
			return "pending", "checking opt-outs: " + err.Error(), now.Add(opts.RetryBase)
		}
		if opted > 0 {
			opts.Log.Info("mail suppressed: the recipient unsubscribed from list mail", "outbox", m.id, "kind", m.kind)
			return "suppressed", "", now
		}
	}
	msg := Message{ID: m.id, To: m.to, ReplyTo: m.replyTo, Subject: m.subject, Body: m.body}
	if m.attName.Valid {
		msg.Attachment = &Attachment{Name: m.attName.String, MediaType: m.attType.String, Data: m.attData}
	}
	if opts.SMTP == nil {
		// Bodies never go to the log: a reset link is a secret.
		opts.Log.Info("mail held in the outbox (no SMTP server configured); read it with freightsite mail outbox --show", "outbox", m.id, "kind", m.kind)
		return "held", "", now
	}
	err := opts.SMTP.Send(ctx, msg)
	if err == nil {
		return "sent", "", now
	}
	attempts := m.attempts + 1
	var permanent *smtp.SMTPError
	if (errors.As(err, &permanent) && permanent.Code >= 500) || attempts >= opts.MaxAttempts {
		opts.Log.Error("mail failed for good", "outbox", m.id, "attempts", attempts, "err", err)
		return "failed", err.Error(), now
	}
	delay := min(opts.RetryBase<<(attempts-1), time.Hour)
	opts.Log.Warn("mail delivery failed; will retry", "outbox", m.id, "attempts", attempts, "retry_in", delay, "err", err)
	return "pending", err.Error(), now.Add(delay)
}

// claimLease is how long a claimed message is left to the sender that
// claimed it (longer than one SMTP attempt may take): if that sender's
// instance dies meanwhile, another one retries the message after it.
const claimLease = 5 * time.Minute

// dueMail claims up to limit due messages for this sender: their next
// attempt moves claimLease ahead, so no other instance's sender takes
// them. On PostgreSQL the claim locks the rows it takes and skips those
// another sender is claiming (FOR UPDATE SKIP LOCKED), so senders of
// several instances work side by side and each message goes out once.
func (s *Store) dueMail(ctx context.Context, now time.Time, limit int) ([]pendingMail, error) {
	// A cheap look first: an empty claim would be a commit, and every
	// commit wakes the sender.
	var one int
	err := s.read.QueryRowContext(ctx, `SELECT 1 FROM outbox WHERE state = 'pending' AND next_attempt_at <= ? LIMIT 1`, timestamp(now)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, storageError(err)
	}
	lock := ""
	if s.pg {
		lock = " FOR UPDATE OF o SKIP LOCKED"
	}
	var out []pendingMail
	err = s.write(ctx, func(tx *sql.Tx) error {
		out = nil
		rows, err := tx.Query(`SELECT o.id, o.kind, o.recipient, o.reply_to, o.subject, o.body, o.attempts, a.name, a.media_type, a.data
			FROM outbox o LEFT JOIN attachments a ON a.id = o.attachment_id
			WHERE o.state = 'pending' AND o.next_attempt_at <= ? ORDER BY o.next_attempt_at, o.id LIMIT ?`+lock, timestamp(now), limit)
		if err != nil {
			return err
		}
		for rows.Next() {
			var m pendingMail
			if err := rows.Scan(&m.id, &m.kind, &m.to, &m.replyTo, &m.subject, &m.body, &m.attempts, &m.attName, &m.attType, &m.attData); err != nil {
				rows.Close()
				return err
			}
			out = append(out, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, m := range out {
			if _, err := tx.Exec(`UPDATE outbox SET next_attempt_at = ? WHERE id = ?`, timestamp(now.Add(claimLease)), m.id); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

func (s *Store) nextDue(ctx context.Context) (time.Time, error) {
	var next sql.NullString
	err := s.read.QueryRowContext(ctx, `SELECT MIN(next_attempt_at) FROM outbox WHERE state = 'pending'`).Scan(&next)
	if err != nil || !next.Valid {
		return time.Time{}, storageError(err)
	}
	return parseTimestamp(next.String), nil
}

// outboxBacklog counts the pending messages, and those of them due since
// before dueBefore.
func (s *Store) outboxBacklog(ctx context.Context, dueBefore time.Time) (pending, overdue int, err error) {
	err = s.read.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(CASE WHEN next_attempt_at < ? THEN 1 END) FROM outbox WHERE state = 'pending'`, timestamp(dueBefore)).Scan(&pending, &overdue)
	return pending, overdue, storageError(err)
}
