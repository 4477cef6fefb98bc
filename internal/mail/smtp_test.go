package mail

import (
	"bytes"
	"testing"
	"time"
)

func TestSMTPURLs(t *testing.T) {
	for _, ok := range []string{"smtp://localhost", "smtp+starttls://u:p@mail.example.in:587", "smtps://mail.example.in"} {
		if _, err := NewSMTPMailer(ok, "a@b.in"); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"http://mail.example.in", "smtp://", "mail.example.in:25"} {
		if _, err := NewSMTPMailer(bad, "a@b.in"); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestSubjectStaysOnOneHeaderLine: a subject a visitor typed with a line
// break and a header of their own ("Subject\r\nBcc: ...", which the
// contact form stores as typed) stays one Subject header.
func TestSubjectStaysOnOneHeaderLine(t *testing.T) {
	msg, err := compose("site@example.com", Message{ID: 1, To: "p@example.com", Subject: "Subject\r\nBcc: victim@example.com", Body: "b"}, time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(msg, []byte("\r\nBcc:")) {
		t.Errorf("subject injected a header:\n%s", msg)
	}
}
