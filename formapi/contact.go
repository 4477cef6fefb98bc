package formapi

import (
	"database/sql"
	"fmt"
	"net/http"
	"time"

	"freightsite/data"
)

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
func handleContact(store *Store, rules formRules, provider data.Provider, now func() time.Time) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		f, err := decodeFields(r, rules)
		if err != nil {
			return err
		}
		if errs := rules.validate(f); len(errs) > 0 {
			writeJSON(w, http.StatusBadRequest, contactAnswer{Status: "Failed", Result: "contact.result.invalid", ErrorMessageList: errs})
			return nil
		}
		sub := submissionOf(r, f, nil)
		at := now()
		var answer kept
		err = store.write(r.Context(), func(tx *sql.Tx) error {
			if done, err := sub.claim(tx, at, &answer); done || err != nil {
				return err // done: stored before, answered as then
			}
			if _, err := tx.Exec(`INSERT INTO contact_messages (created_at, name, email, phone, subject, message) VALUES (?, ?, ?, ?, ?, ?)`,
				timestamp(at), f["name"], f["email"], f["phone"], f["subject"], f["message"]); err != nil {
				return err
			}
			if err := queueMail(tx, outgoing{
				kind:    MailNotification,
				to:      provider.Email,
				replyTo: f["email"],
				subject: "Contact form: " + f["subject"],
				body: fmt.Sprintf("A visitor wrote through the contact form.\n\nName: %s\nE-mail: %s\nPhone: %s\nSubject: %s\n\n%s\n",
					f["name"], f["email"], f["phone"], f["subject"], f["message"]),
			}, at); err != nil {
				return err
			}
			answer = keptJSON(http.StatusOK, contactAnswer{Status: "Success", Result: "contact.result.sent"})
			return sub.remember(tx, answer)
		})
		if err != nil {
			return err
		}
		answer.send(w)
		return nil
	})
}
