package formapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"freightsite/internal/mail"
	"freightsite/internal/store"
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

// auctionRequest is the body of POST /api/publicTruckingAuctionForm.
type auctionRequest struct {
	MCNumber          string `json:"mcNumber"`
	CompanyName       string `json:"companyName"`
	ContactName       string `json:"contactName"`
	Email             string `json:"email"`
	Phone             string `json:"phone"`
	City              string `json:"city"`
	State             string `json:"state"`
	TruckCount        string `json:"truckCount"`
	EquipmentType     string `json:"equipmentType"`
	PreferredLanguage string `json:"preferredLanguage"`
}

// validate checks the form's rules and that the state is one of India's
// (states: key to name).
func (q auctionRequest) validate(rules formRules, states map[string]string) []fieldError {
	errs := rules.check(q)
	if len(errs) == 0 && states[q.State] == "" {
		errs = append(errs, fieldError{Field: "state", Message: "auction.errors.stateCode"})
	}
	return errs
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
	store   *store.Store
	site    siteInfo
	rules   formRules
	states  map[string]string // key: name
	baseURL string            // confirmation links start with it
	now     func() time.Time
}

func newAuction(s *store.Store, site siteInfo, rules formRules, states []keyValue, baseURL string, now func() time.Time) *auction {
	a := &auction{store: s, site: site, rules: rules, states: map[string]string{}, baseURL: baseURL, now: now}
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
		q, sent, err := decodeJSON[auctionRequest](r)
		if err != nil {
			return err
		}
		if errs := q.validate(a.rules, a.states); len(errs) > 0 {
			writeJSON(w, http.StatusBadRequest, map[string]any{"status": "failed", "errorMessageList": errs})
			return nil
		}
		trucks, _ := strconv.Atoi(q.TruckCount)
		mc := q.MCNumber
		proposed := store.AuctionDetails{CompanyName: q.CompanyName, ContactName: q.ContactName, Email: strings.ToLower(q.Email), Phone: q.Phone,
			City: q.City, State: q.State, TruckCount: trucks, EquipmentType: q.EquipmentType, Language: a.site.language(q.PreferredLanguage)}
		now := a.now()
		answer, err := storeOnce(r.Context(), a.store, submissionOf(r, sent, nil), now, func(tx *store.Tx) (kept, error) {
			created, err := tx.RegisterCarrier(mc, proposed, now)
			if err != nil {
				return kept{}, err
			}
			if created {
				return keptJSON(http.StatusCreated, map[string]any{"status": "success", "mcNumber": mc, "created": true}), nil
			}
			return keptJSON(http.StatusAccepted, map[string]any{"status": "pending", "mcNumber": mc}), a.proposeChange(tx, mc, proposed, q.PreferredLanguage != "", now)
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
// in the database: the registration's row is locked while its changes
// are counted (store.Tx.LockRegistration), so changes posted through
// several instances at once take turns.
func (a *auction) proposeChange(tx *store.Tx, mc string, proposed store.AuctionDetails, languageGiven bool, now time.Time) error {
	current, err := tx.LockRegistration(mc)
	if err != nil {
		return err
	}
	if !languageGiven {
		proposed.Language = current.Language
	}
	if proposed == current {
		return nil
	}
	waiting, recent, err := tx.AuctionChanges(mc, proposed, now)
	if err != nil {
		return err
	}
	if waiting > 0 || recent >= auctionMailsPerLifetime {
		return nil
	}
	token := randomToken(32)
	if err := tx.AddAuctionChange(mc, token, proposed, now, now.Add(auctionChangeLifetime)); err != nil {
		return err
	}
	return mail.Queue(tx, a.confirmationMail(mc, current, proposed, a.baseURL+"/api/publicTruckingAuctionForm/confirm?token="+token), now)
}

// confirmationMail goes to the address on file, in the carrier's language,
// and lists the details the change would register.
func (a *auction) confirmationMail(mc string, current, proposed store.AuctionDetails, link string) mail.Outgoing {
	lang := current.Language
	vars := map[string]string{"name": a.site.name, "mcNumber": mc}
	t := func(key string) string { return locales.T(lang, "auction."+key, vars) }
	var b strings.Builder
	b.WriteString(t("mail.intro") + "\n\n")
	for _, row := range a.detailRows(lang, proposed) {
		fmt.Fprintf(&b, "%s: %s\n", row[0], row[1])
	}
	b.WriteString("\n" + t("mail.open") + "\n\n" + link + "\n\n" + t("mail.ignore") + "\n")
	return mail.Outgoing{Kind: mail.Account, To: current.Email, Subject: t("mail.subject"), Body: b.String()}
}

// detailRows are the label and value of each detail, in lang.
func (a *auction) detailRows(lang string, d store.AuctionDetails) [][2]string {
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
		reg, found, err := a.store.RegistrationByMC(r.Context(), mc)
		if err != nil {
			return err
		}
		if !found {
			return &httpError{http.StatusNotFound, fmt.Sprintf("no carrier is registered under MC number %s", mc), "api.errors.notFound"}
		}
		writeJSON(w, http.StatusOK, auctionRegistration(reg))
		return nil
	})
}

// pendingChange is a change found by its link's token.
type pendingChange struct {
	mc       string
	proposed store.AuctionDetails
	language string // the carrier's, on file
	state    string // "waiting", "applied" or "expired" (also: unknown)
}

func (a *auction) changeByToken(ctx context.Context, token string) (pendingChange, error) {
	c := pendingChange{language: a.site.language(""), state: "expired"}
	if token == "" {
		return c, nil
	}
	found, ok, err := a.store.AuctionChangeByToken(ctx, token)
	if err != nil || !ok {
		return c, err
	}
	c.mc, c.proposed, c.language = found.MCNumber, found.Proposed, found.Language
	switch {
	case !a.now().Before(found.Expires):
	case found.Used:
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
		p := a.site.newPage(lang, t("confirm."+c.state+"Title"), "auction-confirm-page", postScript)
		p.T = map[string]string{"lead": t("confirm." + c.state), "mcNumber": t("fields.mcNumber"), "apply": t("confirm.apply"), "ignore": t("confirm.ignore")}
		p.Data = map[string]any{"State": c.state, "Token": token, "MCNumber": c.mc, "Rows": a.detailRows(lang, c.proposed)}
		status := http.StatusOK
		if c.state == "expired" {
			status = http.StatusNotFound
		}
		return writePage(w, status, auctionConfirmPage, p)
	})
}

func (a *auction) handleConfirm() http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		c, sent, err := decodeJSON[auctionConfirmRequest](r)
		if err != nil {
			return err
		}
		at := a.now()
		answer, err := storeOnce(r.Context(), a.store, submissionOf(r, sent, nil), at, func(tx *store.Tx) (kept, error) {
			mc, err := tx.ApplyAuctionChange(c.Token, at)
			return keptJSON(http.StatusOK, map[string]string{"status": "success", "mcNumber": mc}), err
		})
		if errors.Is(err, store.ErrSpent) {
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

// auctionConfirmRequest is the body of
// POST /api/publicTruckingAuctionForm/confirm.
type auctionConfirmRequest struct {
	Token string `json:"token"`
}
