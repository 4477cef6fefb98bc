package formapi

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The captcha of registration and forgot password (DESIGN.md): a form
// sends its answer as recaptchaResponse and the handler asks a
// CaptchaVerifier. With no third party configured it is ALTCHA, a
// proof-of-work the browser solves (the npm `altcha` widget; the server
// side below is ours because the Go library cannot be fetched here); with a
// reCAPTCHA secret it is Google's check.

// CaptchaVerifier checks a form's captcha answer.
type CaptchaVerifier interface {
	// Verify returns nil for a good answer, an error wrapping
	// errCaptchaRefused for a bad one (the wrapped text says why, for
	// logs and tests), and any other error when it could not check.
	Verify(ctx context.Context, response, clientIP string) error
}

var errCaptchaRefused = errors.New("captcha answer refused")

func refused(why string, args ...any) error {
	return fmt.Errorf("%w: %s", errCaptchaRefused, fmt.Sprintf(why, args...))
}

// DefaultCaptchaMaxNumber is the largest secret number of an ALTCHA
// challenge: a browser tries about half of them on average, a fraction of
// a second on a phone, while a bot pays the same for every form it posts.
const DefaultCaptchaMaxNumber = 100_000

// altchaLifetime is how long a challenge may be solved and sent: long
// enough to fill in the registration form (the widget fetches a new one
// when it expires).
const altchaLifetime = 20 * time.Minute

// altcha issues and verifies ALTCHA challenges (protocol of altcha-lib):
// challenge = hex(SHA-256(salt + number)) for a random number up to
// maxnumber, signature = hex(HMAC-SHA-256(key, challenge)). The browser
// finds the number and sends back base64(JSON{algorithm, challenge,
// number, salt, signature}). The salt carries the expiry as
// "?expires=UNIX&": the widget reads it to refresh in time, and the closing
// "&" means digits moved from the number into the salt cannot stretch it.
type altcha struct {
	key       []byte
	maxNumber int
	store     *Store
	now       func() time.Time
}

func newAltcha(secret []byte, maxNumber int, store *Store, now func() time.Time) *altcha {
	if maxNumber <= 0 {
		maxNumber = DefaultCaptchaMaxNumber
	}
	// A key of its own, so a captcha signature can never pass for another
	// signed value (the XSRF tokens use the secret itself).
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("altcha challenge key"))
	return &altcha{key: m.Sum(nil), maxNumber: maxNumber, store: store, now: now}
}

type altchaChallenge struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	MaxNumber int    `json:"maxnumber"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
}

func (a *altcha) sign(challenge string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(challenge))
	return hex.EncodeToString(m.Sum(nil))
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func (a *altcha) issue() altchaChallenge {
	nonce := make([]byte, 12)
	_, _ = rand.Read(nonce)
	salt := hex.EncodeToString(nonce) + "?expires=" + strconv.FormatInt(a.now().Add(altchaLifetime).Unix(), 10) + "&"
	n, _ := rand.Int(rand.Reader, big.NewInt(int64(a.maxNumber)+1))
	challenge := sha256Hex(salt + n.String())
	return altchaChallenge{Algorithm: "SHA-256", Challenge: challenge, MaxNumber: a.maxNumber, Salt: salt, Signature: a.sign(challenge)}
}

// handleCaptchaChallenge gives the widget a fresh challenge
// (GET /api/captcha/challenge).
func (a *altcha) handleChallenge() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, a.issue())
	})
}

var altchaSalt = regexp.MustCompile(`^[0-9a-f]{24}\?expires=([0-9]{1,12})&$`)

type altchaSolution struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	Number    int64  `json:"number"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
}

func (a *altcha) Verify(ctx context.Context, response, _ string) error {
	if len(response) > 2048 {
		return refused("payload too long")
	}
	raw, err := base64.StdEncoding.DecodeString(response)
	if err != nil {
		return refused("payload is not base64")
	}
	var s altchaSolution
	if err := json.Unmarshal(raw, &s); err != nil {
		return refused("payload is not the JSON of a solution")
	}
	if s.Algorithm != "SHA-256" {
		return refused("algorithm %q", s.Algorithm)
	}
	m := altchaSalt.FindStringSubmatch(s.Salt)
	if m == nil {
		return refused("salt is not one this server issues")
	}
	if !hmac.Equal([]byte(s.Signature), []byte(a.sign(s.Challenge))) {
		return refused("bad signature")
	}
	expires, _ := strconv.ParseInt(m[1], 10, 64)
	if !a.now().Before(time.Unix(expires, 0)) {
		return refused("challenge expired")
	}
	if s.Number < 0 || !hmac.Equal([]byte(sha256Hex(s.Salt+strconv.FormatInt(s.Number, 10))), []byte(s.Challenge)) {
		return refused("wrong solution")
	}
	// Spend it: the first use inserts the row, any other finds it there.
	// Spent rows are dropped once expired, when they could not pass anyway.
	now := a.now()
	var inserted int64
	err = a.store.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`DELETE FROM captcha_spent WHERE expires_at <= ?`, timestamp(now)); err != nil {
			return err
		}
		res, err := tx.Exec(`INSERT INTO captcha_spent (challenge, expires_at) VALUES (?, ?) ON CONFLICT (challenge) DO NOTHING`, s.Challenge, timestamp(time.Unix(expires, 0)))
		if err != nil {
			return err
		}
		inserted, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return err
	}
	if inserted == 0 {
		return refused("solution already used")
	}
	return nil
}

// DefaultRecaptchaVerifyURL is Google's siteverify endpoint.
const DefaultRecaptchaVerifyURL = "https://www.google.com/recaptcha/api/siteverify"

// recaptcha asks Google's siteverify (or the configured stand-in) about a
// reCAPTCHA response.
type recaptcha struct {
	secret    string
	verifyURL string
	client    *http.Client
}

func newRecaptcha(secret, verifyURL string) *recaptcha {
	if verifyURL == "" {
		verifyURL = DefaultRecaptchaVerifyURL
	}
	return &recaptcha{secret: secret, verifyURL: verifyURL, client: &http.Client{Timeout: 10 * time.Second}}
}

func (g *recaptcha) Verify(ctx context.Context, response, clientIP string) error {
	form := url.Values{"secret": {g.secret}, "response": {response}}
	if clientIP != "" {
		form.Set("remoteip", clientIP)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.verifyURL, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := g.client.Do(req)
	if err != nil {
		return fmt.Errorf("asking reCAPTCHA: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("asking reCAPTCHA: HTTP %d", resp.StatusCode)
	}
	var answer struct {
		Success bool     `json:"success"`
		Codes   []string `json:"error-codes"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&answer); err != nil {
		return fmt.Errorf("reading reCAPTCHA's answer: %w", err)
	}
	if !answer.Success {
		return refused("reCAPTCHA says no (%s)", strings.Join(answer.Codes, ", "))
	}
	return nil
}

// checkCaptcha verifies a form's recaptchaResponse and turns the outcome
// into what the handler answers: nil, a field error for the form, or an
// error (the check could not run: 503).
func checkCaptcha(r *http.Request, v CaptchaVerifier, clientIP func(*http.Request) string, response, message string) (*fieldError, error) {
	err := v.Verify(r.Context(), response, clientIP(r))
	if errors.Is(err, errCaptchaRefused) {
		noteError(r, err)
		return &fieldError{Field: "recaptchaResponse", Message: message}, nil
	}
	if err != nil && !errors.Is(err, ErrUnavailable) {
		noteError(r, err)
		return nil, &httpError{http.StatusServiceUnavailable, "the captcha could not be checked right now; try again shortly", "captcha.unavailable"}
	}
	return nil, err
}
