package mail

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/emersion/go-smtp"

	"freightsite/internal/store"
)

// Options configure the sender.
type Options struct {
	SMTP        *SMTPMailer   // nil: hold each message in the outbox instead of sending it
	Log         *slog.Logger  // where deliveries, held messages and failures are noted
	RetryBase   time.Duration // first retry delay, doubled each attempt (default 30 s, at most 1 h)
	MaxAttempts int           // attempts before a message is failed (default 8)
	Poll        time.Duration // longest sleep between looks at the outbox (default 30 s)
}

// claimLease is how long a claimed message is left to the sender that
// claimed it (longer than one SMTP attempt may take): if that sender's
// instance dies meanwhile, another one retries the message after it.
const claimLease = 5 * time.Minute

// Run delivers the outbox of s until ctx ends. It wakes up after every
// commit and otherwise at the next due retry. Senders of several
// instances on one database share the work, each message going out once.
func Run(ctx context.Context, s *store.Store, opts Options) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
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
		next, err := deliverDue(ctx, s, opts)
		switch {
		case err == nil || ctx.Err() != nil:
		case s.DuringOutage(err): // logged with the outage
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
		case <-s.Written():
		case <-timer.C:
		}
		timer.Stop()
	}
}

// deliverDue tries every due message once and returns when the next
// pending one is due (zero if none is).
func deliverDue(ctx context.Context, s *store.Store, opts Options) (time.Time, error) {
	for {
		due, err := s.ClaimDueMail(ctx, time.Now(), 20, claimLease)
		if err != nil || len(due) == 0 {
			if err != nil {
				return time.Time{}, err
			}
			return s.NextMailDue(ctx)
		}
		for _, m := range due {
			if ctx.Err() != nil {
				return time.Time{}, ctx.Err()
			}
			state, lastErr, next := deliver(ctx, s, opts, m)
			if err := s.RecordAttempt(ctx, m.ID, state, lastErr, next, time.Now()); err != nil {
				return time.Time{}, err
			}
		}
	}
}

// deliver sends one message and says what became of it.
func deliver(ctx context.Context, s *store.Store, opts Options, m store.DueMail) (state, lastErr string, next time.Time) {
	now := time.Now()
	kind := Kind(m.Kind)
	if kind.HonoursOptOut() {
		opted, err := s.OptedOut(ctx, m.To)
		if err != nil {
			return "pending", "checking opt-outs: " + err.Error(), now.Add(opts.RetryBase)
		}
		if opted {
			opts.Log.Info("mail suppressed: the recipient unsubscribed from list mail", "outbox", m.ID, "kind", kind)
			return "suppressed", "", now
		}
	}
	msg := Message{ID: m.ID, To: m.To, ReplyTo: m.ReplyTo, Subject: m.Subject, Body: m.Body}
	if a := m.Attachment; a != nil {
		msg.Attachment = &Attachment{Name: a.Name, MediaType: a.MediaType, Data: a.Data}
	}
	if opts.SMTP == nil {
		// Bodies never go to the log: a reset link is a secret.
		opts.Log.Info("mail held in the outbox (no SMTP server configured); read it with freightsite mail outbox --show", "outbox", m.ID, "kind", kind)
		return "held", "", now
	}
	err := opts.SMTP.Send(ctx, msg)
	if err == nil {
		return "sent", "", now
	}
	attempts := m.Attempts + 1
	var permanent *smtp.SMTPError
	if (errors.As(err, &permanent) && permanent.Code >= 500) || attempts >= opts.MaxAttempts {
		opts.Log.Error("mail failed for good", "outbox", m.ID, "attempts", attempts, "err", err)
		return "failed", err.Error(), now
	}
	delay := min(opts.RetryBase<<(attempts-1), time.Hour)
	opts.Log.Warn("mail delivery failed; will retry", "outbox", m.ID, "attempts", attempts, "retry_in", delay, "err", err)
	return "pending", err.Error(), now.Add(delay)
}
