package formapi

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"freightsite/data"
	"freightsite/locales"
)

// The public trucking auction registration (SPEC §7 leaves its body open):
// a carrier registers under its 6-digit MC number; fields and rules are
// forms.json's "auction" form. The lookup answers only what a carrier
// would publish (no contact name, e-mail or phone), since anyone can call
// it. The MC number is public, so a post for a registered number changes
// nothing at once: the change waits, and a single-use link mailed to the
// address on file, in the carrier's language, applies it within 24 hours
// (a page that asks for a click, so a mail scanner opening the link
// changes nothing).

// auctionDetails is what a carrier registers under its MC number; its
// JSON is how a change waiting for confirmation is kept.
type auctionDetails struct {
	CompanyName   string `json:"companyName"`
	ContactName   string `json:"contactName"`
	Email         string `json:"email"`
	Phone         string `json:"phone"`
	City          string `json:"city"`
	State         string `json:"state"`
	TruckCount    int    `json:"truckCount"`
	EquipmentType string `json:"equipmentType"`
	Language      string `json:"preferredLanguage"`
}

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

const (
	// auctionChangeLifetime is how long a confirmation link works.
	auctionChangeLifetime = 24 * time.Hour
	// auctionMailsPerLifetime caps the confirmation mails one MC number
	// gets within a link's lifetime, so nobody can flood a carrier's inbox
	// through the form; further changes still answer "pending".
	auctionMailsPerLifetime = 3
)

var mcNumberPattern = regexp.MustCompile(`^[0-9]{6}$`)

// auction holds what the auction handlers share.
type auction struct {
	store   *Store
	rules   formRules
	states  map[string]string // key: name
	baseURL string            // confirmation links start with it
	now     func() time.Time
}

func newAuction(store *Store, rules formRules, states []keyValue, baseURL string, now func() time.Time) *auction {
	a := &auction{store: store, rules: rules, states: map[string]string{}, baseURL: baseURL, now: now}
	for _, s := range states {
		a.states[s.Key] = s.Value
	}
	return a
}

// handleRegister answers POST /api/publicTruckingAuctionForm: 201
// {"status":"success","mcNumber","created":true} for a new MC number;
// for a registered one 202 {"status":"pending","mcNumber"} whatever the
// post holds (the answer tells nothing about the details on file), after
// mailing a confirmation link when the post changes something. A post
// that changes nothing, or repeats a change still waiting, mails nothing.
func (a *auction) handleRegister() http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		f, err := decodeFields(r, a.rules, "preferredLanguage")
		if err != nil {
			return err
		}
		errs := a.rules.validate(f)
		if len(errs) == 0 && a.states[f["state"]] == "" {
			errs = append(errs, fieldError{Field: "state", Message: "auction.errors.stateCode"})
		}
		if len(errs) > 0 {
			writeJSON(w, http.StatusBadRequest, map[string]any{"status": "failed", "errorMessageList": errs})
			return nil
		}
		trucks, _ := strconv.Atoi(f["truckCount"])
		mc := f["mcNumber"]
		proposed := auctionDetails{CompanyName: f["companyName"], ContactName: f["contactName"], Email: strings.ToLower(f["email"]), Phone: f["phone"],
			City: f["city"], State: f["state"], TruckCount: trucks, EquipmentType: f["equipmentType"]}
		proposed.Language = language(f["preferredLanguage"])
		now := a.now()
		sub := submissionOf(r, f, nil)
		var answer kept
		err = a.store.write(r.Context(), func(tx *sql.Tx) error {
			if done, err := sub.claim(tx, now, &answer); done || err != nil {
				return err
			}
			res, err := tx.Exec(`INSERT INTO auction_registrations (mc_number, company_name, contact_name, email, phone, city, state, truck_count, equipment_type, language, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (mc_number) DO NOTHING`,
				mc, proposed.CompanyName, proposed.ContactName, proposed.Email, proposed.Phone, proposed.City, proposed.State, proposed.TruckCount, proposed.EquipmentType, proposed.Language, timestamp(now), timestamp(now))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				answer = keptJSON(http.StatusCreated, map[string]any{"status": "success", "mcNumber": mc, "created": true})
			} else if err := a.proposeChange(tx, mc, proposed, f["preferredLanguage"] != "", now); err != nil {
				return err
			} else {
				answer = keptJSON(http.StatusAccepted, map[string]any{"status": "pending", "mcNumber": mc})
			}
			return sub.remember(tx, answer)
		})
		if err != nil {
			return err
		}
		answer.send(w)
		return nil
	})
}

// proposeChange keeps a change to a registered MC number and mails its
// confirmation link, unless it changes nothing, repeats a change still
// waiting, or the number had its share of mails for now. The cap holds
// in the database: the registration's row is locked (on PostgreSQL;
// SQLite's write lock holds the whole file) while its changes are
// counted, so changes posted through several instances at once take turns.
func (a *auction) proposeChange(tx *sql.Tx, mc string, proposed auctionDetails, languageGiven bool, now time.Time) error {
	current, err := registeredDetails(tx, mc, a.store.pg)
	if err != nil {
		return err
	}
	if !languageGiven {
		proposed.Language = current.Language
	}
	if proposed == current {
		return nil
	}
	fields, _ := json.Marshal(proposed)
	if _, err := tx.Exec(`DELETE FROM auction_changes WHERE expires_at <= ?`, timestamp(now)); err != nil {
		return err
	}
	var waiting, recent int
	if err := tx.QueryRow(`SELECT COUNT(*) FILTER (WHERE fields = ? AND used_at IS NULL), COUNT(*) FROM auction_changes WHERE mc_number = ?`, string(fields), mc).Scan(&waiting, &recent); err != nil {
		return err
	}
	if waiting > 0 || recent >= auctionMailsPerLifetime {
		return nil
	}
	token := randomToken(32)
	if _, err := tx.Exec(`INSERT INTO auction_changes (token_hash, mc_number, fields, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
		sha256Hex(token), mc, string(fields), timestamp(now), timestamp(now.Add(auctionChangeLifetime))); err != nil {
		return err
	}
	return queueMail(tx, a.confirmationMail(mc, current, proposed, a.baseURL+"/api/publicTruckingAuctionForm/confirm?token="+token), now)
}

// registeredDetails reads what is on file for an MC number, locking its
// row until the transaction ends when lock is set (PostgreSQL only).
func registeredDetails(q interface {
	QueryRow(string, ...any) *sql.Row
}, mc string, lock bool) (auctionDetails, error) {
	forUpdate := ""
	if lock {
		forUpdate = " FOR UPDATE"
	}
	var d auctionDetails
	err := q.QueryRow(`SELECT company_name, contact_name, email, phone, city, state, truck_count, equipment_type, language FROM auction_registrations WHERE mc_number = ?`+forUpdate, mc).
		Scan(&d.CompanyName, &d.ContactName, &d.Email, &d.Phone, &d.City, &d.State, &d.TruckCount, &d.EquipmentType, &d.Language)
	return d, err
}

// confirmationMail goes to the address on file, in the carrier's language,
// and lists the details the change would register.
func (a *auction) confirmationMail(mc string, current, proposed auctionDetails, link string) outgoing {
	lang := current.Language
	vars := map[string]string{"name": data.Site().Name, "mcNumber": mc}
	t := func(key string) string { return locales.T(lang, "auction."+key, vars) }
	var b strings.Builder
	b.WriteString(t("mail.intro") + "\n\n")
	for _, row := range a.detailRows(lang, proposed) {
		fmt.Fprintf(&b, "%s: %s\n", row[0], row[1])
	}
	b.WriteString("\n" + t("mail.open") + "\n\n" + link + "\n\n" + t("mail.ignore") + "\n")
	return outgoing{kind: MailAccount, to: current.Email, subject: t("mail.subject"), body: b.String()}
}

// detailRows are the label and value of each detail, in lang.
func (a *auction) detailRows(lang string, d auctionDetails) [][2]string {
	t := func(key string) string { return locales.T(lang, "auction."+key, nil) }
	state := d.State
	if name := a.states[d.State]; name != "" {
		state = name + " (" + d.State + ")"
	}
	return [][2]string{
		{t("fields.companyName"), d.CompanyName},
		{t("fields.contactName"), d.ContactName},
		{t("fields.email"), d.Email},
		{t("fields.phone"), d.Phone},
		{t("fields.city"), d.City},
		{t("fields.state"), state},
		{t("fields.truckCount"), strconv.Itoa(d.TruckCount)},
		{t("fields.equipmentType"), t("equipment." + d.EquipmentType)},
	}
}

// handleFetch answers GET /api/publicTruckingAuctionForm/fetchData?mcNumber=.
func (a *auction) handleFetch() http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		q, err := query(r)
		if err != nil {
			return err
		}
		mc := q.Get("mcNumber")
		if !mcNumberPattern.MatchString(mc) {
			return &httpError{http.StatusBadRequest, "mcNumber must be exactly 6 digits", "auction.errors.mcNumberDigits"}
		}
		var reg auctionRegistration
		err = a.store.read.QueryRowContext(r.Context(), `SELECT mc_number, company_name, city, state, truck_count, equipment_type, created_at, updated_at FROM auction_registrations WHERE mc_number = ?`, mc).
			Scan(&reg.MCNumber, &reg.CompanyName, &reg.City, &reg.State, &reg.TruckCount, &reg.EquipmentType, &reg.RegisteredAt, &reg.UpdatedAt)
		if errors.Is(err, sql.ErrNoRows) {
			return &httpError{http.StatusNotFound, fmt.Sprintf("no carrier is registered under MC number %s", mc), "api.errors.notFound"}
		}
		if err != nil {
			return storageError(err)
		}
		writeJSON(w, http.StatusOK, reg)
		return nil
	})
}

// pendingChange is a change found by its link's token.
type pendingChange struct {
	mc       string
	proposed auctionDetails
	language string // the carrier's, on file
	state    string // "waiting", "applied" or "expired" (also: unknown)
}

func (a *auction) changeByToken(ctx context.Context, token string) (pendingChange, error) {
	c := pendingChange{language: language(""), state: "expired"}
	if token == "" {
		return c, nil
	}
	var fields, expires string
	var used sql.NullString
	err := a.store.read.QueryRowContext(ctx, `SELECT c.mc_number, c.fields, c.expires_at, c.used_at, r.language
		FROM auction_changes c JOIN auction_registrations r ON r.mc_number = c.mc_number WHERE c.token_hash = ?`, sha256Hex(token)).
		Scan(&c.mc, &fields, &expires, &used, &c.language)
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil
	}
	if err != nil {
		return c, storageError(err)
	}
	if err := json.Unmarshal([]byte(fields), &c.proposed); err != nil {
		return c, err
	}
	switch {
	case expires <= timestamp(a.now()):
	case used.Valid:
		c.state = "applied"
	default:
		c.state = "waiting"
	}
	return c, nil
}

var auctionConfirmPage = pageTemplate(`<h1>{{.Title}}</h1>
<p class="lead">{{.T.lead}}</p>
{{if ne .Data.State "expired"}}<dl class="facts">
<dt>{{.T.mcNumber}}</dt><dd>{{.Data.MCNumber}}</dd>
{{range .Data.Rows}}<dt>{{index . 0}}</dt><dd>{{index . 1}}</dd>
{{end}}</dl>{{end}}
{{if eq .Data.State "waiting"}}<form method="post" action="/api/publicTruckingAuctionForm/confirm" data-api>
<input type="hidden" name="token" value="{{.Data.Token}}">
<button type="submit" class="button">{{.T.apply}}</button>
</form>
<p>{{.T.ignore}}</p>{{end}}`)

// handleConfirmPage answers the mailed link
// (GET /api/publicTruckingAuctionForm/confirm?token=): a page in the
// carrier's language that shows the change and applies it only when the
// carrier presses its button; opening the link changes nothing. A used
// link says the change was applied, an unknown or expired one (404) that
// nothing changed.
func (a *auction) handleConfirmPage() http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		q, err := query(r)
		if err != nil {
			return err
		}
		token := q.Get("token")
		c, err := a.changeByToken(r.Context(), token)
		if err != nil {
			return err
		}
		lang := c.language
		t := func(key string) string { return locales.T(lang, "auction."+key, map[string]string{"mcNumber": c.mc}) }
		p := newPage(lang, t("confirm."+c.state+"Title"), "auction-confirm-page", postScript)
		p.T = map[string]string{"lead": t("confirm." + c.state), "mcNumber": t("fields.mcNumber"), "apply": t("confirm.apply"), "ignore": t("confirm.ignore")}
		p.Data = map[string]any{"State": c.state, "Token": token, "MCNumber": c.mc, "Rows": a.detailRows(lang, c.proposed)}
		status := http.StatusOK
		if c.state == "expired" {
			status = http.StatusNotFound
		}
		return writePage(w, status, auctionConfirmPage, p)
	})
}

var errAuctionChangeSpent = errors.New("auction change used or expired")

// handleConfirm applies a change (POST /api/publicTruckingAuctionForm/confirm,
// {"token"}): 200 {"status":"success","mcNumber"}; 400
// {"status":"tokenExpired"} for a token that is unknown, used or older
// than 24 hours. Applying one change ends the others still waiting for
// that MC number.
func (a *auction) handleConfirm() http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		f, err := decodeFields(r, nil, "token")
		if err != nil {
			return err
		}
		at := a.now()
		now := timestamp(at)
		var mc string
		sub := submissionOf(r, f, nil)
		var answer kept
		err = a.store.write(r.Context(), func(tx *sql.Tx) error {
			if done, err := sub.claim(tx, at, &answer); done || err != nil {
				return err
			}
			// Using the token is the guard: of two requests racing with one
			// link, only the first finds it unused.
			var fields string
			err := tx.QueryRow(`UPDATE auction_changes SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING mc_number, fields`,
				now, sha256Hex(f["token"]), now).Scan(&mc, &fields)
			if errors.Is(err, sql.ErrNoRows) {
				return errAuctionChangeSpent
			}
			if err != nil {
				return err
			}
			var d auctionDetails
			if err := json.Unmarshal([]byte(fields), &d); err != nil {
				return err
			}
			if _, err := tx.Exec(`UPDATE auction_registrations SET company_name = ?, contact_name = ?, email = ?, phone = ?, city = ?, state = ?, truck_count = ?, equipment_type = ?, language = ?, updated_at = ? WHERE mc_number = ?`,
				d.CompanyName, d.ContactName, d.Email, d.Phone, d.City, d.State, d.TruckCount, d.EquipmentType, d.Language, now, mc); err != nil {
				return err
			}
			// The others end now: their links say so in the carrier's
			// language until they are cleared out with other expired ones.
			if _, err := tx.Exec(`UPDATE auction_changes SET expires_at = ? WHERE mc_number = ? AND used_at IS NULL`, now, mc); err != nil {
				return err
			}
			answer = keptJSON(http.StatusOK, map[string]string{"status": "success", "mcNumber": mc})
			return sub.remember(tx, answer)
		})
		if errors.Is(err, errAuctionChangeSpent) {
			writeJSON(w, http.StatusBadRequest, statusAnswer{Status: "tokenExpired"})
			return nil
		}
		if err != nil {
			return err
		}
		answer.send(w)
		return nil
	})
}
