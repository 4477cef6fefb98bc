package formapi

import (
	"errors"
	"net/http"

	"freightsite/internal/captcha"
	"freightsite/internal/store"
)

// The captcha of registration, forgot password and a stepped-up sign-in
// (DESIGN.md): a form sends its answer as recaptchaResponse, and the
// handler asks a captcha.Verifier (ALTCHA, or reCAPTCHA when configured).

// handleCaptchaChallenge gives the ALTCHA widget a fresh challenge
// (GET /api/captcha/challenge).
func handleCaptchaChallenge(a *captcha.Altcha) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, a.Issue())
	})
}

// checkCaptcha verifies a form's recaptchaResponse and turns the outcome
// into what the handler answers: nil, a field error for the form, or an
// error (the check could not run: 503).
func checkCaptcha(r *http.Request, v captcha.Verifier, clientIP func(*http.Request) string, response, message string) (*fieldError, error) {
	err := v.Verify(r.Context(), response, clientIP(r))
	if errors.Is(err, captcha.ErrRefused) {
		noteError(r, err)
		return &fieldError{Field: "recaptchaResponse", Message: message}, nil
	}
	if err != nil && !errors.Is(err, store.ErrUnavailable) {
		noteError(r, err)
		return nil, &httpError{http.StatusServiceUnavailable, "the captcha could not be checked right now; try again shortly", "captcha.unavailable"}
	}
	return nil, err
}
