package formapi

import (
	"net/http"
	"strings"
	"time"
)

// Signed-in state. A browser session is a cookie; an API client holds a
// bearer token (POST /token/generate-token). Both are 256-bit random values
// of which the database keeps only the SHA-256 (store.AddCredential), so
// reading the database signs nobody in.

const (
	sessionCookie = "SESSION"
	// A session without "remember me" ends with the browser, and on the
	// server at the latest after a working day.
	sessionLifetime    = 12 * time.Hour
	rememberedLifetime = 30 * 24 * time.Hour
	bearerLifetime     = 2 * time.Hour
)

func sessionValue(r *http.Request) string {
	if c, err := r.Cookie(sessionCookie); err == nil {
		return c.Value
	}
	return ""
}

// bearerValue is the token of an "Authorization: Bearer ..." header.
func bearerValue(r *http.Request) string {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// setSessionCookie sends the session: HttpOnly (no script reads it),
// SameSite=Lax (not sent on cross-site posts), Secure over TLS, and
// persistent only when the member asked to be remembered.
func setSessionCookie(w http.ResponseWriter, r *http.Request, value string, remember bool) {
	c := &http.Cookie{Name: sessionCookie, Value: value, Path: "/", HttpOnly: true, Secure: isHTTPS(r), SameSite: http.SameSiteLaxMode}
	if remember {
		c.MaxAge = int(rememberedLifetime.Seconds())
	}
	http.SetCookie(w, c)
}

func clearSessionCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, Secure: isHTTPS(r), SameSite: http.SameSiteLaxMode, MaxAge: -1})
}
