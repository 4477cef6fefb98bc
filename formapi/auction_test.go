package formapi

import (
	"bytes"
	"encoding/json"
	"freightsite/internal/mail"
	"freightsite/internal/testkit"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func validAuction() map[string]string {
	return map[string]string{"mcNumber": "123456", "companyName": "Sahyadri Roadlines", "contactName": "Vikram Patil", "email": "vikram@sahyadri.in", "phone": "9823012345", "city": "Kolhapur", "state": "MH", "truckCount": "14", "equipmentType": "container"}
}

func TestAuctionRegistrationAndLookup(t *testing.T) {
	a := newTestAPI(t, unlimited())
	resp := a.postJSON("/api/publicTruckingAuctionForm", validAuction())
	expectStatus(t, resp, http.StatusCreated)
	if got := decode[map[string]any](t, resp); got["status"] != "success" || got["mcNumber"] != "123456" || got["created"] != true {
		t.Errorf("registration answered %v", got)
	}
	resp = a.get("/api/publicTruckingAuctionForm/fetchData?mcNumber=123456")
	expectStatus(t, resp, http.StatusOK)
	raw := bodyText(resp)
	for _, want := range []string{`"companyName":"Sahyadri Roadlines"`, `"truckCount":14`, `"state":"MH"`, `"equipmentType":"container"`} {
		if !strings.Contains(raw, want) {
			t.Errorf("lookup %s lacks %s", raw, want)
		}
	}
	for _, private := range []string{"vikram@sahyadri.in", "9823012345", "Vikram Patil"} {
		if strings.Contains(raw, private) {
			t.Errorf("the public lookup reveals %q", private)
		}
	}
	expectJSONError(t, a.get("/api/publicTruckingAuctionForm/fetchData?mcNumber=654321"), http.StatusNotFound, "no carrier")
	expectJSONError(t, a.get("/api/publicTruckingAuctionForm/fetchData?mcNumber=12345"), http.StatusBadRequest, "6 digits")
}

func TestAuctionRules(t *testing.T) {
	a := newTestAPI(t, unlimited())
	for _, c := range []struct{ field, value, message string }{
		{"mcNumber", "12345", "auction.errors.mcNumberDigits"},
		{"mcNumber", "", "auction.errors.mcNumberRequired"},
		{"contactName", " Vikram", "forms.nameLetters"},
		{"phone", "98230", "forms.phoneTenDigits"},
		{"city", "Kolhapur 2", "auction.errors.cityLetters"},
		{"state", "XX", "auction.errors.stateCode"},
		{"truckCount", "0", "auction.errors.truckCount"},
		{"equipmentType", "rocket", "auction.errors.equipmentType"},
	} {
		reg := validAuction()
		reg[c.field] = c.value
		resp := a.postJSON("/api/publicTruckingAuctionForm", reg)
		expectStatus(t, resp, http.StatusBadRequest)
		got := decode[map[string]any](t, resp)
		list, _ := got["errorMessageList"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["message"] != c.message {
			t.Errorf("%s=%q: %v, want %s", c.field, c.value, got, c.message)
		}
	}
	if n := a.count(`SELECT COUNT(*) FROM auction_registrations`); n != 0 {
		t.Errorf("%d invalid registrations stored", n)
	}
}

var auctionLink = regexp.MustCompile(`(https://freight\.example)/api/publicTruckingAuctionForm/confirm\?token=([A-Za-z0-9_-]{43})`)

// auctionMails are the confirmation mails in the outbox, oldest first:
// recipient, subject, token.
func (a *testAPI) auctionMails() [][3]string {
	a.t.Helper()
	rows, err := a.store.TestQuery(`SELECT recipient, subject, body, kind FROM outbox ORDER BY id`)
	if err != nil {
		a.t.Fatal(err)
	}
	defer rows.Close()
	var out [][3]string
	for rows.Next() {
		var to, subject, body, kind string
		rows.Scan(&to, &subject, &body, &kind)
		m := auctionLink.FindStringSubmatch(body)
		if m == nil || kind != string(mail.Account) {
			a.t.Fatalf("a %s mail without a confirmation link: %q", kind, body)
		}
		out = append(out, [3]string{to, subject, m[2]})
	}
	return out
}

// registered is the row on file for 123456: company, contact, e-mail,
// phone, language.
func (a *testAPI) registered() string {
	a.t.Helper()
	var company, contact, email, phone, lang string
	if err := a.store.TestQueryRow(`SELECT company_name, contact_name, email, phone, language FROM auction_registrations WHERE mc_number = '123456'`).Scan(&company, &contact, &email, &phone, &lang); err != nil {
		a.t.Fatal(err)
	}
	return strings.Join([]string{company, contact, email, phone, lang}, "|")
}

// TestAuctionChangeWaitsForTheMailedLink: whatever a post for a registered
// MC number changes (e-mail, phone, contact, company, everything), it
// changes nothing at once and answers the same 202 pending, whether or not
// it matches the details on file; the address on file gets a link, in the
// carrier's language, for each distinct change (identical re-posts mail
// nothing, and at most 3 a day); opening the link shows the change and
// changes nothing; confirming applies it once and cancels the others.
func TestAuctionChangeWaitsForTheMailedLink(t *testing.T) {
	clock := testkit.NewClock()
	a := newAccountsAPI(t, withClock(clock))
	first := validAuction()
	first["preferredLanguage"] = "ma"
	expectStatus(t, a.postJSON("/api/publicTruckingAuctionForm", first), http.StatusCreated)
	original := a.registered()
	if original != "Sahyadri Roadlines|Vikram Patil|vikram@sahyadri.in|9823012345|ma" {
		t.Fatalf("registered %q", original)
	}
	post := func(change map[string]string) {
		t.Helper()
		body := validAuction()
		for k, v := range change {
			body[k] = v
		}
		resp := a.postJSON("/api/publicTruckingAuctionForm", body)
		expectStatus(t, resp, http.StatusAccepted)
		if raw := strings.TrimSpace(bodyText(resp)); raw != `{"mcNumber":"123456","status":"pending"}` {
			t.Errorf("post %v answered %s", change, raw)
		}
		if got := a.registered(); got != original {
			t.Errorf("post %v changed the registration at once: %q", change, got)
		}
	}
	takeover := map[string]string{"companyName": "Evil Haulage", "contactName": "Mallory", "email": "mallory@evil.example", "phone": "9000000000", "city": "Pune", "truckCount": "99", "equipmentType": "open"}
	for _, change := range []map[string]string{
		nil, // the details on file: changes nothing
		{"email": "mallory@evil.example"},
		{"email": "mallory@evil.example"}, // the same again: idempotent
		takeover,
		{"phone": "9000000000", "preferredLanguage": "en"},
		{"contactName": "Mallory"}, // a fourth change within a day: no mail
		takeover,
	} {
		post(change)
	}
	mails := a.auctionMails()
	if len(mails) != auctionMailsPerLifetime {
		t.Fatalf("%d confirmation mails, want %d (one per distinct change, at most %d)", len(mails), auctionMailsPerLifetime, auctionMailsPerLifetime)
	}
	for _, m := range mails {
		if m[0] != "vikram@sahyadri.in" || !strings.Contains(m[1], "123456") || !strings.Contains(m[1], "लिलाव नोंदणी") {
			t.Errorf("confirmation mail to %s, subject %q: want the address on file, in Marathi", m[0], m[1])
		}
	}
	if n := a.count(`SELECT COUNT(*) FROM auction_changes`); n != auctionMailsPerLifetime {
		t.Errorf("%d changes kept, want %d", n, auctionMailsPerLifetime)
	}
	lookup := bodyText(a.get("/api/publicTruckingAuctionForm/fetchData?mcNumber=123456"))
	if !strings.Contains(lookup, "Sahyadri Roadlines") || strings.Contains(lookup, "Evil") {
		t.Errorf("the lookup shows an unconfirmed change: %s", lookup)
	}

	// Opening the takeover's link (as a mail scanner would) shows the
	// change in the carrier's language and changes nothing.
	takeoverToken := mails[1][2]
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		resp := a.do(method, "/api/publicTruckingAuctionForm/confirm?token="+takeoverToken, "", nil, nil)
		page := bodyText(resp)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s the link: %d %s", method, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if method == http.MethodGet {
			for _, want := range []string{`<html lang="mr"`, "Evil Haulage", "mallory@evil.example", "उघडी बॉडी", `name="token" value="` + takeoverToken + `"`, "हा बदल लागू करा"} {
				if !strings.Contains(page, want) {
					t.Errorf("the confirmation page lacks %q", want)
				}
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'sha256-") || !strings.Contains(csp, "default-src 'none'") {
				t.Errorf("page CSP %q", csp)
			}
		}
	}
	if got := a.registered(); got != original {
		t.Fatalf("opening the link changed the registration: %q", got)
	}

	// Confirming applies it, once; the other waiting changes are dropped.
	confirm := func(token string) (*http.Response, map[string]string) {
		t.Helper()
		resp := a.postJSON("/api/publicTruckingAuctionForm/confirm", map[string]string{"token": token})
		return resp, decode[map[string]string](t, resp)
	}
	if resp, got := confirm(takeoverToken); resp.StatusCode != http.StatusOK || got["status"] != "success" || got["mcNumber"] != "123456" {
		t.Fatalf("confirming: %d %v", resp.StatusCode, got)
	}
	if original = a.registered(); original != "Evil Haulage|Mallory|mallory@evil.example|9000000000|ma" {
		t.Errorf("after confirming: %q", original)
	}
	if lookup := bodyText(a.get("/api/publicTruckingAuctionForm/fetchData?mcNumber=123456")); !strings.Contains(lookup, `"truckCount":99`) {
		t.Errorf("the lookup after confirming: %s", lookup)
	}
	for _, token := range []string{takeoverToken, mails[0][2], mails[2][2], "forged-" + takeoverToken[7:], ""} {
		if resp, got := confirm(token); resp.StatusCode != http.StatusBadRequest || got["status"] != "tokenExpired" {
			t.Errorf("confirming %q again or after another: %d %v", token, resp.StatusCode, got)
		}
	}
	if page := bodyText(a.get("/api/publicTruckingAuctionForm/confirm?token=" + takeoverToken)); !strings.Contains(page, "बदल लागू झाला") {
		t.Error("the used link's page does not say the change was applied")
	}
	resp := a.get("/api/publicTruckingAuctionForm/confirm?token=" + mails[0][2])
	if page := bodyText(resp); resp.StatusCode != http.StatusNotFound || !strings.Contains(page, "ही लिंक आता चालत नाही") {
		t.Errorf("a cancelled link: %d", resp.StatusCode)
	}

	// A link works for 24 hours.
	clock.Advance(25 * time.Hour)
	post(map[string]string{"companyName": "Later Roadlines", "email": "mallory@evil.example"})
	mails = a.auctionMails()
	late := mails[len(mails)-1]
	if late[0] != "mallory@evil.example" {
		t.Errorf("the next change went to %s, not the address now on file", late[0])
	}
	clock.Advance(auctionChangeLifetime + time.Second)
	if resp, got := confirm(late[2]); resp.StatusCode != http.StatusBadRequest || got["status"] != "tokenExpired" {
		t.Errorf("confirming after 24 hours: %d %v", resp.StatusCode, got)
	}
}

// TestAuctionConfirmationIsSingleUseUnderRace: of many requests racing
// with one link, exactly one applies the change.
func TestAuctionConfirmationIsSingleUseUnderRace(t *testing.T) {
	a := newAccountsAPI(t)
	expectStatus(t, a.postJSON("/api/publicTruckingAuctionForm", validAuction()), http.StatusCreated)
	change := validAuction()
	change["truckCount"] = "20"
	expectStatus(t, a.postJSON("/api/publicTruckingAuctionForm", change), http.StatusAccepted)
	token := a.auctionMails()[0][2]
	a.token()
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for range 8 {
		wg.Go(func() {
			resp := a.postJSON("/api/publicTruckingAuctionForm/confirm", map[string]string{"token": token})
			resp.Body.Close()
			mu.Lock()
			statuses[resp.StatusCode]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if statuses[http.StatusOK] != 1 || statuses[http.StatusBadRequest] != 7 {
		t.Errorf("answers %v, want one 200 and seven 400", statuses)
	}
}

// TestAuctionMailCapHoldsAcrossInstances: distinct changes to one MC
// number posted all at once through two instances of the server on one
// database mail the carrier no more than the cap; every post answers 202.
func TestAuctionMailCapHoldsAcrossInstances(t *testing.T) {
	a := newAccountsAPI(t)
	b := newTestAPIOn(t, a.db, unlimited(), withAccounts(AccountOptions{BaseURL: "https://freight.example"}))
	expectStatus(t, a.postJSON("/api/publicTruckingAuctionForm", validAuction()), http.StatusCreated)
	for round := range 3 {
		tokens := []string{a.token(), b.token()}
		var wg sync.WaitGroup
		var mu sync.Mutex
		statuses := map[int]int{}
		start := make(chan struct{})
		for i := range 8 {
			api := []*testAPI{a, b}[i%2]
			change := validAuction()
			change["truckCount"] = strconv.Itoa(100*round + i + 20)
			body, _ := json.Marshal(change)
			wg.Go(func() {
				<-start
				req, _ := http.NewRequest(http.MethodPost, api.srv.URL+"/api/publicTruckingAuctionForm", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(xsrfHeader, tokens[i%2])
				status := 0
				if resp, err := api.client.Do(req); err == nil {
					resp.Body.Close()
					status = resp.StatusCode
				}
				mu.Lock()
				statuses[status]++
				mu.Unlock()
			})
		}
		close(start)
		wg.Wait()
		if statuses[http.StatusAccepted] != 8 {
			t.Errorf("round %d: answers %v, want eight 202", round+1, statuses)
		}
		if n := len(a.auctionMails()); n != auctionMailsPerLifetime {
			t.Fatalf("round %d: %d confirmation mails, want %d", round+1, n, auctionMailsPerLifetime)
		}
	}
}
