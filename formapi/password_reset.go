package formapi

import (
	"database/sql"
	"errors"
	"net/http"
	"slices"
	"time"

	"freightsite/data"
	"freightsite/locales"
)

// resetLifetime is how long a password-reset link works (DESIGN.md).
const resetLifetime = 30 * time.Minute

// resetMailsPerLifetime caps the reset mails one account gets within a
// link's lifetime, so nobody can flood a member's inbox through the form;
// further requests still answer "success" and store their row, as for
// unknown accounts.
const resetMailsPerLifetime = 3

// handleForgotPassword mails a reset link (POST /api/forgot_password):
// loginId, recaptchaResponse and origin. Known or not, every valid request
// gets status "success" after the same work (a reset row is stored either
// way, only the mail differs), so the call tells nobody who has an
// account. The link starts with the configured base URL, or with origin
// when that is one of the site's configured origins.
func (a *accounts) handleForgotPassword() http.Handler {
	rules := a.forms["forgotPassword"]
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		f, err := decodeFields(r, rules, "origin")
		if err != nil {
			return err
		}
		if errs := rules.validate(f); len(errs) > 0 {
			writeJSON(w, http.StatusBadRequest, statusAnswer{Status: "failed", ErrorMessageList: errs})
			return nil
		}
		captchaErr, err := checkCaptcha(r, a.captcha, a.clientIP, f["recaptchaResponse"], "forgetPassword.errors.captcha")
		if err != nil {
			return err
		}
		if captchaErr != nil {
			writeJSON(w, http.StatusBadRequest, statusAnswer{Status: "failed", ErrorMessageList: []fieldError{*captchaErr}})
			return nil
		}
		var user sql.NullInt64
		var lang string
		err = a.store.read.QueryRowContext(r.Context(), `SELECT id, preferred_language FROM users WHERE email = ? AND password_hash != ''`, loginID(f["loginId"])).Scan(&user, &lang)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return storageError(err)
		}
		token, now := randomToken(32), a.now()
		link := a.linkBase(f["origin"]) + languagePrefix(lang) + "/reset-password?token=" + token
		sub := submissionOf(r, f, nil)
		var answer kept
		err = a.store.write(r.Context(), func(tx *sql.Tx) error {
			if done, err := sub.claim(tx, now, &answer); done || err != nil {
				return err
			}
			if _, err := tx.Exec(`DELETE FROM password_resets WHERE expires_at <= ?`, timestamp(now)); err != nil {
				return err
			}
			var recent int
			if err := tx.QueryRow(`SELECT COUNT(*) FROM password_resets WHERE user_id = ?`, user).Scan(&recent); err != nil {
				return err
			}
			if _, err := tx.Exec(`INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
				sha256Hex(token), user, timestamp(now), timestamp(now.Add(resetLifetime))); err != nil {
				return err
			}
			if user.Valid && recent < resetMailsPerLifetime {
				if err := queueMail(tx, resetMail(lang, loginID(f["loginId"]), link), now); err != nil {
					return err
				}
			}
			answer = keptJSON(http.StatusOK, statusAnswer{Status: "success"})
			return sub.remember(tx, answer)
		})
		if err != nil {
			return err
		}
		answer.send(w)
		return nil
	})
}

// resetMail is the message with a reset link, in the member's language.
func resetMail(lang, to, link string) outgoing {
	vars := map[string]string{"name": data.Site().Name}
	t := func(key string) string { return locales.T(lang, "resetMail."+key, vars) }
	return outgoing{kind: MailAccount, to: to, subject: t("subject"), body: t("intro") + "\n\n" + t("open") + "\n\n" + link + "\n\n" + t("ignore") + "\n"}
}

// linkBase is where reset links point: the request's origin when the site
// is configured to be served there, the base URL otherwise.
func (a *accounts) linkBase(origin string) string {
	if clean, err := originOf(origin); err == nil && clean == origin && slices.Contains(a.origins, clean) {
		return clean
	}
	return a.baseURL
}

// languagePrefix is the URL prefix of a language's pages ("" for English).
func languagePrefix(lang string) string {
	for _, l := range data.Site().Languages {
		if l.Code == lang {
			return l.Prefix
		}
	}
	return ""
}

var errResetTokenSpent = errors.New("reset token used or expired")

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
		f, err := decodeFields(r, rules, "token")
		if err != nil {
			return err
		}
		expired := statusAnswer{Status: "tokenExpired"}
		var user int64
		err = a.store.read.QueryRowContext(r.Context(), `SELECT user_id FROM password_resets
			WHERE token_hash = ? AND user_id IS NOT NULL AND used_at IS NULL AND expires_at > ?`, sha256Hex(f["token"]), timestamp(a.now())).Scan(&user)
		if errors.Is(err, sql.ErrNoRows) || f["token"] == "" {
			writeJSON(w, http.StatusBadRequest, expired)
			return nil
		}
		if err != nil {
			return storageError(err)
		}
		errs := rules.validate(f)
		if len(errs) == 0 && f["newPassword"] != f["confirmPassword"] {
			errs = append(errs, fieldError{Field: "confirmPassword", Message: "RESET.RESET4"})
		}
		if len(errs) > 0 {
			writeJSON(w, http.StatusBadRequest, statusAnswer{Status: "failed", ErrorMessageList: errs})
			return nil
		}
		hash, err := hashPassword(r.Context(), f["newPassword"])
		if err != nil {
			return err
		}
		at := a.now()
		now := timestamp(at)
		keep := sha256Hex(sessionValue(r))
		var account string
		sub := submissionOf(r, f, nil)
		var answer kept
		err = a.store.write(r.Context(), func(tx *sql.Tx) error {
			if done, err := sub.claim(tx, at, &answer); done || err != nil {
				return err
			}
			// Using the token is the guard: of two requests racing with one
			// link, only the first finds it unused.
			var owner int64
			err := tx.QueryRow(`UPDATE password_resets SET used_at = ?
				WHERE token_hash = ? AND user_id IS NOT NULL AND used_at IS NULL AND expires_at > ? RETURNING user_id`, now, sha256Hex(f["token"]), now).Scan(&owner)
			if errors.Is(err, sql.ErrNoRows) {
				return errResetTokenSpent
			}
			if err != nil {
				return err
			}
			if err := tx.QueryRow(`SELECT email FROM users WHERE id = ?`, owner).Scan(&account); err != nil {
				return err
			}
			for _, q := range []struct {
				sql  string
				args []any
			}{
				{`UPDATE users SET password_hash = ? WHERE id = ?`, []any{hash, owner}},
				{`DELETE FROM credentials WHERE user_id = ? AND token_hash != ?`, []any{owner, keep}},
				{`UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL`, []any{now, owner}},
			} {
				if _, err := tx.Exec(q.sql, q.args...); err != nil {
					return err
				}
			}
			// The owner proved themselves: whatever failed sign-ins locked
			// or stepped up, for this account, is over.
			if err := forgetAccount(tx, account); err != nil {
				return err
			}
			answer = keptJSON(http.StatusOK, statusAnswer{Status: "success"})
			return sub.remember(tx, answer)
		})
		if errors.Is(err, errResetTokenSpent) {
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
