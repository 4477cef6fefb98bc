package mail

import "testing"

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
