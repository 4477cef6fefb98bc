package formapi

import (
	"net/http"
	"strings"
	"testing"
)

func validAuction() map[string]string {
	return map[string]string{"mcNumber": "123456", "companyName": "Sahyadri Roadlines", "contactName": "Vikram Patil", "email": "vikram@sahyadri.in", "phone": "9823012345", "city": "Kolhapur", "state": "MH", "truckCount": "14", "equipmentType": "container"}
}

func TestAuctionRegistrationAndLookup(t *testing.T) {
	a := newTestAPI(t, unlimited())
	resp := a.postJSON("/api/publicTruckingAuctionForm", validAuction())
	expectStatus(t, resp, http.StatusCreated)
	reg := validAuction()
	reg["truckCount"] = "20"
	expectStatus(t, a.postJSON("/api/publicTruckingAuctionForm", reg), http.StatusOK)
	if n := a.count(`SELECT COUNT(*) FROM auction_registrations`); n != 1 {
		t.Errorf("%d registrations for one MC number", n)
	}
	resp = a.get("/api/publicTruckingAuctionForm/fetchData?mcNumber=123456")
	expectStatus(t, resp, http.StatusOK)
	raw := bodyText(resp)
	for _, want := range []string{`"companyName":"Sahyadri Roadlines"`, `"truckCount":20`, `"state":"MH"`, `"equipmentType":"container"`} {
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
