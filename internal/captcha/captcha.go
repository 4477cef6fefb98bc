// Package captcha checks the captcha answer a form sends as
// recaptchaResponse (DESIGN.md): with no third party configured it is
// ALTCHA, a proof-of-work the browser solves (the npm `altcha` widget; the
// server side is ours, Altcha), and with a reCAPTCHA secret it is Google's
// check (Recaptcha). Both are a Verifier.
package captcha

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// Verifier checks a form's captcha answer.
type Verifier interface {
	// Verify returns nil for a good answer, an error wrapping ErrRefused
	// for a bad one (the wrapped text says why, for logs and tests), and
	// any other error when it could not check.
	Verify(ctx context.Context, response, clientIP string) error
}

// ErrRefused is a captcha answer that is not good.
var ErrRefused = errors.New("captcha answer refused")

func refused(why string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(why, args...))
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
