package formapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"freightsite/internal/captcha"
	"freightsite/internal/plaintext"
	"freightsite/internal/store"
)

// Accounts (SPEC §2-§8): registration of a company and its user, the
// e-mail uniqueness check, sign-in with a session or a bearer token,
// forgot and reset password, and the members' landing page.

// AccountOptions configure registration, sign-in and password recovery.
type AccountOptions struct {
	// BaseURL starts the links of password-reset mail (internal/server
	// gives data/site.json's baseURL unless the operator sets one).
	BaseURL string
	// SiteOrigins are other origins the site is served at
	// (scheme://host[:port]); a forgot-password request's origin is used
	// for its link only when it is the base URL's origin or one of these.
	SiteOrigins []string
	// CaptchaMaxNumber is the largest secret number of an ALTCHA
	// challenge (default captcha.DefaultMaxNumber); tests make it small.
	CaptchaMaxNumber int
	// RecaptchaSecret switches the captcha check to reCAPTCHA, asking
	// RecaptchaVerifyURL (default captcha.DefaultRecaptchaVerifyURL).
	RecaptchaSecret    string
	RecaptchaVerifyURL string
	// SignInLockout is the first lockout after repeated failed sign-ins
	// (default DefaultSignInLockout).
	SignInLockout time.Duration
}

// accounts holds what the account handlers share.
type accounts struct {
	store    *store.Store
	site     siteInfo
	forms    map[string]formRules
	now      func() time.Time
	clientIP func(*http.Request) string
	captcha  captcha.Verifier
	altcha   *captcha.Altcha // the challenge issuer; nil when reCAPTCHA checks
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
		store: cfg.Store, site: siteOf(cfg), forms: forms, now: cfg.Now, clientIP: clientIP,
		throttle: newSignInThrottle(cfg.Store, opts.SignInLockout, cfg.Now),
		baseURL:  base, origins: origins,
	}
	if opts.RecaptchaSecret != "" {
		a.captcha = captcha.NewRecaptcha(opts.RecaptchaSecret, opts.RecaptchaVerifyURL)
	} else {
		a.altcha = captcha.NewAltcha(cfg.Secret, opts.CaptchaMaxNumber, cfg.Store, cfg.Now)
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

// registrationRequest is the body of POST /api/registration.
type registrationRequest struct {
	CompanyName       string `json:"companyName"`
	ContactName       string `json:"contactName"`
	ContactEmail      string `json:"contactEmail"`
	Address1          string `json:"address1"`
	Address2          string `json:"address2"`
	City              string `json:"city"`
	State             string `json:"state"`
	PostalCode        string `json:"postalCode"`
	Country           string `json:"country"`
	ContactPhone      string `json:"contactPhone"`
	ContactFax        string `json:"contactFax"`
	Email             string `json:"email"`
	FirstName         string `json:"firstName"`
	LastName          string `json:"lastName"`
	NewPassword       string `json:"newPassword"`
	ConfirmPassword   string `json:"confirmPassword"`
	RecaptchaResponse string `json:"recaptchaResponse"`
	PreferredLanguage string `json:"preferredLanguage"`
}

// validate checks the form's rules and that both passwords are the same.
func (g registrationRequest) validate(rules formRules) []fieldError {
	errs := rules.check(g)
	if g.NewPassword != g.ConfirmPassword && !slices.ContainsFunc(errs, func(e fieldError) bool { return e.Field == "confirmPassword" }) {
		errs = append(errs, fieldError{Field: "confirmPassword", Message: "registration.errors.passwordMismatch"})
	}
	return errs
}

// handleRegistration creates a company and its user (POST /api/registration):
// status "200" on success; otherwise "400" with the field errors, or "409"
// when the e-mail is registered already.
func (a *accounts) handleRegistration() http.Handler {
	rules := a.forms["registration"]
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		g, sent, err := decodeJSON[registrationRequest](r)
		if err != nil {
			return err
		}
		errs := g.validate(rules)
		if len(errs) == 0 {
			captchaErr, err := checkCaptcha(r, a.captcha, a.clientIP, g.RecaptchaResponse, "captcha.refused")
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
		hash, err := hashPassword(r.Context(), g.NewPassword)
		if err != nil {
			return err
		}
		now := a.now()
		company := store.Company{Name: g.CompanyName, ContactName: g.ContactName, ContactEmail: loginID(g.ContactEmail), Address1: g.Address1, Address2: g.Address2,
			City: g.City, State: g.State, PostalCode: g.PostalCode, Country: g.Country, ContactPhone: g.ContactPhone, ContactFax: g.ContactFax}
		user := store.User{Email: loginID(g.Email), FirstName: g.FirstName, LastName: g.LastName, PasswordHash: hash, PreferredLanguage: a.site.language(g.PreferredLanguage)}
		answer, err := storeOnce(r.Context(), a.store, submissionOf(r, sent, nil), now, func(tx *store.Tx) (kept, error) {
			return keptJSON(http.StatusOK, statusAnswer{Status: "200"}), tx.AddCompanyUser(now, company, user)
		})
		if errors.Is(err, store.ErrDuplicate) {
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
