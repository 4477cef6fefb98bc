package formapi

import (
	"database/sql"
	"net/http"
	"strings"
	"time"
)

// handleUnsubscribe records an address that wants no more mail
// (POST /api/unsubscribe, SPEC §7): the body names it emailId (or email,
// the other reading of SPEC). The answer is the text "success" or the
// locales key of what is wrong. Every valid address gets "success",
// listed or not, so the call tells nobody who is on the list; the opt-out
// is kept either way, and the outbox never mails that address again.
func handleUnsubscribe(store *Store, rules formRules, now func() time.Time) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		f, err := decodeFields(r, rules, "email")
		if err != nil {
			return err
		}
		if f["emailId"] == "" {
			f["emailId"] = f["email"]
		}
		if errs := rules.validate(f); len(errs) > 0 {
			writeText(w, http.StatusBadRequest, errs[0].Message)
			return nil
		}
		email := strings.ToLower(strings.TrimSpace(f["emailId"]))
		err = store.write(r.Context(), func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO mail_opt_outs (email, created_at) VALUES (?, ?) ON CONFLICT (email) DO NOTHING`, email, timestamp(now()))
			return err
		})
		if err != nil {
			return err
		}
		writeText(w, http.StatusOK, "success")
		return nil
	})
}
