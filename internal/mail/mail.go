// Package mail is the mail the site sends: the kinds of message and the
// opt-outs each honours, queueing a message in the transaction of what it
// reports (Queue), the sender that delivers the outbox (Run), and the
// SMTP client it delivers with (SMTPMailer).
package mail

import (
	"time"

	"freightsite/internal/store"
)

// Kind says who a message is for, which decides whether an opt-out
// applies to it.
type Kind string

const (
	// List goes to many people (announcements, news digests): an address
	// that unsubscribed does not get it.
	List Kind = "list"
	// Notification tells the provider about a contact message or
	// feedback; an opt-out never silences it.
	Notification Kind = "notification"
	// Account is mail a person asked for (password reset,
	// confirmations); an opt-out never applies to it.
	Account Kind = "account"
)

// HonoursOptOut is the opt-out rule (SPEC §1: the unsubscribe leaves "the
// e-mail list"): only list mail is suppressed.
func (k Kind) HonoursOptOut() bool { return k == List }

// Outgoing is a message to queue.
type Outgoing struct {
	Kind                       Kind
	To, ReplyTo, Subject, Body string
	AttachmentID               int64 // an attachment the store keeps; 0: none
}

// Queue puts a message in the outbox in the write of what it reports, so
// an acknowledged submission always has its mail; Run delivers it.
func Queue(tx *store.Tx, m Outgoing, at time.Time) error {
	return tx.QueueMail(store.Mail{Kind: string(m.Kind), To: m.To, ReplyTo: m.ReplyTo, Subject: m.Subject, Body: m.Body, AttachmentID: m.AttachmentID}, at)
}
