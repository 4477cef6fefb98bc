package formapi

import (
	"encoding/json"
	"fmt"
	"freightsite/internal/testkit"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// lookAlike is id with n copies of c inserted, spread along it:
// lookAlike("dup7@x.in", '\u00ad', 2) is "d\u00adu\u00adp7@x.in".
func lookAlike(id string, c rune, n int) string {
	runes := []rune(id)
	var b strings.Builder
	for i, r := range runes {
		b.WriteRune(r)
		for k := i; k < n; k += len(runes) - 1 {
			if i < len(runes)-1 {
				b.WriteRune(c)
			}
		}
	}
	return b.String()
}

// hiddenInLoginIDs are characters some collations ignore (PostgreSQL's ICU
// did): with them inserted, an id looks like another and must not pass
// for it.
var hiddenInLoginIDs = []rune{'\u00ad', '\u200b', '\u200d', '\u2060', '\ufeff'}

// TestLookAlikeLoginIDs: dup7@x.in with 0 to 11 soft hyphens, zero-width
// spaces or joiners or word joiners inserted is one account to the
// throttle: wrong passwords with any mix of them lock the address out
// after the limit, at /auth and at the token call alike. Such an id never
// signs in, not even with the right password, while the plain id does;
// registration refuses it, and the database finds no account under it.
func TestLookAlikeLoginIDs(t *testing.T) {
	for _, c := range hiddenInLoginIDs {
		t.Run(fmt.Sprintf("U+%04X", c), func(t *testing.T) {
			a := newAccountsAPI(t, withTrustedProxy())
			a.register("dup7@x.in", "Cargo#777")
			for n := range 12 {
				id := lookAlike("dup7@x.in", c, n)
				if strings.Count(id, string(c)) != n {
					t.Fatalf("lookAlike(%d) = %q", n, id)
				}
				var status int
				var got signInAnswer
				if n%2 == 0 {
					var resp *http.Response
					resp, got = a.signInFrom("198.51.100.1", id, fmt.Sprintf("Guess#%d", n), "")
					status = resp.StatusCode
				} else {
					resp := a.tokenFrom("198.51.100.1", id, fmt.Sprintf("Guess#%d", n), "")
					status, got = resp.StatusCode, decode[signInAnswer](t, resp)
				}
				want := signInAnswer{false, statusSignInFailed}
				if n >= limitAccountAddress {
					want.Status = statusSignInLocked
				}
				if got != want {
					t.Errorf("guess %d with %q: %d %+v, want %s", n+1, id, status, got, want.Status)
				}
			}
			if resp, got := a.signInFrom("198.51.100.1", "dup7@x.in", "Cargo#777", ""); resp.StatusCode != http.StatusTooManyRequests {
				t.Errorf("the plain id from the locked address: %d %+v, want 429", resp.StatusCode, got)
			}

			// The right password with a look-alike id, from elsewhere.
			for n := 1; n <= 2; n++ {
				id := lookAlike("dup7@x.in", c, n)
				if resp, got := a.signInFrom("203.0.113.7", id, "Cargo#777", ""); resp.StatusCode != http.StatusUnauthorized || got.Status != statusSignInFailed {
					t.Errorf("/auth with %q and the right password: %d %+v, want 401 LOGIN.WARNING", id, resp.StatusCode, got)
				}
				resp := a.tokenFrom("203.0.113.7", id, "Cargo#777", "")
				if got := decode[map[string]any](t, resp); resp.StatusCode != http.StatusUnauthorized || got["token"] != nil {
					t.Errorf("the token call with %q and the right password: %d %v, want 401", id, resp.StatusCode, got)
				}
			}
			if resp, got := a.signInFrom("203.0.113.7", "DUP7@x.in ", "Cargo#777", ""); resp.StatusCode != http.StatusOK || !got.Success {
				t.Errorf("the plain id: %d %+v", resp.StatusCode, got)
			}

			for n := 1; n <= 11; n += 5 {
				id := lookAlike("dup7@x.in", c, n)
				if got := a.count(`SELECT COUNT(*) FROM users WHERE email = ?`, id); got != 0 {
					t.Errorf("the database finds %d users under %q", got, id)
				}
				p := a.registration(id)
				resp := a.postJSON("/api/registration", p)
				if got := decode[statusAnswer](t, resp); resp.StatusCode != http.StatusBadRequest || len(got.ErrorMessageList) != 1 || got.ErrorMessageList[0] != (fieldError{"email", "forms.emailInvalid"}) {
					t.Errorf("registering %q: %d %+v, want the e-mail refused", id, resp.StatusCode, got)
				}
			}
			if n := a.count(`SELECT COUNT(*) FROM users`); n != 1 {
				t.Errorf("%d users, want 1", n)
			}
		})
	}
}

// TestLoginIDsAreUniqueInTheirCanonicalForm: an id that differs from a
// registered one only in case or surrounding spaces is the same account,
// for registration and for the uniqueness check.
func TestLoginIDsAreUniqueInTheirCanonicalForm(t *testing.T) {
	a := newAccountsAPI(t)
	a.register("dup7@x.in", "Cargo#777")
	for _, id := range []string{"DUP7@x.in", "Dup7@X.IN"} {
		resp := a.postJSON("/api/registration", a.registration(id))
		if got := decode[statusAnswer](t, resp); resp.StatusCode != http.StatusConflict || got.Status != "409" {
			t.Errorf("registering %q: %d %+v, want 409", id, resp.StatusCode, got)
		}
		resp = a.do(http.MethodPost, "/api/email/uniqueness", uniquenessMediaType, strings.NewReader(`{"email":"`+id+`"}`),
			http.Header{xsrfHeader: {a.token()}, ajaxHeader: {ajaxMarker}})
		if free := decode[bool](t, resp); free {
			t.Errorf("the uniqueness check calls %q free", id)
		}
	}
}

// TestParallelGuessesAreCountedFirst: wrong passwords sent all at once,
// through two instances of the server on one database, from one address,
// get no more password checks than the limit: each is counted before its
// hash is checked, so the rest are answered LOGIN.LOCKED unchecked.
func TestParallelGuessesAreCountedFirst(t *testing.T) {
	clock := testkit.NewClock()
	opts := []apiOption{withClock(clock)}
	a := newAccountsAPI(t, opts...)
	b := newTestAPIOn(t, a.db, append([]apiOption{unlimited(), withAccounts(AccountOptions{BaseURL: "https://freight.example"})}, opts...)...)
	a.register("ravi@carriers.example", "Cargo#777")
	tokens := []string{a.token(), b.token()}

	for round, call := range []string{"/auth", "/token/generate-token"} {
		user := []string{"ravi@carriers.example", "nobody@carriers.example"}[round]
		const guesses = 60
		var mu sync.Mutex
		answers := map[string]int{}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range guesses {
			api := []*testAPI{a, b}[i%2]
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				var req *http.Request
				if call == "/auth" {
					form := url.Values{"username": {user}, "password": {fmt.Sprintf("Guess#%d", i)}}
					req, _ = http.NewRequest(http.MethodPost, api.srv.URL+call, strings.NewReader(form.Encode()))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					req.Header.Set(ajaxHeader, ajaxMarker)
				} else {
					body, _ := json.Marshal(map[string]string{"username": user, "password": fmt.Sprintf("Guess#%d", i)})
					req, _ = http.NewRequest(http.MethodPost, api.srv.URL+call, strings.NewReader(string(body)))
					req.Header.Set("Content-Type", "application/json")
				}
				req.Header.Set(xsrfHeader, tokens[i%2])
				resp, err := api.client.Do(req)
				answer := "error"
				if err == nil {
					var got signInAnswer
					json.NewDecoder(resp.Body).Decode(&got)
					resp.Body.Close()
					answer = fmt.Sprintf("%d %s", resp.StatusCode, got.Status)
				}
				mu.Lock()
				answers[answer]++
				mu.Unlock()
			}()
		}
		close(start)
		wg.Wait()
		want := map[string]int{"401 " + statusSignInFailed: limitAccountAddress, "429 " + statusSignInLocked: guesses - limitAccountAddress}
		if fmt.Sprint(answers) != fmt.Sprint(want) {
			t.Errorf("%d wrong passwords for %s at once at %s: %v, want %v (no more checked than the limit)", guesses, user, call, answers, want)
		}
		clock.Advance(time.Hour)
	}
	// The owner's success after the lockout takes its own count back:
	// the address counts failures only.
	if resp, got := a.signIn("ravi@carriers.example", "Cargo#777", false); resp.StatusCode != http.StatusOK || !got.Success {
		t.Fatalf("right password after the lockout: %d %+v", resp.StatusCode, got)
	}
}

// TestASuccessDoesNotCountAgainstTheAddress: sign-ins that succeed, many
// of them from one address (an office behind one IPv4 address), never
// lock it, however many there are, since each takes its count back; a
// success that came as the address reached its limit lifts the lockout
// it set.
func TestASuccessDoesNotCountAgainstTheAddress(t *testing.T) {
	a := newAccountsAPI(t)
	a.register("ravi@carriers.example", "Cargo#777")
	for i := range limitAddress + 5 {
		if resp, got := a.signIn("ravi@carriers.example", "Cargo#777", false); resp.StatusCode != http.StatusOK || !got.Success {
			t.Fatalf("sign-in %d: %d %+v", i+1, resp.StatusCode, got)
		}
	}
	for i := range limitAddress - 1 {
		a.signIn(fmt.Sprintf("user%d@carriers.example", i), "Guess#1", false)
	}
	if resp, got := a.signIn("ravi@carriers.example", "Cargo#777", false); resp.StatusCode != http.StatusOK || !got.Success {
		t.Fatalf("the right password as the address's 50th count: %d %+v", resp.StatusCode, got)
	}
	if resp, got := a.signIn("other@carriers.example", "Guess#1", false); resp.StatusCode != http.StatusUnauthorized || got.Status != statusSignInFailed {
		t.Errorf("the next guess after a success at the limit: %d %+v, want 401 LOGIN.WARNING", resp.StatusCode, got)
	}
	if resp, got := a.signIn("other@carriers.example", "Guess#1", false); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the address's 50th failure: %d %+v, want 429", resp.StatusCode, got)
	}
}
