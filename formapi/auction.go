package formapi

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// The public trucking auction registration (SPEC §7 leaves its body open):
// a carrier registers, or updates its registration, under its 6-digit MC
// number; fields and rules are forms.json's "auction" form. The lookup
// answers only what a carrier would publish (no contact name, e-mail or
// phone), since anyone can call it.

// auctionRegistration is what the lookup answers.
type auctionRegistration struct {
	MCNumber      string `json:"mcNumber"`
	CompanyName   string `json:"companyName"`
	City          string `json:"city"`
	State         string `json:"state"`
	TruckCount    int    `json:"truckCount"`
	EquipmentType string `json:"equipmentType"`
	RegisteredAt  string `json:"registeredAt"`
	UpdatedAt     string `json:"updatedAt"`
}

var mcNumberPattern = regexp.MustCompile(`^[0-9]{6}$`)

// handleAuctionRegister answers POST /api/publicTruckingAuctionForm.
func handleAuctionRegister(store *Store, rules formRules, states []keyValue, now func() time.Time) http.Handler {
	known := map[string]bool{}
	for _, s := range states {
		known[s.Key] = true
	}
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		f, err := decodeFields(r, rules)
		if err != nil {
			return err
		}
		errs := rules.validate(f)
		if len(errs) == 0 && !known[f["state"]] {
			errs = append(errs, fieldError{Field: "state", Message: "auction.errors.stateCode"})
		}
		if len(errs) > 0 {
			writeJSON(w, http.StatusBadRequest, map[string]any{"status": "failed", "errorMessageList": errs})
			return nil
		}
		trucks, _ := strconv.Atoi(f["truckCount"])
		at := timestamp(now())
		created := false
		err = store.write(r.Context(), func(tx *sql.Tx) error {
			res, err := tx.Exec(`INSERT INTO auction_registrations (mc_number, company_name, contact_name, email, phone, city, state, truck_count, equipment_type, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (mc_number) DO NOTHING`,
				f["mcNumber"], f["companyName"], f["contactName"], f["email"], f["phone"], f["city"], f["state"], trucks, f["equipmentType"], at, at)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				created = true
				return nil
			}
			_, err = tx.Exec(`UPDATE auction_registrations SET company_name = ?, contact_name = ?, email = ?, phone = ?, city = ?, state = ?, truck_count = ?, equipment_type = ?, updated_at = ? WHERE mc_number = ?`,
				f["companyName"], f["contactName"], f["email"], f["phone"], f["city"], f["state"], trucks, f["equipmentType"], at, f["mcNumber"])
			return err
		})
		if err != nil {
			return err
		}
		status := http.StatusOK
		if created {
			status = http.StatusCreated
		}
		writeJSON(w, status, map[string]any{"status": "success", "mcNumber": f["mcNumber"], "created": created})
		return nil
	})
}

// handleAuctionFetch answers GET /api/publicTruckingAuctionForm/fetchData?mcNumber=.
func handleAuctionFetch(store *Store) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		mc := r.URL.Query().Get("mcNumber")
		if !mcNumberPattern.MatchString(mc) {
			return &httpError{http.StatusBadRequest, "mcNumber must be exactly 6 digits", "auction.errors.mcNumberDigits"}
		}
		var a auctionRegistration
		err := store.read.QueryRowContext(r.Context(), `SELECT mc_number, company_name, city, state, truck_count, equipment_type, created_at, updated_at FROM auction_registrations WHERE mc_number = ?`, mc).
			Scan(&a.MCNumber, &a.CompanyName, &a.City, &a.State, &a.TruckCount, &a.EquipmentType, &a.RegisteredAt, &a.UpdatedAt)
		if errors.Is(err, sql.ErrNoRows) {
			return &httpError{http.StatusNotFound, fmt.Sprintf("no carrier is registered under MC number %s", mc), "api.errors.notFound"}
		}
		if err != nil {
			return storageError(err)
		}
		writeJSON(w, http.StatusOK, a)
		return nil
	})
}
