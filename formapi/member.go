package formapi

import (
	"net/http"
	"strings"

	"freightsite/internal/store"
	"freightsite/locales"
)

// The members' landing page (GET /secure/entry, SPEC §2): where a sign-in
// leads. The API writes it (pages.go) for the session's member, in their
// preferred language (or the one of /hi/secure/entry, /ma/secure/entry),
// with a sign-out button that calls POST /api/logout and leads to the
// login page of that language. Without a session it redirects to the
// login page.

var memberPage = pageTemplate(`<h1>{{.Title}}</h1>
<p class="lead">{{.T.welcome}}</p>
<dl class="facts">
<dt>{{.T.company}}</dt><dd>{{.Data.Company}}</dd>
<dt>{{.T.loginId}}</dt><dd>{{.Data.Email}}</dd>
</dl>
<form id="sign-out" method="post" action="/api/logout" data-api data-next="{{.Data.SignedOut}}">
<button type="submit" class="button">{{.T.signOut}}</button>
</form>`)

// handleMemberPage answers /secure/entry in the member's preferred
// language, and /hi/secure/entry, /ma/secure/entry (pathLang hi, ma) in
// the language of the address. Sign-out, and a visit without a session,
// lead to the login page of the page's language.
func (a *accounts) handleMemberPage(pathLang string) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		m, ok, err := a.store.CredentialMember(r.Context(), store.Session, sessionValue(r), a.now())
		if err != nil {
			return err
		}
		if !ok {
			http.Redirect(w, r, a.site.prefix(pathLang)+"/login", http.StatusSeeOther)
			return nil
		}
		lang := a.site.language(m.Language)
		if pathLang != "" {
			lang = pathLang
		}
		t := map[string]string{}
		for _, key := range []string{"company", "loginId", "signOut"} {
			t[key] = locales.T(lang, "member."+key, nil)
		}
		t["welcome"] = locales.T(lang, "member.welcome", map[string]string{"name": strings.TrimSpace(m.FirstName + " " + m.LastName)})
		p := a.site.newPage(lang, locales.T(lang, "member.title", nil), "member-page", postScript)
		p.T = t
		p.Data = map[string]string{"Company": m.Company, "Email": m.Email, "SignedOut": a.site.prefix(lang) + "/login?logout=true"}
		return writePage(w, http.StatusOK, memberPage, p)
	})
}
