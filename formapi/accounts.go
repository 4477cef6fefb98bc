package formapi

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"freightsite/data"
	"freightsite/internal/plaintext"
)

// Accounts (SPEC §2-§8): registration of a company and its user, the
// e-mail uniqueness check, sign-in with a session or a bearer token,
// forgot and reset password, and the members' landing page.

// AccountOptions configure registration, sign-in and password recovery.
type AccountOptions struct {
	// BaseURL starts the links of password-reset mail (default:
	// data/site.json's baseURL).
	BaseURL string
	// SiteOrigins are other origins the site is served at
	// (scheme://host[:port]); a forgot-password request's origin is used
	// for its link only when it is the base URL's origin or one of these.
	SiteOrigins []string
	// CaptchaMaxNumber is the largest secret number of an ALTCHA
	// challenge (default DefaultCaptchaMaxNumber); tests make it small.
	CaptchaMaxNumber int
	// RecaptchaSecret switches the captcha check to reCAPTCHA, asking
	// RecaptchaVerifyURL (default DefaultRecaptchaVerifyURL).
	RecaptchaSecret    string
	RecaptchaVerifyURL string
	// SignInLockout is the first lockout after repeated failed sign-ins
	// (default DefaultSignInLockout).
	SignInLockout time.Duration
}

// accounts holds what the account handlers share.
type accounts struct {
	store    *Store
	forms    map[string]formRules
	now      func() time.Time
	clientIP func(*http.Request) string
	captcha  CaptchaVerifier
	altcha   *altcha // the challenge issuer; nil when reCAPTCHA checks
	throttle *signInThrottle
	baseURL  string
	origins  []string
	// dummyHash is checked when a username is unknown, so a failed
	// sign-in costs the same whether the account exists or not.
	dummyHash string
}

// newAccounts panics on options Validate refuses: the commands check
// them first, so that is a programming error.
func newAccounts(cfg Config, forms map[string]formRules, clientIP func(*http.Request) string) *accounts {
	opts := cfg.Accounts
	base, origins, err := opts.linkOrigins()
	if err != nil {
		panic("formapi: " + err.Error())
	}
	a := &accounts{
		store: cfg.Store, forms: forms, now: cfg.Now, clientIP: clientIP,
		throttle: newSignInThrottle(cfg.Store, opts.SignInLockout, cfg.Now),
		baseURL:  base, origins: origins,
	}
	if opts.RecaptchaSecret != "" {
		a.captcha = newRecaptcha(opts.RecaptchaSecret, opts.RecaptchaVerifyURL)
	} else {
		a.altcha = newAltcha(cfg.Secret, opts.CaptchaMaxNumber, cfg.Store, cfg.Now)
		a.captcha = a.altcha
	}
	// Made now, not at the first unknown username, which would otherwise
	// take twice as long as any other failure.
	a.dummyHash, _ = hashPassword(context.Background(), randomToken(16))
	return a
}

// Validate checks the base URL, the site origins and the reCAPTCHA verify
// URL.
func (o AccountOptions) Validate() error {
	if _, _, err := o.linkOrigins(); err != nil {
		return err
	}
	if o.RecaptchaVerifyURL != "" {
		if _, err := originOf(o.RecaptchaVerifyURL); err != nil {
			return fmt.Errorf("reCAPTCHA verify URL %q: %w", o.RecaptchaVerifyURL, err)
		}
	}
	return nil
}

// linkOrigins returns the base URL of reset links (no trailing slash) and
// every origin a link may start with instead.
func (o AccountOptions) linkOrigins() (string, []string, error) {
	base := o.BaseURL
	if base == "" {
		base = data.Site().BaseURL
	}
	origin, err := originOf(base)
	if err != nil {
		return "", nil, fmt.Errorf("base URL %q: %w", base, err)
	}
	origins := []string{origin}
	for _, o := range o.SiteOrigins {
		clean, err := originOf(o)
		if err != nil || clean != strings.TrimRight(o, "/") {
			return "", nil, fmt.Errorf("site origin %q: want scheme://host[:port] and nothing more", o)
		}
		origins = append(origins, clean)
	}
	return strings.TrimRight(base, "/"), origins, nil
}

// originOf is scheme://host[:port] of an absolute http(s) URL.
func originOf(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("not an absolute http(s) URL")
	}
	return u.Scheme + "://" + u.Host, nil
}

// statusAnswer is the answer of registration, forgot and reset password:
// SPEC's status and errorMessageList.
type statusAnswer struct {
	Status           string       `json:"status"`
	ErrorMessageList []fieldError `json:"errorMessageList,omitempty"`
}

// requireAjax refuses a call without the Ajax marker SPEC §7 gives it; a
// plain cross-site form cannot set the header.
func requireAjax(r *http.Request) error {
	if r.Header.Get(ajaxHeader) != ajaxMarker {
		return badRequest(r.URL.Path + " is an Ajax call: send the header " + ajaxHeader + ": " + ajaxMarker)
	}
	return nil
}

// loginID is the one canonical form of a login id (an e-mail): trimmed and
// lowercase. Ids are stored in it (registration's pattern lets no hidden
// character in), looked up by it exactly on both databases (no collation
// that ignores characters), kept unique and throttled by it.
func loginID(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// imitatedLoginID is the login id an id names once the characters no
// login id holds (plaintext.Hidden: soft hyphens, zero-width spaces and
// joiners, controls) are dropped: dup7@x.in for "dup7\u00ad@x.in". Such
// an id never signs in, but a guess with it counts against the account it
// imitates.
func imitatedLoginID(id string) string {
	return loginID(strings.Map(func(r rune) rune {
		if plaintext.Hidden(r) {
			return -1
		}
		return r
	}, id))
}

// language is lang when it is one of the site's languages, else the default.
func language(lang string) string {
	langs := data.Site().Languages
	if slices.ContainsFunc(langs, func(l data.Language) bool { return l.Code == lang }) {
		return lang
	}
	return langs[0].Code
}

// handleRegistration creates a company and its user (POST /api/registration):
// status "200" on success; otherwise "400" with the field errors, or "409"
// when the e-mail is registered already.
func (a *accounts) handleRegistration() http.Handler {
	rules := a.forms["registration"]
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		f, err := decodeFields(r, rules, "preferredLanguage")
		if err != nil {
			return err
		}
		errs := rules.validate(f)
		if f["newPassword"] != f["confirmPassword"] && !slices.ContainsFunc(errs, func(e fieldError) bool { return e.Field == "confirmPassword" }) {
			errs = append(errs, fieldError{Field: "confirmPassword", Message: "registration.errors.passwordMismatch"})
		}
		if len(errs) == 0 {
			captchaErr, err := checkCaptcha(r, a.captcha, a.clientIP, f["recaptchaResponse"], "captcha.refused")
			if err != nil {
				return err
			}
			if captchaErr != nil {
				errs = append(errs, *captchaErr)
			}
		}
		if len(errs) > 0 {
			writeJSON(w, http.StatusBadRequest, statusAnswer{Status: "400", ErrorMessageList: errs})
			return nil
		}
		hash, err := hashPassword(r.Context(), f["newPassword"])
		if err != nil {
			return err
		}
		now := a.now()
		at := timestamp(now)
		sub := submissionOf(r, f, nil)
		var answer kept
		err = a.store.write(r.Context(), func(tx *sql.Tx) error {
			if done, err := sub.claim(tx, now, &answer); done || err != nil {
				return err
			}
			var company int64
			err := tx.QueryRow(`INSERT INTO companies (created_at, name, contact_name, contact_email, address1, address2, city, state, postal_code, country, contact_phone, contact_fax)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, at, f["companyName"], f["contactName"], loginID(f["contactEmail"]), f["address1"], f["address2"],
				f["city"], f["state"], f["postalCode"], f["country"], f["contactPhone"], f["contactFax"]).Scan(&company)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(`INSERT INTO users (email, created_at, company_id, first_name, last_name, password_hash, preferred_language) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				loginID(f["email"]), at, company, f["firstName"], f["lastName"], hash, language(f["preferredLanguage"])); err != nil {
				return err
			}
			answer = keptJSON(http.StatusOK, statusAnswer{Status: "200"})
			return sub.remember(tx, answer)
		})
		if isDuplicate(err) {
			writeJSON(w, http.StatusConflict, statusAnswer{Status: "409", ErrorMessageList: []fieldError{{Field: "email", Message: "registration.errors.emailTaken"}}})
			return nil
		}
		if err != nil {
			return err
		}
		answer.send(w)
		return nil
	})
}
