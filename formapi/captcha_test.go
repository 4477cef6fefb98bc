package formapi

import (
	"context"
	"encoding/json"
	"errors"
	"freightsite/internal/captcha"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAltchaChallengeShape(t *testing.T) {
	a := newAccountsAPI(t)
	resp := a.get("/api/captcha/challenge")
	expectStatus(t, resp, http.StatusOK)
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("challenge Cache-Control %q, want no-store", cc)
	}
	c := decode[captcha.Challenge](t, resp)
	// The widget (altcha 1.x) refuses challenges shorter than 40 and salts
	// shorter than 10 characters, and reads the expiry from the salt.
	if c.Algorithm != "SHA-256" || len(c.Challenge) != 64 || len(c.Signature) != 64 || c.MaxNumber != 500 {
		t.Errorf("challenge %+v", c)
	}
	m := regexp.MustCompile(`^[0-9a-f]{24}\?expires=(\d+)&$`).FindStringSubmatch(c.Salt)
	if m == nil {
		t.Fatalf("salt %q", c.Salt)
	}
	expires, _ := strconv.ParseInt(m[1], 10, 64)
	if d := time.Until(time.Unix(expires, 0)); d < 19*time.Minute || d > 21*time.Minute {
		t.Errorf("challenge expires in %v, want 20 minutes", d)
	}
}

// TestRegistrationCaptchaRefusals: through the API, a refused captcha is an
// error on the recaptchaResponse field and nothing is stored.
func TestRegistrationCaptchaRefusals(t *testing.T) {
	a := newAccountsAPI(t)
	p := a.registration("ravi@carriers.example")
	resp := a.postJSON("/api/registration", p)
	expectStatus(t, resp, http.StatusOK)
	resp.Body.Close()
	p["email"] = "second@carriers.example"
	resp = a.postJSON("/api/registration", p) // the same solution again
	got := decode[statusAnswer](t, resp)
	if resp.StatusCode != http.StatusBadRequest || len(got.ErrorMessageList) != 1 || got.ErrorMessageList[0] != (fieldError{"recaptchaResponse", "captcha.refused"}) {
		t.Errorf("replayed captcha: %d %+v", resp.StatusCode, got)
	}
	if n := a.count(`SELECT COUNT(*) FROM users`); n != 1 {
		t.Errorf("%d users, want 1", n)
	}
}

// recaptchaStandIn is a local siteverify: it accepts the response "good"
// and records what it was sent.
type recaptchaStandIn struct {
	mu       sync.Mutex
	requests []map[string]string
	fail     bool // answer 500
}

func (s *recaptchaStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	s.mu.Lock()
	s.requests = append(s.requests, map[string]string{"secret": r.PostForm.Get("secret"), "response": r.PostForm.Get("response"), "remoteip": r.PostForm.Get("remoteip"), "type": r.Header.Get("Content-Type")})
	fail := s.fail
	s.mu.Unlock()
	if fail {
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	ok := r.PostForm.Get("response") == "good" && r.PostForm.Get("secret") == "test-secret"
	answer := map[string]any{"success": ok, "hostname": "freight.example"}
	if !ok {
		answer["error-codes"] = []string{"invalid-input-response"}
	}
	json.NewEncoder(w).Encode(answer)
}

func TestRecaptchaAgainstStandIn(t *testing.T) {
	standIn := &recaptchaStandIn{}
	google := httptest.NewServer(standIn)
	defer google.Close()
	a := newTestAPI(t, unlimited(), withAccounts(AccountOptions{BaseURL: "https://freight.example", RecaptchaSecret: "test-secret", RecaptchaVerifyURL: google.URL}))

	// No proof-of-work challenges with reCAPTCHA.
	expectJSONError(t, a.get("/api/captcha/challenge"), http.StatusNotFound, "no such call")

	post := func(response string) (*http.Response, statusAnswer) {
		resp := a.postJSON("/api/forgot_password", map[string]string{"loginId": "ravi@carriers.example", "recaptchaResponse": response})
		return resp, decode[statusAnswer](t, resp)
	}
	if resp, got := post("good"); resp.StatusCode != http.StatusOK || got.Status != "success" {
		t.Errorf("accepted response: %d %+v", resp.StatusCode, got)
	}
	if resp, got := post("bad"); resp.StatusCode != http.StatusBadRequest || got.ErrorMessageList[0] != (fieldError{"recaptchaResponse", "forgetPassword.errors.captcha"}) {
		t.Errorf("refused response: %d %+v", resp.StatusCode, got)
	}
	standIn.mu.Lock()
	first := standIn.requests[0]
	standIn.mu.Unlock()
	if first["secret"] != "test-secret" || first["response"] != "good" || first["remoteip"] != "127.0.0.1" || first["type"] != "application/x-www-form-urlencoded" {
		t.Errorf("siteverify was sent %v", first)
	}
	// The check cannot run: 503, and nothing is mailed.
	standIn.mu.Lock()
	standIn.fail = true
	standIn.mu.Unlock()
	resp := a.postJSON("/api/forgot_password", map[string]string{"loginId": "ravi@carriers.example", "recaptchaResponse": "good"})
	expectJSONError(t, resp, http.StatusServiceUnavailable, "captcha could not be checked")
}

func TestAccountOptionsValidate(t *testing.T) {
	for _, c := range []struct {
		opts AccountOptions
		want string
	}{
		{AccountOptions{BaseURL: "freight.example"}, "base URL"},
		{AccountOptions{BaseURL: "ftp://freight.example"}, "base URL"},
		{AccountOptions{BaseURL: "https://freight.example", SiteOrigins: []string{"https://pune.freight.example/path"}}, "site origin"},
		{AccountOptions{BaseURL: "https://freight.example", RecaptchaVerifyURL: "siteverify"}, "verify URL"},
	} {
		if err := c.opts.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error about the %s", c.opts, err, c.want)
		}
	}
	if err := (AccountOptions{BaseURL: "https://freight.example/site/", SiteOrigins: []string{"http://localhost:8080"}}).Validate(); err != nil {
		t.Error(err)
	}
}

func TestPasswordHash(t *testing.T) {
	ctx := context.Background()
	h1, err := hashPassword(ctx, "Cargo#777")
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := hashPassword(ctx, "Cargo#777")
	if h1 == h2 {
		t.Error("two hashes of one password are equal: no salt?")
	}
	for _, c := range []struct {
		hash, password string
		want           bool
	}{{h1, "Cargo#777", true}, {h1, "Cargo#778", false}, {h2, "Cargo#777", true}, {h1, "", false}} {
		if ok, err := checkPassword(ctx, c.hash, c.password); ok != c.want || err != nil {
			t.Errorf("check(%q): %v %v, want %v", c.password, ok, err, c.want)
		}
	}
	for _, bad := range []string{"", "$2a$12$bcrypt", "$argon2id$v=19$m=x$a$b", "$argon2id$v=19$m=19456,t=2,p=1$!!$!!"} {
		if _, err := checkPassword(ctx, bad, "x"); !errors.Is(err, errBadHash) {
			t.Errorf("hash %q: %v, want errBadHash", bad, err)
		}
	}
	start := time.Now()
	const n = 5
	for i := 0; i < n; i++ {
		checkPassword(ctx, h1, "Cargo#777")
	}
	t.Logf("argon2id (m=19 MiB, t=2, p=1): %v per check", time.Since(start)/n)
}

// BenchmarkPasswordCheck measures the hashing cost of one sign-in.
func BenchmarkPasswordCheck(b *testing.B) {
	ctx := context.Background()
	h, _ := hashPassword(ctx, "Cargo#777")
	for b.Loop() {
		checkPassword(ctx, h, "Cargo#777")
	}
}
