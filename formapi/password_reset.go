package formapi

import (
	"errors"
	"net/http"
	"slices"
	"time"

	"freightsite/internal/mail"
	"freightsite/internal/store"
	"freightsite/locales"
)

// resetLifetime is how long a password-reset link works (DESIGN.md).
const resetLifetime = 30 * time.Minute

// resetMailsPerLifetime caps the reset mails one account gets within a
// link's lifetime, so nobody can flood a member's inbox through the form;
// further requests still answer "success" and store their row, as for
// unknown accounts. The cap holds across instances: the store counts an
// account's links with its row locked (store.Tx.AddPasswordReset).
const resetMailsPerLifetime = 3

// forgotRequest is the body of POST /api/forgot_password.
type forgotRequest struct {
	LoginID           string `json:"loginId"`
	RecaptchaResponse string `json:"recaptchaResponse"`
	Origin            string `json:"origin"`
}

func (f forgotRequest) validate(rules formRules) []fieldError { return rules.check(f) }

// handleForgotPassword mails a reset link (POST /api/forgot_password):
// loginId, recaptchaResponse and origin. Known or not, every valid request
// gets status "success" after the same work (a reset row is stored either
// way, only the mail differs), so the call tells nobody who has an
// account. The link starts with the configured base URL, or with origin
// when that is one of the site's configured origins.
func (a *accounts) handleForgotPassword() http.Handler {
	rules := a.forms["forgotPassword"]
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		f, sent, err := decodeJSON[forgotRequest](r)
		if err != nil {
			return err
		}
		if errs := f.validate(rules); len(errs) > 0 {
			writeJSON(w, http.StatusBadRequest, statusAnswer{Status: "failed", ErrorMessageList: errs})
			return nil
		}
		captchaErr, err := checkCaptcha(r, a.captcha, a.clientIP, f.RecaptchaResponse, "forgetPassword.errors.captcha")
		if err != nil {
			return err
		}
		if captchaErr != nil {
			writeJSON(w, http.StatusBadRequest, statusAnswer{Status: "failed", ErrorMessageList: []fieldError{*captchaErr}})
			return nil
		}
		account, known, err := a.store.ResetRecipientByID(r.Context(), loginID(f.LoginID))
		if err != nil {
			return err
		}
		token, now := randomToken(32), a.now()
		link := a.linkBase(f.Origin) + a.site.prefix(account.Language) + "/reset-password?token=" + token
		answer, err := storeOnce(r.Context(), a.store, submissionOf(r, sent, nil), now, func(tx *store.Tx) (kept, error) {
			earlier, err := tx.AddPasswordReset(token, account.UserID, now, now.Add(resetLifetime))
			if err != nil {
				return kept{}, err
			}
			if known && earlier < resetMailsPerLifetime {
				if err := mail.Queue(tx, a.resetMail(account.Language, loginID(f.LoginID), link), now); err != nil {
					return kept{}, err
				}
			}
			return keptJSON(http.StatusOK, statusAnswer{Status: "success"}), nil
		})
		if err != nil {
			return err
		}
		answer.send(w)
		return nil
	})
}

// resetMail is the message with a reset link, in the member's language.
func (a *accounts) resetMail(lang, to, link string) mail.Outgoing {
	vars := map[string]string{"name": a.site.name}
	t := func(key string) string { return locales.T(lang, "resetMail."+key, vars) }
	return mail.Outgoing{Kind: mail.Account, To: to, Subject: t("subject"), Body: t("intro") + "\n\n" + t("open") + "\n\n" + link + "\n\n" + t("ignore") + "\n"}
}

// linkBase is where reset links point: the request's origin when the site
// is configured to be served there, the base URL otherwise.
func (a *accounts) linkBase(origin string) string {
	if clean, err := originOf(origin); err == nil && clean == origin && slices.Contains(a.origins, clean) {
		return clean
	}
	return a.baseURL
}

// resetRequest is the body of POST /api/reset_password.
type resetRequest struct {
	NewPassword     string `json:"newPassword"`
	ConfirmPassword string `json:"confirmPassword"`
	Token           string `json:"token"`
}

// validate checks the form's rules and that both passwords are the same.
func (p resetRequest) validate(rules formRules) []fieldError {
	errs := rules.check(p)
	if len(errs) == 0 && p.NewPassword != p.ConfirmPassword {
		errs = append(errs, fieldError{Field: "confirmPassword", Message: "RESET.RESET4"})
	}
	return errs
}

// handleResetPassword sets a new password with the token of a reset link
// (POST /api/reset_password): token, newPassword, confirmPassword. Status
// "success"; "tokenExpired" for a token that is unknown, used or older
// than 30 minutes; "failed" with the field errors otherwise. A reset uses
// the token up, ends the account's sessions and bearer tokens (all but
// the session making the call, if it is the same member's) and clears the
// account's failed sign-ins, lockouts and captcha step-up.
func (a *accounts) handleResetPassword() http.Handler {
	rules := a.forms["resetPassword"]
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		p, sent, err := decodeJSON[resetRequest](r)
		if err != nil {
			return err
		}
		expired := statusAnswer{Status: "tokenExpired"}
		_, ok, err := a.store.ResetOwner(r.Context(), p.Token, a.now())
		if (err == nil && !ok) || p.Token == "" {
			writeJSON(w, http.StatusBadRequest, expired)
			return nil
		}
		if err != nil {
			return err
		}
		if errs := p.validate(rules); len(errs) > 0 {
			writeJSON(w, http.StatusBadRequest, statusAnswer{Status: "failed", ErrorMessageList: errs})
			return nil
		}
		hash, err := hashPassword(r.Context(), p.NewPassword)
		if err != nil {
			return err
		}
		at := a.now()
		answer, err := storeOnce(r.Context(), a.store, submissionOf(r, sent, nil), at, func(tx *store.Tx) (kept, error) {
			account, err := tx.ResetPassword(p.Token, hash, sessionValue(r), at)
			if err != nil {
				return kept{}, err
			}
			// The owner proved themselves: whatever failed sign-ins locked
			// or stepped up, for this account, is over.
			if err := forgetAccount(tx, account); err != nil {
				return kept{}, err
			}
			return keptJSON(http.StatusOK, statusAnswer{Status: "success"}), nil
		})
		if errors.Is(err, store.ErrSpent) {
			writeJSON(w, http.StatusBadRequest, expired)
			return nil
		}
		if err != nil {
			return err
		}
		answer.send(w)
		return nil
	})
}
