package formapi

import (
	"fmt"
	"freightsite/internal/store"
	"freightsite/internal/testkit"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestTwoInstancesShareTheDatabase runs two servers on one database, as
// two `freightsite api` processes behind nginx (with FORMAPI_DB=postgres,
// on one PostgreSQL database; otherwise on one SQLite file). The browser
// is the same (one cookie jar for both): a session made through one works
// through the other; the sign-in throttle counts failures made through
// both; a captcha solution spent through one is refused by the other;
// news added through one shows through the other; and with both mail
// senders running, each queued mail reaches the SMTP server exactly once.
func TestTwoInstancesShareTheDatabase(t *testing.T) {
	clock := testkit.NewClock()
	opts := []apiOption{withClock(clock), withAccounts(AccountOptions{BaseURL: "https://freight.example", SignInLockout: time.Minute})}
	a := newAccountsAPI(t, opts...)
	b := newTestAPIOn(t, a.db, append([]apiOption{unlimited()}, opts...)...)
	b.client = a.client

	// Sessions.
	a.register("ravi@carriers.example", "Cargo#777")
	if resp, got := a.signIn("ravi@carriers.example", "Cargo#777", false); resp.StatusCode != http.StatusOK || !got.Success {
		t.Fatalf("sign-in through the first: %d %+v", resp.StatusCode, got)
	}
	resp := b.get("/secure/entry")
	expectStatus(t, resp, http.StatusOK)
	if page := bodyText(resp); !strings.Contains(page, "ravi@carriers.example") {
		t.Error("the second instance does not know the session made through the first")
	}

	// The throttle: failures alternate between the instances and still
	// lock at the limit, on both.
	for i := range limitAccountAddress {
		api := []*testAPI{a, b}[i%2]
		if resp, got := api.signIn("ravi@carriers.example", fmt.Sprintf("guess%d", i), false); resp.StatusCode != http.StatusUnauthorized || got.Status != statusSignInFailed {
			t.Fatalf("guess %d: %d %+v", i, resp.StatusCode, got)
		}
	}
	for _, api := range []*testAPI{a, b} {
		if resp, got := api.signIn("ravi@carriers.example", "Cargo#777", false); resp.StatusCode != http.StatusTooManyRequests || got.Status != statusSignInLocked {
			t.Errorf("after %d failures spread over both instances: %d %+v, want 429 LOGIN.LOCKED", limitAccountAddress, resp.StatusCode, got)
		}
	}

	// Captcha solutions are spent for both.
	solution := a.solveCaptcha()
	p := a.registration("asha@carriers.example")
	p["recaptchaResponse"] = solution
	expectStatus(t, a.postJSON("/api/registration", p), http.StatusOK)
	p = b.registration("meera@carriers.example")
	p["recaptchaResponse"] = solution
	resp = b.postJSON("/api/registration", p)
	if got := decode[statusAnswer](t, resp); resp.StatusCode != http.StatusBadRequest || len(got.ErrorMessageList) != 1 || got.ErrorMessageList[0].Message != "captcha.refused" {
		t.Errorf("a solution spent through the first, replayed through the second: %d %+v", resp.StatusCode, got)
	}

	// News added through one instance's store shows through the other's
	// cached feed.
	before := bodyText(b.get("/api/news"))
	if _, err := a.store.AddNews(t.Context(), store.NewsItem{Title: "Port strike ends", Content: "Work resumed at JNPT.", PostedAt: clock.Now()}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for after := before; !strings.Contains(after, "Port strike ends"); after = bodyText(b.get("/api/news")) {
		if time.Now().After(deadline) {
			t.Fatal("the second instance's news feed never showed the item added through the first")
		}
		time.Sleep(5 * time.Millisecond)
	}

	// Mail: both senders run while both instances queue notifications.
	smtpServer := startSMTP(t)
	a.runMail(smtpServer)
	b.runMail(smtpServer)
	const posts = 40
	var wg sync.WaitGroup
	for i := range posts {
		wg.Go(func() {
			api := []*testAPI{a, b}[i%2]
			resp := api.postJSON("/api/contact_us", map[string]string{"name": "Asha", "email": "asha@example.com", "subject": fmt.Sprintf("post %d", i), "message": "Rates to Pune?"})
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("post %d: %d", i, resp.StatusCode)
			}
		})
	}
	wg.Wait()
	a.waitOutboxDone()
	seen := map[string]int{}
	for _, m := range smtpServer.received() {
		if text := strings.ReplaceAll(mailText(t, m.data), "\r\n", "\n"); strings.Contains(text, "contact form") {
			for i := range posts {
				if strings.Contains(text, fmt.Sprintf("Subject: post %d\n", i)) {
					seen[fmt.Sprint(i)]++
				}
			}
		}
	}
	for i := range posts {
		if n := seen[fmt.Sprint(i)]; n != 1 {
			t.Errorf("the notification of post %d was delivered %d times, want once", i, n)
		}
	}
}
