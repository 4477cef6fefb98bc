package e2e

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// postAuction posts an auction registration as a script would and
// returns the answer's status.
func postAuction(t *testing.T, fields map[string]string) int {
	t.Helper()
	token := xsrfToken(t, baseURL)
	body, _ := json.Marshal(fields)
	req, _ := http.NewRequest(http.MethodPost, baseURL+"/api/publicTruckingAuctionForm", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-XSRF-TOKEN", token)
	req.AddCookie(&http.Cookie{Name: "XSRF-TOKEN", Value: token})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

var confirmLink = regexp.MustCompile(`https?://\S+/api/publicTruckingAuctionForm/confirm\?token=[A-Za-z0-9_-]+`)

// TestAuctionConfirmationPage: a change to a registered MC number mails
// the carrier a link; the page it opens, in the carrier's language, shows
// the change without applying it; its button applies it (with the
// anti-forgery header, from the page's own script under its CSP) and the
// page then says so.
func TestAuctionConfirmationPage(t *testing.T) {
	registration := map[string]string{"mcNumber": "471100", "companyName": "Godavari Carriers", "contactName": "Sunita Rao", "email": "sunita@godavari.example",
		"phone": "9823012345", "city": "Nashik", "state": "MH", "truckCount": "8", "equipmentType": "tanker", "preferredLanguage": "hi"}
	if s := postAuction(t, registration); s != http.StatusCreated {
		t.Fatalf("registering: %d", s)
	}
	registration["truckCount"] = "12"
	registration["equipmentType"] = "refrigerated"
	if s := postAuction(t, registration); s != http.StatusAccepted {
		t.Fatalf("changing: %d, want 202", s)
	}
	var body string
	if err := siteDB(t).QueryRow(`SELECT body FROM outbox WHERE recipient = 'sunita@godavari.example' AND kind = 'account' ORDER BY id DESC LIMIT 1`).Scan(&body); err != nil {
		t.Fatal(err)
	}
	link, err := url.Parse(confirmLink.FindString(body))
	if err != nil || link.Host == "" || !strings.Contains(body, tr(t, "hi", "auction.mail.open")) {
		t.Fatalf("no confirmation link in Hindi in %q", body)
	}
	trucks := func() int {
		return countRows(t, `SELECT truck_count FROM auction_registrations WHERE mc_number = '471100'`)
	}

	p := newPage(t)
	p.open(link.RequestURI())
	if got := eval[string](p, `document.documentElement.lang + ' ' + document.querySelector('h1').textContent`); got != "hi "+tr(t, "hi", "auction.confirm.waitingTitle") {
		t.Errorf("confirmation page: %q", got)
	}
	if text := eval[string](p, `document.querySelector('main').textContent`); !strings.Contains(text, tr(t, "hi", "auction.equipment.refrigerated")) || !strings.Contains(text, "12") {
		t.Errorf("the page does not show the change: %q", text)
	}
	if n := trucks(); n != 8 {
		t.Fatalf("opening the link changed the registration (%d trucks)", n)
	}
	p.expectAccessible()
	p.screenshot("auction-confirm-hi")
	p.click(`form[data-api] button[type=submit]`)
	p.waitFor(`document.querySelector('h1')?.textContent === ` + jsString(tr(t, "hi", "auction.confirm.appliedTitle")))
	if n := trucks(); n != 12 {
		t.Errorf("after confirming: %d trucks, want 12", n)
	}
	p.expectAccessible()
	p.expectNoConsoleErrors()
	p.screenshot("auction-confirmed-hi")
}
