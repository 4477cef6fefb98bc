package captcha

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"regexp"
	"strconv"
	"time"

	"freightsite/internal/store"
)

// DefaultMaxNumber is the largest secret number of an ALTCHA challenge:
// a browser tries about half of them on average, a fraction of a second
// on a phone, while a bot pays the same for every form it posts.
const DefaultMaxNumber = 100_000

// Lifetime is how long an ALTCHA challenge may be solved and sent: long
// enough to fill in the registration form (the widget fetches a new one
// when it expires).
const Lifetime = 20 * time.Minute

// Altcha issues and verifies ALTCHA challenges (protocol of altcha-lib):
// challenge = hex(SHA-256(salt + number)) for a random number up to
// maxnumber, signature = hex(HMAC-SHA-256(key, challenge)). The browser
// finds the number and sends back base64(JSON{algorithm, challenge,
// number, salt, signature}). The salt carries the expiry as
// "?expires=UNIX&": the widget reads it to refresh in time, and the closing
// "&" means digits moved from the number into the salt cannot stretch it.
// A solution is spent in the store, so it works once, across restarts and
// instances.
type Altcha struct {
	key       []byte
	maxNumber int
	store     *store.Store
	now       func() time.Time
}

// NewAltcha makes the challenges of a server with this secret, whose
// secret numbers go up to maxNumber (DefaultMaxNumber when 0).
func NewAltcha(secret []byte, maxNumber int, s *store.Store, now func() time.Time) *Altcha {
	if maxNumber <= 0 {
		maxNumber = DefaultMaxNumber
	}
	// A key of its own, so a captcha signature can never pass for another
	// signed value (the XSRF tokens use the secret itself).
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("altcha challenge key"))
	return &Altcha{key: m.Sum(nil), maxNumber: maxNumber, store: s, now: now}
}

// Challenge is what the widget gets to solve (GET /api/captcha/challenge).
type Challenge struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	MaxNumber int    `json:"maxnumber"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
}

func (a *Altcha) sign(challenge string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(challenge))
	return hex.EncodeToString(m.Sum(nil))
}

// Issue makes a fresh challenge.
func (a *Altcha) Issue() Challenge {
	nonce := make([]byte, 12)
	_, _ = rand.Read(nonce)
	salt := hex.EncodeToString(nonce) + "?expires=" + strconv.FormatInt(a.now().Add(Lifetime).Unix(), 10) + "&"
	n, _ := rand.Int(rand.Reader, big.NewInt(int64(a.maxNumber)+1))
	challenge := sha256Hex(salt + n.String())
	return Challenge{Algorithm: "SHA-256", Challenge: challenge, MaxNumber: a.maxNumber, Salt: salt, Signature: a.sign(challenge)}
}

var altchaSalt = regexp.MustCompile(`^[0-9a-f]{24}\?expires=([0-9]{1,12})&$`)

type solution struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	Number    int64  `json:"number"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
}

// Verify checks a solution and spends it.
func (a *Altcha) Verify(ctx context.Context, response, _ string) error {
	if len(response) > 2048 {
		return refused("payload too long")
	}
	raw, err := base64.StdEncoding.DecodeString(response)
	if err != nil {
		return refused("payload is not base64")
	}
	var s solution
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
	fresh, err := a.store.SpendCaptcha(ctx, s.Challenge, time.Unix(expires, 0), a.now())
	if err != nil {
		return err
	}
	if !fresh {
		return refused("solution already used")
	}
	return nil
}
