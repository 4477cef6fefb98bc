package formapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"freightsite/internal/mail"
	"freightsite/internal/store"
	"freightsite/internal/testkit"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	netmail "net/mail"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// smtpServer is a real SMTP server on loopback (go-smtp) that keeps what
// it receives and can refuse deliveries, as a busy or broken relay does.
type smtpServer struct {
	addr string
	mu   sync.Mutex
	got  []receivedMail
	// refuse answers this error to the next deliveries, one per entry.
	refuse []*smtp.SMTPError
}

type receivedMail struct {
	from string
	to   []string
	data []byte
}

func startSMTP(t *testing.T) *smtpServer { return startSMTPOn(t, "127.0.0.1:0") }

// startSMTPOn starts the server on a given address (where a sender
// already expects it).
func startSMTPOn(t *testing.T, addr string) *smtpServer {
	t.Helper()
	s := &smtpServer{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &smtpSession{server: s}, nil }))
	srv.Domain = "localhost"
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *smtpServer) received() []receivedMail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]receivedMail(nil), s.got...)
}

type smtpSession struct {
	server *smtpServer
	from   string
	to     []string
}

func (s *smtpSession) Reset()        { s.from, s.to = "", nil }
func (s *smtpSession) Logout() error { return nil }
func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}
func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}
func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	srv := s.server
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.refuse) > 0 {
		e := srv.refuse[0]
		srv.refuse = srv.refuse[1:]
		return e
	}
	srv.got = append(srv.got, receivedMail{s.from, s.to, b})
	return nil
}

// runMail runs the sender against the SMTP server until the test ends.
func (a *testAPI) runMail(s *smtpServer) {
	a.t.Helper()
	m, err := mail.NewSMTPMailer("smtp://"+s.addr, "site@bharatfreight.example")
	if err != nil {
		a.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		mail.Run(ctx, a.store, mail.Options{SMTP: m, RetryBase: 50 * time.Millisecond, MaxAttempts: 3, Poll: 20 * time.Millisecond})
		close(done)
	}()
	a.t.Cleanup(func() {
		cancel()
		<-done
	})
}

// waitState waits until every outbox row is in a final state.
func (a *testAPI) waitOutboxDone() {
	a.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if a.count(`SELECT COUNT(*) FROM outbox WHERE state = 'pending'`) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	a.t.Fatal("outbox still pending after 10 s")
}

func TestSMTPDeliversContactNotification(t *testing.T) {
	smtpd := startSMTP(t)
	a := newTestAPI(t)
	a.runMail(smtpd)
	msg := validContact()
	msg["subject"] = "Loads from Nashik – ताज़ा"
	expectStatus(t, a.postJSON("/api/contact_us", msg), http.StatusOK)
	a.waitOutboxDone()
	got := smtpd.received()
	if len(got) != 1 || got[0].from != "site@bharatfreight.example" || len(got[0].to) != 1 || got[0].to[0] != "provider@example.com" {
		t.Fatalf("received %+v", got)
	}
	m, err := netmail.ReadMessage(bytes.NewReader(got[0].data))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if subject != "Contact form: Loads from Nashik – ताज़ा" || m.Header.Get("Reply-To") != "<ravi@example.in>" || !strings.HasPrefix(m.Header.Get("Message-Id"), "<outbox-1@") {
		t.Errorf("headers: subject %q, reply-to %q, id %q", subject, m.Header.Get("Reply-To"), m.Header.Get("Message-Id"))
	}
	body, _ := io.ReadAll(m.Body)
	if !strings.Contains(string(body), "Pune to Nagpur") {
		t.Errorf("body %q", body)
	}
	if n := a.count(`SELECT COUNT(*) FROM outbox WHERE state = 'sent' AND attempts = 1 AND done_at IS NOT NULL`); n != 1 {
		t.Errorf("outbox not marked sent")
	}
}

func TestSMTPRetriesAfterAFailure(t *testing.T) {
	smtpd := startSMTP(t)
	smtpd.refuse = []*smtp.SMTPError{{Code: 451, Message: "try again later"}}
	a := newTestAPI(t)
	expectStatus(t, a.postJSON("/api/contact_us", validContact()), http.StatusOK)
	a.runMail(smtpd)
	a.waitOutboxDone()
	if got := smtpd.received(); len(got) != 1 {
		t.Fatalf("%d messages received after one refusal, want 1", len(got))
	}
	var attempts int
	var lastErr string
	a.store.TestQueryRow(`SELECT attempts, last_error FROM outbox`).Scan(&attempts, &lastErr)
	if attempts != 2 || lastErr != "" {
		t.Errorf("attempts %d, last error %q: want delivered on the second attempt", attempts, lastErr)
	}
}

func TestSMTPGivesUpOnPermanentFailure(t *testing.T) {
	smtpd := startSMTP(t)
	smtpd.refuse = []*smtp.SMTPError{{Code: 550, Message: "no such mailbox"}}
	a := newTestAPI(t)
	expectStatus(t, a.postJSON("/api/contact_us", validContact()), http.StatusOK)
	a.runMail(smtpd)
	a.waitOutboxDone()
	var state, lastErr string
	a.store.TestQueryRow(`SELECT state, last_error FROM outbox`).Scan(&state, &lastErr)
	if state != "failed" || !strings.Contains(lastErr, "no such mailbox") {
		t.Errorf("state %q, error %q", state, lastErr)
	}
}

// TestOptOutsApplyToListMailOnly: an opt-out (SPEC §1: leaving "the
// e-mail list") suppresses list mail to that address, in any case, and
// nothing else: the provider's notifications still arrive although the
// provider's address unsubscribed, and so does the reset mail of a member
// who unsubscribed, who was told "success" like anyone.
func TestOptOutsApplyToListMailOnly(t *testing.T) {
	smtpd := startSMTP(t)
	a := newAccountsAPI(t, unlimited())
	a.register("member@carriers.example", "Cargo#777")
	for _, address := range []string{"Gone@Example.in", "provider@example.com", "MEMBER@carriers.example", "never-mailed@example.in"} {
		resp := a.postJSON("/api/unsubscribe", map[string]string{"emailId": address})
		expectStatus(t, resp, http.StatusOK)
		if got := bodyText(resp); got != "success" {
			t.Fatalf("unsubscribing %s: %q, want success", address, got)
		}
	}
	expectStatus(t, a.postJSON("/api/contact_us", validContact()), http.StatusOK)
	expectStatus(t, a.postFeedback(validFeedback(), nil), http.StatusOK)
	if resp, got := a.forgot("member@carriers.example", ""); resp.StatusCode != http.StatusOK || got.Status != "success" {
		t.Fatalf("forgot password: %d %+v", resp.StatusCode, got)
	}
	err := a.store.Write(context.Background(), func(tx *store.Tx) error {
		for _, to := range []string{"gone@example.in", "GONE@example.in", "stays@example.in", "member@carriers.example"} {
			if err := mail.Queue(tx, mail.Outgoing{Kind: mail.List, To: to, Subject: "News digest", Body: "b"}, time.Now()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	a.runMail(smtpd)
	a.waitOutboxDone()
	want := map[string]string{ // kind and recipient: state
		"notification provider@example.com": "sent", // contact
		"account member@carriers.example":   "sent",
		"list gone@example.in":              "suppressed",
		"list GONE@example.in":              "suppressed",
		"list stays@example.in":             "sent",
		"list member@carriers.example":      "suppressed",
	}
	got := map[string][]string{}
	for _, m := range outboxStates(t, a) {
		key := string(m.Kind) + " " + m.To
		got[key] = append(got[key], m.State)
	}
	for key, state := range want {
		if len(got[key]) == 0 || got[key][0] != state {
			t.Errorf("%s: %v, want %s", key, got[key], state)
		}
	}
	if states := got["notification provider@example.com"]; len(states) != 2 || states[1] != "sent" {
		t.Errorf("the provider's two notifications (contact, feedback): %v, want both sent", states)
	}
	var delivered []string
	for _, m := range smtpd.received() {
		delivered = append(delivered, m.to[0])
	}
	slices.Sort(delivered)
	if want := []string{"member@carriers.example", "provider@example.com", "provider@example.com", "stays@example.in"}; !slices.Equal(delivered, want) {
		t.Errorf("delivered to %v, want %v", delivered, want)
	}
}

// TestOptOutsListAndRemove: the store lists opt-outs (what `freightsite
// mail optouts` prints) and lifts one in any case, after which list mail
// reaches the address again.
func TestOptOutsListAndRemove(t *testing.T) {
	// The clock moves between the two, so "oldest first" has one answer
	// (two opt-outs of one millisecond sort by address).
	clock := testkit.NewClock()
	a := newTestAPI(t, unlimited(), withClock(clock))
	for _, address := range []string{"b@example.in", "A@Example.in"} {
		expectStatus(t, a.postJSON("/api/unsubscribe", map[string]string{"emailId": address}), http.StatusOK)
		clock.Advance(time.Second)
	}
	list, err := a.store.OptOuts(context.Background())
	if err != nil || len(list) != 2 || list[0].Email != "b@example.in" || list[1].Email != "a@example.in" || list[0].Created.IsZero() {
		t.Fatalf("opt-outs %+v, %v: want both, lowercase, oldest first, with their time", list, err)
	}
	if removed, err := a.store.RemoveOptOut(context.Background(), " B@EXAMPLE.in "); err != nil || !removed {
		t.Fatalf("removing b@: %v %v", removed, err)
	}
	if removed, _ := a.store.RemoveOptOut(context.Background(), "b@example.in"); removed {
		t.Error("removed an opt-out twice")
	}
	if list, _ := a.store.OptOuts(context.Background()); len(list) != 1 || list[0].Email != "a@example.in" {
		t.Errorf("after removing b@: %+v", list)
	}
	smtpd := startSMTP(t)
	a.exec(`INSERT INTO outbox (created_at, kind, recipient, subject, body, next_attempt_at) VALUES ('2026-01-01T00:00:00.000Z', 'list', 'b@example.in', 'digest', 'b', '2026-01-01T00:00:00.000Z')`)
	a.runMail(smtpd)
	a.waitOutboxDone()
	if got := smtpd.received(); len(got) != 1 || got[0].to[0] != "b@example.in" {
		t.Errorf("list mail after the opt-out was lifted: %+v", got)
	}
}

func TestSMTPSendsFeedbackAttachment(t *testing.T) {
	smtpd := startSMTP(t)
	a := newTestAPI(t)
	a.runMail(smtpd)
	expectStatus(t, a.postFeedback(validFeedback(), &attachmentPart{"screen.png", pngBytes}), http.StatusOK)
	a.waitOutboxDone()
	got := smtpd.received()
	if len(got) != 1 {
		t.Fatalf("%d messages", len(got))
	}
	m, _ := netmail.ReadMessage(bytes.NewReader(got[0].data))
	_, params, _ := mime.ParseMediaType(m.Header.Get("Content-Type"))
	mr := multipart.NewReader(m.Body, params["boundary"])
	var files int
	for {
		part, err := mr.NextPart()
		if err != nil {
			break
		}
		if part.FileName() == "screen.png" {
			raw, _ := io.ReadAll(part)
			data, _ := base64.StdEncoding.DecodeString(strings.ReplaceAll(string(raw), "\r\n", ""))
			if !bytes.Equal(data, pngBytes) {
				t.Error("the attachment arrived changed")
			}
			files++
		}
	}
	if files != 1 {
		t.Errorf("%d attachments in the message", files)
	}
}

// TestMailWithoutSMTPIsHeldNotLogged: with no SMTP server a message is
// held in the outbox, whole, and the log says only that it is held (and
// its id): no body, no reset link, no subject or address.
func TestMailWithoutSMTPIsHeldNotLogged(t *testing.T) {
	a := newAccountsAPI(t, unlimited())
	a.register("member@carriers.example", "Cargo#777")
	expectStatus(t, a.postJSON("/api/contact_us", validContact()), http.StatusOK)
	a.forgot("member@carriers.example", "")
	var logs lockedLog
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		mail.Run(ctx, a.store, mail.Options{Log: slog.New(slog.NewTextHandler(&logs, nil)), Poll: 20 * time.Millisecond})
		close(done)
	}()
	a.waitOutboxDone()
	cancel()
	<-done
	list, err := a.store.Outbox(context.Background(), "", 10)
	if err != nil || len(list) != 2 || list[0].State != "held" || list[1].State != "held" {
		t.Fatalf("outbox %+v, %v: want both held", list, err)
	}
	_, token := a.lastResetLink("member@carriers.example")
	reset, err := a.store.OutboxMessageByID(context.Background(), list[0].ID)
	if err != nil || !strings.Contains(reset.Body, token) || reset.Kind != string(mail.Account) {
		t.Errorf("the held reset mail %+v (%v) lacks its link", reset, err)
	}
	text := logs.String()
	for _, secret := range []string{token, "reset-password", "Pune to Nagpur", "member@carriers.example", "provider@example.com", "Return loads"} {
		if strings.Contains(text, secret) {
			t.Errorf("the log holds %q:\n%s", secret, text)
		}
	}
	for _, id := range []int64{list[0].ID, list[1].ID} {
		if !strings.Contains(text, "outbox="+strconv.FormatInt(id, 10)) {
			t.Errorf("the log does not say message %d is held:\n%s", id, text)
		}
	}
	if _, err := a.store.OutboxMessageByID(context.Background(), 999); !errors.Is(err, store.ErrNoSuchMessage) {
		t.Errorf("an unknown id: %v", err)
	}
}

// lockedLog is a log destination tests read while the sender writes.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestResetMailsSurviveAnSMTPOutage: reset mails queued while the SMTP
// server is down stay pending in the outbox (retried with backoff, none
// given up), and once it is back each is delivered exactly once.
func TestResetMailsSurviveAnSMTPOutage(t *testing.T) {
	a := newAccountsAPI(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there: the SMTP server is down
	m, err := mail.NewSMTPMailer("smtp://"+addr, "site@bharatfreight.example")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		mail.Run(ctx, a.store, mail.Options{SMTP: m, RetryBase: 20 * time.Millisecond, MaxAttempts: 12, Poll: 20 * time.Millisecond})
		close(done)
	}()
	t.Cleanup(func() { cancel(); <-done })

	members := []string{"asha@carriers.example", "ravi@carriers.example", "meera@shippers.example"}
	for _, member := range members {
		a.register(member, "Cargo#777")
		for range 2 {
			if resp, got := a.forgot(member, ""); resp.StatusCode != http.StatusOK || got.Status != "success" {
				t.Fatalf("forgot %s: %d %+v", member, resp.StatusCode, got)
			}
		}
	}
	queued := a.count(`SELECT COUNT(*) FROM outbox`)
	if queued != 2*len(members) {
		t.Fatalf("%d mails queued, want %d reset mails", queued, 2*len(members))
	}
	deadline := time.Now().Add(10 * time.Second)
	for a.count(`SELECT COUNT(*) FROM outbox WHERE state = 'pending' AND attempts >= 2 AND last_error LIKE '%refused%'`) < queued {
		if time.Now().After(deadline) {
			t.Fatalf("the mails were not retried against the dead server: %+v", outboxStates(t, a))
		}
		time.Sleep(10 * time.Millisecond)
	}

	smtpd := startSMTPOn(t, addr)
	a.waitOutboxDone()
	if n := a.count(`SELECT COUNT(*) FROM outbox WHERE state = 'sent'`); n != queued {
		t.Fatalf("%d of %d mails sent after the outage: %+v", n, queued, outboxStates(t, a))
	}
	got := smtpd.received()
	if len(got) != queued {
		t.Fatalf("%d messages received, want %d (each once)", len(got), queued)
	}
	tokens := map[string]string{}
	for _, mail := range got {
		link := resetLink.FindStringSubmatch(mailText(t, mail.data))
		if link == nil {
			t.Fatalf("a delivered mail has no reset link:\n%s", mail.data)
		}
		if other, seen := tokens[link[2]]; seen {
			t.Errorf("reset link delivered twice (to %s and %v)", other, mail.to)
		}
		tokens[link[2]] = mail.to[0]
	}
	for _, member := range members {
		_, token := a.lastResetLink(member)
		if tokens[token] != member {
			t.Errorf("%s's newest reset link was delivered to %q", member, tokens[token])
		}
	}
}

// mailText is the decoded text body of a delivered message.
func mailText(t *testing.T, data []byte) string {
	t.Helper()
	m, err := netmail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	body := io.Reader(m.Body)
	if strings.EqualFold(m.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	text, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

func outboxStates(t *testing.T, a *testAPI) []store.OutboxEntry {
	list, err := a.store.Outbox(context.Background(), "", 20)
	if err != nil {
		t.Fatal(err)
	}
	return list
}
