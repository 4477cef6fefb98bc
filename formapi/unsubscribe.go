package formapi

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"time"
)

// handleUnsubscribe records an address that leaves the e-mail list
// (POST /api/unsubscribe, SPEC §7): the body names it emailId (or email,
// the other reading of SPEC), and may add reason, the message the visitor
// wrote in the FAQ's unsubscribe box (docs/api.md, Unsubscribe), kept with the opt-out;
// a later request adds a reason to an opt-out that has none, and never
// replaces one. The answer is the text "success" or the locales key of
// what is wrong. Every valid address gets "success", listed or not, so
// the call tells nobody who is on the list; the opt-out is kept either way. It applies to list mail only (MailKind): a member's
// password reset or the provider's notifications are still sent.
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
		sub := submissionOf(r, f, nil)
		at := now()
		var answer kept
		err = store.write(r.Context(), func(tx *sql.Tx) error {
			if done, err := sub.claim(tx, at, &answer); done || err != nil {
				return err
			}
			if _, err := tx.Exec(`INSERT INTO mail_opt_outs (email, created_at, reason) VALUES (?, ?, ?)
				ON CONFLICT (email) DO UPDATE SET reason = excluded.reason WHERE mail_opt_outs.reason = ''`, email, timestamp(at), strings.TrimSpace(f["reason"])); err != nil {
				return err
			}
			answer = keptText(http.StatusOK, "success")
			return sub.remember(tx, answer)
		})
		if err != nil {
			return err
		}
		answer.send(w)
		return nil
	})
}

// OptOut is an address that left the e-mail list, when, and the reason
// the visitor gave ("" for none).
type OptOut struct {
	Email   string
	Created time.Time
	Reason  string
}

// OptOuts lists every opt-out, oldest first, so the network's list tool
// can leave those addresses out.
func (s *Store) OptOuts(ctx context.Context) ([]OptOut, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT email, created_at, reason FROM mail_opt_outs ORDER BY created_at, email`)
	if err != nil {
		return nil, storageError(err)
	}
	defer rows.Close()
	var out []OptOut
	for rows.Next() {
		var o OptOut
		var created string
		if err := rows.Scan(&o.Email, &created, &o.Reason); err != nil {
			return nil, err
		}
		o.Created = parseTimestamp(created)
		out = append(out, o)
	}
	return out, rows.Err()
}

// RemoveOptOut lifts the opt-out of an address (any case) and reports
// whether there was one.
func (s *Store) RemoveOptOut(ctx context.Context, email string) (bool, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.Exec(`DELETE FROM mail_opt_outs WHERE email = ?`, strings.TrimSpace(email))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}
