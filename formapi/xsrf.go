package formapi

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
)

// Anti-forgery (SPEC §7, DESIGN.md): every GET of the API that arrives
// without a valid token gets an XSRF-TOKEN cookie, readable by the site's
// script (pages get none: staticFirst serves them before this runs);
// every other method must echo it in the X-XSRF-TOKEN header. The token is
// a random nonce with its HMAC under the server secret, so a token the
// server did not issue (one planted by a sibling subdomain, say) fails.
// Cross-origin requests are refused before that by Go's
// CrossOriginProtection (Sec-Fetch-Site / Origin against Host). A form
// posted to a page without the script (formposts.go) has no header to
// send: it passes on the browser's word that it comes from this site
// (fromThisSite) instead.

const (
	xsrfCookie = "XSRF-TOKEN"
	xsrfHeader = "X-XSRF-TOKEN"
	msgXSRF    = "api.errors.forbidden"
)

type xsrfTokens struct {
	secret []byte
	seen   *validTokens
}

// validTokens remembers tokens found valid, so a visitor's every request
// does not check the same signature again (a token stays valid as long
// as the secret: nothing to expire). Forged tokens are never kept, and
// past maxValidTokens it starts again empty, so it stays small.
type validTokens struct {
	mu     sync.Mutex
	tokens map[string]bool
}

const maxValidTokens = 4096

func (x xsrfTokens) issue() string {
	nonce := randomToken(18)
	return nonce + "." + x.sign(nonce)
}

func (x xsrfTokens) sign(nonce string) string {
	m := hmac.New(sha256.New, x.secret)
	m.Write([]byte("xsrf:" + nonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (x xsrfTokens) valid(token string) bool {
	if x.seen != nil {
		x.seen.mu.Lock()
		ok := x.seen.tokens[token]
		x.seen.mu.Unlock()
		if ok {
			return true
		}
	}
	nonce, mac, ok := strings.Cut(token, ".")
	if !ok || nonce == "" || !hmac.Equal([]byte(mac), []byte(x.sign(nonce))) {
		return false
	}
	if x.seen != nil {
		x.seen.mu.Lock()
		if len(x.seen.tokens) >= maxValidTokens {
			x.seen.tokens = map[string]bool{}
		}
		x.seen.tokens[token] = true
		x.seen.mu.Unlock()
	}
	return true
}

// randomToken is n random bytes, base64url without padding.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

func protectXSRF(secret []byte, next http.Handler) http.Handler {
	x := xsrfTokens{secret, &validTokens{tokens: map[string]bool{}}}
	origin := http.NewCrossOriginProtection()
	origin.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusForbidden, errorBody{Error: "cross-origin request refused", Message: msgXSRF})
	}))
	return origin.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if probePaths[r.URL.Path] && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			next.ServeHTTP(w, r) // probes get no cookie
			return
		}
		cookie := ""
		if c, err := r.Cookie(xsrfCookie); err == nil {
			cookie = c.Value
		}
		haveValid := x.valid(cookie)
		if !haveValid {
			setXSRFCookie(w, r, x.issue())
		}
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			next.ServeHTTP(w, r)
			return
		}
		header := r.Header.Get(xsrfHeader)
		if !haveValid || subtle.ConstantTimeCompare([]byte(header), []byte(cookie)) != 1 {
			if r.Method == http.MethodPost && !OwnsPath(r.URL.Path) && fromThisSite(r) {
				next.ServeHTTP(w, r) // a form posted to its page without the script (formposts.go)
				return
			}
			text := "missing or invalid anti-forgery token: send the XSRF-TOKEN cookie's value in the X-XSRF-TOKEN header"
			if haveValid {
				text = "the X-XSRF-TOKEN header does not match the XSRF-TOKEN cookie"
			}
			writeJSON(w, http.StatusForbidden, errorBody{Error: text, Message: msgXSRF})
			return
		}
		next.ServeHTTP(w, r)
	}))
}

func setXSRFCookie(w http.ResponseWriter, r *http.Request, token string) {
	http.SetCookie(w, &http.Cookie{
		Name:     xsrfCookie,
		Value:    token,
		Path:     "/",
		Secure:   isHTTPS(r),
		SameSite: http.SameSiteStrictMode,
		// Not HttpOnly: the page's script reads it into the header.
	})
}
