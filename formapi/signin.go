package formapi

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"freightsite/internal/store"
)

// signInAnswer is SPEC's answer of POST /auth: success and a status, which
// is the locales key the login page shows on failure.
type signInAnswer struct {
	Success bool   `json:"success"`
	Status  string `json:"status"`
}

// Statuses of a refused sign-in; unknown accounts, wrong passwords and
// missing fields all get the same one (no user enumeration).
const (
	statusSignInFailed  = "LOGIN.WARNING"
	statusSignInLocked  = "LOGIN.LOCKED"
	statusSignInCaptcha = "LOGIN.CAPTCHA"
)

// signInRefusal is why credentials were not accepted, with the answer.
type signInRefusal struct {
	status     int
	answer     signInAnswer
	retryAfter time.Duration
}

func (s *signInRefusal) write(w http.ResponseWriter, r *http.Request) {
	metricsOf(r).signInRefused(s.answer.Status)
	if s.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(s.retryAfter.Seconds())))))
	}
	writeJSON(w, s.status, s.answer)
}

// authenticate checks a username and password under the throttle and
// returns the user's id, or the refusal to answer with. captcha is the
// request's recaptchaResponse, needed once the account is under attack
// (signInThrottle); then a missing or refused one answers LOGIN.CAPTCHA
// before any password is checked. Every answer that checks credentials,
// including empty or overlong ones, costs one argon2id check, so the time
// taken tells nothing.
//
// The throttle counts a guess before its password is checked, under the
// account found (or the canonical id, for an unknown one). An id that is
// an account's but for hidden characters (dup7\u00ad@x.in) is a guess at
// that account: counted under it, and never signed in.
func (a *accounts) authenticate(r *http.Request, username, password, captcha string) (int64, *signInRefusal, error) {
	ctx := r.Context()
	address := throttleAddress(a.clientIP(r))
	rules := a.forms["login"]
	valid := len(rules.validate(map[string]string{"username": username, "password": password})) == 0
	account := loginID(username)
	guess := valid
	if !valid {
		account = imitatedLoginID(username)
		guess = len(rules.validate(map[string]string{"username": account, "password": password})) == 0
	}
	var id int64
	hash, known := a.dummyHash, false
	if valid {
		login, found, err := a.store.LoginByID(ctx, account)
		if err != nil {
			return 0, nil, err
		}
		if found {
			id, account = login.UserID, login.Email
		}
		if known = found && login.PasswordHash != ""; known {
			hash = login.PasswordHash
		}
	}
	wait, err := a.throttle.wait(ctx, account, address)
	if err != nil {
		return 0, nil, err
	}
	if wait > 0 {
		return 0, &signInRefusal{http.StatusTooManyRequests, signInAnswer{Status: statusSignInLocked}, wait}, nil
	}
	var at attempt
	if guess {
		stepUp, err := a.throttle.needsCaptcha(ctx, account)
		if err != nil {
			return 0, nil, err
		}
		if stepUp {
			refusal := &signInRefusal{status: http.StatusUnauthorized, answer: signInAnswer{Status: statusSignInCaptcha}}
			if captcha == "" {
				return 0, refusal, nil
			}
			refused, err := checkCaptcha(r, a.captcha, a.clientIP, captcha, statusSignInCaptcha)
			if err != nil {
				return 0, nil, err
			}
			if refused != nil {
				return 0, refusal, nil
			}
		}
		var refusal *signInRefusal
		if at, refusal, err = a.throttle.reserve(ctx, account, address, stepUp); err != nil || refusal != nil {
			return 0, refusal, err
		}
	}
	ok, err := checkPassword(ctx, hash, password)
	if err != nil && !errors.Is(err, errBadHash) {
		return 0, nil, err
	}
	if !valid || !known || !ok {
		return 0, &signInRefusal{status: http.StatusUnauthorized, answer: signInAnswer{Status: statusSignInFailed}}, nil
	}
	return id, nil, a.throttle.succeeded(ctx, at)
}

// signInRequest is the form-encoded body of POST /auth (SPEC §7).
type signInRequest struct {
	Username          string `json:"username"`
	Password          string `json:"password"`
	RememberMe        string `json:"rememberMe"` // on or off (true or false)
	RecaptchaResponse string `json:"recaptchaResponse"`
}

// remember reads rememberMe.
func (s signInRequest) remember() (bool, error) {
	switch s.RememberMe {
	case "on", "true":
		return true, nil
	case "", "off", "false":
		return false, nil
	}
	return false, badRequest("field \"rememberMe\" must be on or off, not " + strconv.Quote(s.RememberMe))
}

// handleSignIn signs a member in with a session cookie (POST /auth, SPEC
// §7): form-encoded username, password and rememberMe ("on" or "off"),
// plus recaptchaResponse when the answer was LOGIN.CAPTCHA, sent as an
// Ajax call. The cookie lasts 30 days with rememberMe and ends
// with the browser otherwise.
func (a *accounts) handleSignIn() http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		if err := requireMediaType(r, "application/x-www-form-urlencoded"); err != nil {
			return err
		}
		if err := requireAjax(r); err != nil {
			return err
		}
		s, err := decodeForm[signInRequest](r)
		if err != nil {
			return err
		}
		remember, err := s.remember()
		if err != nil {
			return err
		}
		id, refusal, err := a.authenticate(r, s.Username, s.Password, s.RecaptchaResponse)
		if err != nil {
			return err
		}
		if refusal != nil {
			refusal.write(w, r)
			return nil
		}
		lifetime := sessionLifetime
		if remember {
			lifetime = rememberedLifetime
		}
		// A new value at every sign-in (no session fixation); the one the
		// browser had before, if any, ends.
		if err := a.store.RevokeCredential(r.Context(), sessionValue(r)); err != nil {
			return err
		}
		value, _, err := a.issueCredential(r.Context(), store.Session, id, lifetime)
		if err != nil {
			return err
		}
		setSessionCookie(w, r, value, remember)
		writeJSON(w, http.StatusOK, signInAnswer{Success: true, Status: "success"})
		return nil
	})
}

// issueCredential gives the user a new credential of the kind, lasting
// lifetime, and returns its value, to hand out once, and when it expires.
func (a *accounts) issueCredential(ctx context.Context, kind store.CredentialKind, userID int64, lifetime time.Duration) (string, time.Time, error) {
	value, now := randomToken(32), a.now()
	expires := now.Add(lifetime)
	return value, expires, a.store.AddCredential(ctx, kind, value, userID, now, expires)
}

// tokenRequest is the body of POST /token/generate-token.
type tokenRequest struct {
	Username          string `json:"username"`
	Password          string `json:"password"`
	RecaptchaResponse string `json:"recaptchaResponse"`
}

// tokenAnswer is the answer of POST /token/generate-token (documented in
// docs/api.md): the bearer token, its type and when it expires.
type tokenAnswer struct {
	Token     string `json:"token"`
	TokenType string `json:"tokenType"`
	ExpiresIn int    `json:"expiresIn"` // seconds
	ExpiresAt string `json:"expiresAt"` // RFC 3339, UTC
}

// handleToken exchanges JSON credentials {username, password} (and
// recaptchaResponse under a step-up) for a bearer token
// (POST /token/generate-token). It shares the sign-in throttle and
// answers failures as POST /auth does.
func (a *accounts) handleToken() http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		c, _, err := decodeJSON[tokenRequest](r)
		if err != nil {
			return err
		}
		id, refusal, err := a.authenticate(r, c.Username, c.Password, c.RecaptchaResponse)
		if err != nil {
			return err
		}
		if refusal != nil {
			refusal.write(w, r)
			return nil
		}
		value, expires, err := a.issueCredential(r.Context(), store.Bearer, id, bearerLifetime)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, tokenAnswer{Token: value, TokenType: "Bearer", ExpiresIn: int(bearerLifetime.Seconds()), ExpiresAt: expires.UTC().Format(time.RFC3339)})
		return nil
	})
}

// handleSignOut ends the browser's session and the bearer token sent with
// the call, if any (POST /api/logout).
func (a *accounts) handleSignOut() http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		if err := a.store.RevokeCredential(r.Context(), sessionValue(r)); err != nil {
			return err
		}
		if err := a.store.RevokeCredential(r.Context(), bearerValue(r)); err != nil {
			return err
		}
		clearSessionCookie(w, r)
		writeJSON(w, http.StatusOK, statusAnswer{Status: "success"})
		return nil
	})
}

// accountAnswer is the signed-in member (GET /api/account).
type accountAnswer struct {
	Email             string `json:"email"`
	FirstName         string `json:"firstName"`
	LastName          string `json:"lastName"`
	CompanyName       string `json:"companyName"`
	PreferredLanguage string `json:"preferredLanguage"`
}

// handleAccount tells who is signed in, by bearer token or session cookie.
// A bearer token that is not (or no longer) valid answers 403, which makes
// the site drop its Auth-Token (SPEC §6); no credentials at all is 401.
func (a *accounts) handleAccount() http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		kind, value := store.Session, sessionValue(r)
		if bearer := bearerValue(r); bearer != "" {
			kind, value = store.Bearer, bearer
		}
		m, ok, err := a.store.CredentialMember(r.Context(), kind, value, a.now())
		if err != nil {
			return err
		}
		switch {
		case !ok && kind == store.Bearer:
			return &httpError{http.StatusForbidden, "the bearer token is not valid or has expired", "member.signedOut"}
		case !ok:
			return &httpError{http.StatusUnauthorized, "not signed in: send the session cookie or an Authorization: Bearer token", "member.signedOut"}
		}
		writeJSON(w, http.StatusOK, accountAnswer{Email: m.Email, FirstName: m.FirstName, LastName: m.LastName, CompanyName: m.Company, PreferredLanguage: m.Language})
		return nil
	})
}
