package formapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// solved is a challenge with its solution, for building payloads by hand.
type solved struct {
	altchaChallenge
	number int64
}

func solve(t *testing.T, c altchaChallenge) solved {
	t.Helper()
	for n := 0; n <= c.MaxNumber; n++ {
		sum := sha256.Sum256([]byte(c.Salt + strconv.Itoa(n)))
		if hex.EncodeToString(sum[:]) == c.Challenge {
			return solved{c, int64(n)}
		}
	}
	t.Fatalf("unsolvable challenge %+v", c)
	return solved{}
}

func (s solved) payload() string {
	return altchaPayload(s.Algorithm, s.Challenge, s.number, s.Salt, s.Signature)
}

func openTestStore(t *testing.T, path string) *Store {
	t.Helper()
	s, err := OpenStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAltchaChallengeShape(t *testing.T) {
	a := newAccountsAPI(t)
	resp := a.get("/api/captcha/challenge")
	expectStatus(t, resp, http.StatusOK)
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("challenge Cache-Control %q, want no-store", cc)
	}
	c := decode[altchaChallenge](t, resp)
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

// TestAltchaVerify: one row per way a payload can be wrong.
func TestAltchaVerify(t *testing.T) {
	clock := newTestClock()
	store := openTestStore(t, testDB(t, "captcha.db"))
	defer store.Close()
	v := newAltcha([]byte("a server secret of at least 32 characters"), 300, store, clock.now)
	other := newAltcha([]byte("another server's secret, also 32 characters"), 300, store, clock.now)
	ctx := context.Background()

	good := solve(t, v.issue())
	if err := v.Verify(ctx, good.payload(), ""); err != nil {
		t.Fatalf("a good solution: %v", err)
	}
	expectRefused := func(name, payload, why string) {
		t.Helper()
		err := v.Verify(ctx, payload, "")
		if !errors.Is(err, errCaptchaRefused) || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v, want refused (%s)", name, err, why)
		}
	}
	expectRefused("replayed", good.payload(), "already used")

	s := solve(t, v.issue())
	forged := s
	forged.Signature = strings.Repeat("0", 64)
	expectRefused("bad signature", forged.payload(), "bad signature")
	foreign := solve(t, other.issue())
	expectRefused("signed by another server", foreign.payload(), "bad signature")
	wrong := s
	wrong.number = s.number + 1
	expectRefused("wrong solution", wrong.payload(), "wrong solution")
	negative := s
	negative.number = -1
	expectRefused("negative number", negative.payload(), "wrong solution")
	// Moving digits of the number into the salt would keep the hash and
	// push the expiry out; the salt's closing & forbids it.
	spliced := s
	spliced.Salt = s.Salt + strconv.FormatInt(s.number, 10)[:1]
	expectRefused("salt spliced with the number", spliced.payload(), "salt")
	sha1 := s
	sha1.Algorithm = "SHA-1"
	expectRefused("other algorithm", sha1.payload(), "algorithm")
	expectRefused("not base64", "%%%", "base64")
	expectRefused("not JSON", base64.StdEncoding.EncodeToString([]byte("[1,2]")), "JSON")
	expectRefused("too long", strings.Repeat("A", 4000), "too long")
	expectRefused("empty", "", "JSON")

	// Expired: 20 minutes after it was issued.
	clock.advance(altchaLifetime)
	expectRefused("expired", s.payload(), "expired")
}

// TestAltchaReplayRefusedAfterRestart: spent solutions are in the database,
// so a restart does not accept them again; they are dropped once expired.
func TestAltchaReplayRefusedAfterRestart(t *testing.T) {
	path := testDB(t, "captcha.db")
	secret := []byte("a server secret of at least 32 characters")
	clock := newTestClock()
	store := openTestStore(t, path)
	s := solve(t, newAltcha(secret, 300, store, clock.now).issue())
	if err := newAltcha(secret, 300, store, clock.now).Verify(context.Background(), s.payload(), ""); err != nil {
		t.Fatal(err)
	}
	store.Close()

	store = openTestStore(t, path)
	defer store.Close()
	v := newAltcha(secret, 300, store, clock.now)
	if err := v.Verify(context.Background(), s.payload(), ""); !errors.Is(err, errCaptchaRefused) || !strings.Contains(err.Error(), "already used") {
		t.Errorf("replay after a restart: %v", err)
	}
	clock.advance(altchaLifetime + time.Second)
	if err := v.Verify(context.Background(), solve(t, v.issue()).payload(), ""); err != nil {
		t.Fatal(err)
	}
	var n int
	store.read.QueryRow(`SELECT COUNT(*) FROM captcha_spent`).Scan(&n)
	if n != 1 {
		t.Errorf("%d spent solutions kept, want only the unexpired one", n)
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
		{AccountOptions{SiteOrigins: []string{"https://pune.freight.example/path"}}, "site origin"},
		{AccountOptions{RecaptchaVerifyURL: "siteverify"}, "verify URL"},
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
