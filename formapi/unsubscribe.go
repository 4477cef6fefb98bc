package formapi

import (
	"net/http"
	"strings"
	"time"

	"freightsite/internal/store"
)

// unsubscribeRequest is the body of POST /api/unsubscribe: the address
// as emailId (or email, the other reading of SPEC), and the reason the
// visitor wrote in the FAQ's unsubscribe box, if any.
type unsubscribeRequest struct {
	EmailID string `json:"emailId"`
	Reason  string `json:"reason"`
	Email   string `json:"email"`
}

// validate checks the address, whichever name it came under.
func (u *unsubscribeRequest) validate(rules formRules) []fieldError {
	if u.EmailID == "" {
		u.EmailID = u.Email
	}
	return rules.check(*u)
}

// handleUnsubscribe records an address that leaves the e-mail list
// (POST /api/unsubscribe, SPEC §7) with the reason given (docs/api.md,
// Unsubscribe), kept with the opt-out; a later request adds a reason to an
// opt-out that has none, and never replaces one. The answer is the text
// "success" or the locales key of what is wrong. Every valid address gets
// "success", listed or not, so the call tells nobody who is on the list;
// the opt-out is kept either way. It applies to list mail only
// (mail.Kind): a member's password reset or the provider's notifications
// are still sent.
func handleUnsubscribe(s *store.Store, rules formRules, now func() time.Time) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		u, sent, err := decodeJSON[unsubscribeRequest](r)
		if err != nil {
			return err
		}
		if errs := u.validate(rules); len(errs) > 0 {
			writeText(w, http.StatusBadRequest, errs[0].Message)
			return nil
		}
		email := strings.ToLower(strings.TrimSpace(u.EmailID))
		if sent["emailId"] == "" {
			sent["emailId"] = sent["email"]
		}
		at := now()
		answer, err := storeOnce(r.Context(), s, submissionOf(r, sent, nil), at, func(tx *store.Tx) (kept, error) {
			return keptText(http.StatusOK, "success"), tx.AddOptOut(email, strings.TrimSpace(u.Reason), at)
		})
		if err != nil {
			return err
		}
		answer.send(w)
		return nil
	})
}
