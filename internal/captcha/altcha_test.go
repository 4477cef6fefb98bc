package captcha

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"freightsite/internal/pgtest"
	"freightsite/internal/testkit"
)

// The tests spend solutions in a store on SQLite, and with
// FORMAPI_DB=postgres on PostgreSQL (pgtest).
func TestMain(m *testing.M) { pgtest.RunTests(m) }

// testClock is a clock the test moves forward.
// solved is a challenge with its solution, for building payloads by hand.
type solved struct {
	Challenge
	number int64
}

func solve(t *testing.T, c Challenge) solved {
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
	raw, _ := json.Marshal(map[string]any{"algorithm": s.Algorithm, "challenge": s.Challenge.Challenge, "number": s.number, "salt": s.Salt, "signature": s.Signature, "took": 12})
	return base64.StdEncoding.EncodeToString(raw)
}

// TestAltchaVerify: one row per way a payload can be wrong.
func TestAltchaVerify(t *testing.T) {
	clock := testkit.NewClock()
	st := testkit.OpenStore(t, pgtest.TestDB(t, "captcha.db"))
	defer st.Close()
	v := NewAltcha([]byte("a server secret of at least 32 characters"), 300, st, clock.Now)
	other := NewAltcha([]byte("another server's secret, also 32 characters"), 300, st, clock.Now)
	ctx := context.Background()

	good := solve(t, v.Issue())
	if err := v.Verify(ctx, good.payload(), ""); err != nil {
		t.Fatalf("a good solution: %v", err)
	}
	expectRefused := func(name, payload, why string) {
		t.Helper()
		err := v.Verify(ctx, payload, "")
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v, want refused (%s)", name, err, why)
		}
	}
	expectRefused("replayed", good.payload(), "already used")

	s := solve(t, v.Issue())
	forged := s
	forged.Signature = strings.Repeat("0", 64)
	expectRefused("bad signature", forged.payload(), "bad signature")
	foreign := solve(t, other.Issue())
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
	clock.Advance(Lifetime)
	expectRefused("expired", s.payload(), "expired")
}

// TestAltchaReplayRefusedAfterRestart: spent solutions are in the database,
// so a restart does not accept them again; they are dropped once expired.
func TestAltchaReplayRefusedAfterRestart(t *testing.T) {
	path := pgtest.TestDB(t, "captcha.db")
	secret := []byte("a server secret of at least 32 characters")
	clock := testkit.NewClock()
	st := testkit.OpenStore(t, path)
	s := solve(t, NewAltcha(secret, 300, st, clock.Now).Issue())
	if err := NewAltcha(secret, 300, st, clock.Now).Verify(context.Background(), s.payload(), ""); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st = testkit.OpenStore(t, path)
	defer st.Close()
	v := NewAltcha(secret, 300, st, clock.Now)
	if err := v.Verify(context.Background(), s.payload(), ""); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "already used") {
		t.Errorf("replay after a restart: %v", err)
	}
	clock.Advance(Lifetime + time.Second)
	if err := v.Verify(context.Background(), solve(t, v.Issue()).payload(), ""); err != nil {
		t.Fatal(err)
	}
	var n int
	st.TestQueryRow(`SELECT COUNT(*) FROM captcha_spent`).Scan(&n)
	if n != 1 {
		t.Errorf("%d spent solutions kept, want only the unexpired one", n)
	}
}
