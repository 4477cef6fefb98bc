package formapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"freightsite/receivables"
)

// Body limits: a form is a few kilobytes of text; feedback may carry a
// 5,000,000-byte attachment plus its fields.
const (
	formBodyLimit     = 32 << 10
	feedbackBodyLimit = maxAttachment + 256<<10
)

// Paths are the URL paths the API answers, for what puts it beside a
// static host on one origin (deploy/nginx.conf, the _redirects of the
// build): a path ending in / stands for everything under it. A test walks
// the router to keep it complete.
var Paths = []string{"/api/", "/rest/", "/countries", "/states", "/public_totals.json", "/auth", "/token/generate-token", "/secure/entry", "/hi/secure/entry", "/ma/secure/entry", "/healthz", "/readyz"}

// BodyLimits are the largest request bodies the API reads, by path; ""
// stands for every other call. deploy/nginx.conf sets the same limits.
var BodyLimits = map[string]int64{
	"":                     formBodyLimit,
	"/api/error_feedback":  feedbackBodyLimit,
	"/api/import/validate": receivables.Format.MaxFileBytes + multipartSlack,
	"/api/import/fix":      receivables.Format.MaxFileBytes + multipartSlack,
}

// addRoutes lists the whole API surface (SPEC §7) in one place, and
// returns the handler of the forms' posts to the site's pages
// (formposts.go), which send contact, feedback and unsubscribe on to
// their calls here.
func addRoutes(r *mux.Router, cfg Config) http.Handler {
	forms := mustParseForms()
	clientIP := clientIPFunc(cfg.TrustedProxies)
	limited := func(name string, h http.Handler) http.Handler {
		return limitRate(name, newLimiter(cfg.Rates[name], cfg.Now), clientIP, h)
	}
	db, now, site := cfg.Store, cfg.Now, siteOf(cfg)
	// keyed takes the Idempotency-Key of a call that stores rows
	// (idempotency.go): a retry gets the first try's answer.
	keyed := func(h http.Handler) http.Handler { return idempotent(db, clientIP, h) }
	countries, states := referenceLists()

	r.Handle("/healthz", handleHealthz(cfg.Version)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/readyz", handleReadyz(db, now)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/api/xsrf-token", handleXSRFToken()).Methods(http.MethodGet)

	contact := limitBody(formBodyLimit, limited("contact", keyed(handleContact(db, forms["contact"], cfg.Provider, now))))
	r.Handle("/api/contact_us", contact).Methods(http.MethodPost)
	unsubscribe := limitBody(formBodyLimit, limited("unsubscribe", keyed(handleUnsubscribe(db, forms["unsubscribe"], now))))
	r.Handle("/api/unsubscribe", unsubscribe).Methods(http.MethodPost)
	r.Handle("/api/news", handleNewsList(db, site, now)).Methods(http.MethodGet)
	r.Handle("/api/news/{id}", handleNewsItem(db, site, now)).Methods(http.MethodGet)
	r.Handle("/countries", handleCountries(countries)).Methods(http.MethodGet)
	r.Handle("/states", handleStates(states, site)).Methods(http.MethodGet)
	r.Handle("/public_totals.json", handlePublicTotals(db)).Methods(http.MethodGet)
	r.Handle("/api/email/uniqueness", limitBody(formBodyLimit, limited("uniqueness", handleEmailUniqueness(db, forms["emailUniqueness"])))).Methods(http.MethodPost)
	r.Handle("/api/logo", handleLogo(db)).Methods(http.MethodGet)
	r.Handle("/rest/creditor/alias/{alias}", handleCreditorAlias(db)).Methods(http.MethodGet)
	upload := func(h http.Handler) http.Handler { return limitUploadRate(cfg.Uploads, h) }
	feedback := limitBody(feedbackBodyLimit, limited("feedback", keyed(handleFeedback(db, forms["feedback"], cfg.Provider, now))))
	r.Handle("/api/error_feedback", upload(feedback)).Methods(http.MethodPost)
	fileChecks := newCheckSlots(cfg.FileChecks)
	r.Handle("/api/import/validate", upload(limited("import", handleImportValidate(fileChecks, clientIP)))).Methods(http.MethodPost)
	r.Handle("/api/import/fix", upload(limited("import", handleImportFix(fileChecks, clientIP)))).Methods(http.MethodPost)

	// Accounts (accounts.go, signin.go, password_reset.go, member.go).
	acc := newAccounts(cfg, forms, clientIP)

	// The auction registration (auction.go); a change to a registered MC
	// number waits for the link mailed to the carrier, starting with the
	// same base URL as reset links.
	auction := newAuction(db, site, forms["auction"], states.in("IN", ""), acc.baseURL, now)
	r.Handle("/api/publicTruckingAuctionForm", limitBody(formBodyLimit, limited("auction", keyed(auction.handleRegister())))).Methods(http.MethodPost)
	r.Handle("/api/publicTruckingAuctionForm/fetchData", auction.handleFetch()).Methods(http.MethodGet)
	r.Handle("/api/publicTruckingAuctionForm/confirm", auction.handleConfirmPage()).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/api/publicTruckingAuctionForm/confirm", limitBody(formBodyLimit, limited("auction", keyed(auction.handleConfirm())))).Methods(http.MethodPost)

	if acc.altcha != nil {
		r.Handle("/api/captcha/challenge", limited("captcha", handleCaptchaChallenge(acc.altcha))).Methods(http.MethodGet)
	}
	r.Handle("/api/registration", limitBody(formBodyLimit, limited("registration", keyed(acc.handleRegistration())))).Methods(http.MethodPost)
	r.Handle("/auth", limitBody(formBodyLimit, limited("signin", acc.handleSignIn()))).Methods(http.MethodPost)
	r.Handle("/token/generate-token", limitBody(formBodyLimit, limited("signin", acc.handleToken()))).Methods(http.MethodPost)
	r.Handle("/api/logout", limitBody(formBodyLimit, acc.handleSignOut())).Methods(http.MethodPost)
	r.Handle("/api/account", acc.handleAccount()).Methods(http.MethodGet)
	r.Handle("/api/forgot_password", limitBody(formBodyLimit, limited("forgot", keyed(acc.handleForgotPassword())))).Methods(http.MethodPost)
	r.Handle("/api/reset_password", limitBody(formBodyLimit, limited("reset", keyed(acc.handleResetPassword())))).Methods(http.MethodPost)
	r.Handle("/secure/entry", acc.handleMemberPage("")).Methods(http.MethodGet, http.MethodHead)
	for _, l := range cfg.Languages[1:] {
		r.Handle(l.Prefix+"/secure/entry", acc.handleMemberPage(l.Code)).Methods(http.MethodGet, http.MethodHead)
	}

	// A form post's body is read once (formposts.go), then handed to the
	// call from memory; the feedback page's, with its attachment, as
	// uploads are.
	posts := formPosts{site: site, provider: cfg.Provider, contact: contact, feedback: feedback, unsubscribe: unsubscribe, unsubscribeRules: forms["unsubscribe"]}
	feedbackPosts, otherPosts := upload(posts), posts
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, path := site.split(r.URL.Path); path == feedbackPage {
			feedbackPosts.ServeHTTP(w, r)
			return
		}
		otherPosts.ServeHTTP(w, r)
	})
}
