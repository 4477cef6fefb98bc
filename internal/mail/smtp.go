package mail

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/textproto"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one e-mail of the outbox.
type Message struct {
	ID         int64 // outbox id, part of the Message-ID so a retried message keeps its id
	To         string
	ReplyTo    string
	Subject    string
	Body       string
	Attachment *Attachment
}

// Attachment is a file sent with a message.
type Attachment struct {
	Name      string
	MediaType string
	Data      []byte
}

// SMTPMailer delivers messages to one SMTP server.
type SMTPMailer struct {
	addr     string
	security string // "plain", "starttls" or "tls"
	user     string
	password string
	from     string
	timeout  time.Duration
}

// NewSMTPMailer reads an SMTP URL: smtp://[user:password@]host[:25] (no
// TLS, for a relay on the same host or network), smtp+starttls://...:587
// (STARTTLS required) or smtps://...:465 (TLS from the start). from is the
// sender address of every message.
func NewSMTPMailer(rawURL, from string) (*SMTPMailer, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("SMTP URL: %w", err)
	}
	m := &SMTPMailer{from: from, timeout: 30 * time.Second}
	port := ""
	switch u.Scheme {
	case "smtp":
		m.security, port = "plain", "25"
	case "smtp+starttls":
		m.security, port = "starttls", "587"
	case "smtps":
		m.security, port = "tls", "465"
	default:
		return nil, fmt.Errorf("SMTP URL %q: the scheme must be smtp, smtp+starttls or smtps", u.Redacted())
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("SMTP URL %q: no host", u.Redacted())
	}
	if u.Port() != "" {
		port = u.Port()
	}
	m.addr = net.JoinHostPort(u.Hostname(), port)
	if u.User != nil {
		m.user = u.User.Username()
		m.password, _ = u.User.Password()
	}
	if _, err := mail.ParseAddress(from); err != nil {
		return nil, fmt.Errorf("sender address %q: %w", from, err)
	}
	return m, nil
}

// Send delivers one message.
func (m *SMTPMailer) Send(ctx context.Context, msg Message) error {
	dialer := &net.Dialer{Timeout: m.timeout}
	var conn net.Conn
	var err error
	host, _, _ := net.SplitHostPort(m.addr)
	if m.security == "tls" {
		conn, err = (&tls.Dialer{NetDialer: dialer, Config: &tls.Config{ServerName: host}}).DialContext(ctx, "tcp", m.addr)
	} else {
		conn, err = dialer.DialContext(ctx, "tcp", m.addr)
	}
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", m.addr, err)
	}
	_ = conn.SetDeadline(time.Now().Add(m.timeout))
	var c *smtp.Client
	if m.security == "starttls" {
		if c, err = smtp.NewClientStartTLS(conn, &tls.Config{ServerName: host}); err != nil {
			conn.Close()
			return fmt.Errorf("STARTTLS with %s: %w", m.addr, err)
		}
	} else {
		c = smtp.NewClient(conn)
	}
	defer c.Close()
	if m.user != "" {
		if err := c.Auth(sasl.NewPlainClient("", m.user, m.password)); err != nil {
			return fmt.Errorf("signing in to %s: %w", m.addr, err)
		}
	}
	data, err := compose(m.from, msg, time.Now())
	if err != nil {
		return err
	}
	if err := c.SendMail(m.from, []string{msg.To}, bytes.NewReader(data)); err != nil {
		return fmt.Errorf("sending to %s via %s: %w", msg.To, m.addr, err)
	}
	return c.Quit()
}

// headerText keeps a header value on one line and encodes anything but
// printable ASCII, so no field a visitor typed can add a header.
func headerText(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\r' || r == '\n' }), " ")
	return mime.QEncoding.Encode("utf-8", s)
}

// compose writes msg as an RFC 5322 message: UTF-8 text, quoted-printable,
// and a multipart/mixed body when it has an attachment.
func compose(from string, msg Message, now time.Time) ([]byte, error) {
	to, err := mail.ParseAddress(msg.To)
	if err != nil {
		return nil, fmt.Errorf("recipient %q: %w", msg.To, err)
	}
	var b bytes.Buffer
	host, _ := os.Hostname()
	if host == "" {
		host = "freightsite"
	}
	fmt.Fprintf(&b, "From: %s\r\n", from)
	fmt.Fprintf(&b, "To: %s\r\n", to.String())
	if r, err := mail.ParseAddress(msg.ReplyTo); err == nil && msg.ReplyTo != "" {
		fmt.Fprintf(&b, "Reply-To: %s\r\n", r.String())
	}
	fmt.Fprintf(&b, "Subject: %s\r\n", headerText(msg.Subject))
	fmt.Fprintf(&b, "Date: %s\r\n", now.Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Message-ID: <outbox-%d@%s>\r\n", msg.ID, host)
	b.WriteString("MIME-Version: 1.0\r\n")
	text := func(w *bytes.Buffer) {
		qp := quotedprintable.NewWriter(w)
		qp.Write([]byte(strings.ReplaceAll(strings.ReplaceAll(msg.Body, "\r\n", "\n"), "\n", "\r\n")))
		qp.Close()
	}
	if msg.Attachment == nil {
		b.WriteString("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
		text(&b)
		b.WriteString("\r\n")
		return b.Bytes(), nil
	}
	mw := multipart.NewWriter(&b)
	fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=%q\r\n\r\n", mw.Boundary())
	part, _ := mw.CreatePart(textproto.MIMEHeader{
		"Content-Type":              {"text/plain; charset=utf-8"},
		"Content-Transfer-Encoding": {"quoted-printable"},
	})
	var body bytes.Buffer
	text(&body)
	part.Write(body.Bytes())
	part, _ = mw.CreatePart(textproto.MIMEHeader{
		"Content-Type":              {mime.FormatMediaType(msg.Attachment.MediaType, map[string]string{"name": msg.Attachment.Name})},
		"Content-Disposition":       {mime.FormatMediaType("attachment", map[string]string{"filename": msg.Attachment.Name})},
		"Content-Transfer-Encoding": {"base64"},
	})
	enc := base64.StdEncoding.EncodeToString(msg.Attachment.Data)
	for len(enc) > 76 {
		part.Write([]byte(enc[:76] + "\r\n"))
		enc = enc[76:]
	}
	part.Write([]byte(enc + "\r\n"))
	mw.Close()
	return b.Bytes(), nil
}
