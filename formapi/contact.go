package formapi

import (
	"fmt"
	"net/http"
	"time"

	"freightsite/data"
	"freightsite/internal/mail"
	"freightsite/internal/store"
)

// contactRequest is the body of POST /api/contact_us.
type contactRequest struct {
	Name    string `json:"name"`
	Email   string `json:"email"`
	Phone   string `json:"phone"`
	Subject string `json:"subject"`
	Message string `json:"message"`
}

func (c contactRequest) validate(rules formRules) []fieldError { return rules.check(c) }

// contactAnswer is SPEC's contact response: status "Success" or "Failed"
// and a result the site shows (a locales key), with the field errors.
type contactAnswer struct {
	Status           string       `json:"status"`
	Result           string       `json:"result"`
	ErrorMessageList []fieldError `json:"errorMessageList,omitempty"`
}

// handleContact stores a contact message and queues its notification to
// the provider in the same transaction (POST /api/contact_us), once per
// Idempotency-Key (idempotency.go).
func handleContact(s *store.Store, rules formRules, provider data.Provider, now func() time.Time) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		c, sent, err := decodeJSON[contactRequest](r)
		if err != nil {
			return err
		}
		if errs := c.validate(rules); len(errs) > 0 {
			writeJSON(w, http.StatusBadRequest, contactAnswer{Status: "Failed", Result: "contact.result.invalid", ErrorMessageList: errs})
			return nil
		}
		at := now()
		answer, err := storeOnce(r.Context(), s, submissionOf(r, sent, nil), at, func(tx *store.Tx) (kept, error) {
			if err := tx.AddContactMessage(at, store.ContactMessage{Name: c.Name, Email: c.Email, Phone: c.Phone, Subject: c.Subject, Message: c.Message}); err != nil {
				return kept{}, err
			}
			err := mail.Queue(tx, mail.Outgoing{
				Kind:    mail.Notification,
				To:      provider.Email,
				ReplyTo: c.Email,
				Subject: "Contact form: " + c.Subject,
				Body: fmt.Sprintf("A visitor wrote through the contact form.\n\nName: %s\nE-mail: %s\nPhone: %s\nSubject: %s\n\n%s\n",
					c.Name, c.Email, c.Phone, c.Subject, c.Message),
			}, at)
			return keptJSON(http.StatusOK, contactAnswer{Status: "Success", Result: "contact.result.sent"}), err
		})
		if err != nil {
			return err
		}
		answer.send(w)
		return nil
	})
}
