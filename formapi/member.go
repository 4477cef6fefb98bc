package formapi

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"net/http"
	"strings"

	"freightsite/data"
	"freightsite/locales"
)

// The members' landing page (GET /secure/entry, SPEC §2): where a sign-in
// leads. It is not prerendered: the API writes it for the session's
// member, in their preferred language (or the one of /hi/secure/entry,
// /ma/secure/entry), with the site's stylesheet (the
// build keeps a copy under the stable name /assets/site.css for this) and
// a sign-out button. Without a session it redirects to the login page.

// signOutScript makes the sign-out form call POST /api/logout with the
// anti-forgery header (a plain form post cannot send it), drop the
// Auth-Token and go to the login page. The page's CSP allows it by hash.
const signOutScript = `document.documentElement.classList.add('js');
document.getElementById('sign-out').addEventListener('submit', function (e) {
  e.preventDefault();
  var form = e.currentTarget, headers = {};
  var xsrf = document.cookie.split('; ').filter(function (c) { return c.indexOf('XSRF-TOKEN=') === 0; })[0];
  if (xsrf) headers['X-XSRF-TOKEN'] = decodeURIComponent(xsrf.slice(11));
  var token = null;
  try { token = sessionStorage.getItem('Auth-Token'); sessionStorage.removeItem('Auth-Token'); } catch (err) {}
  if (token) headers.Authorization = 'Bearer ' + token;
  fetch(form.action, { method: 'POST', headers: headers, credentials: 'same-origin' }).finally(function () { location.assign(form.dataset.next); });
});`

var memberPage = template.Must(template.New("member").Parse(`<!doctype html>
<html lang="{{.HTMLLang}}" data-lang="{{.Lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{.T.title}} | {{.Site}}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/site.css">
</head>
<body>
<header class="site-header"><div class="bar"><a class="brand" href="{{.Home}}"><img class="brand-mark" src="/favicon.svg" alt="" width="36" height="36"><span>{{.Site}}</span></a></div></header>
<main id="main"><section class="page member-page">
<h1>{{.T.title}}</h1>
<p class="lead">{{.T.welcome}}</p>
<dl class="facts">
<dt>{{.T.company}}</dt><dd>{{.Company}}</dd>
<dt>{{.T.loginId}}</dt><dd>{{.Email}}</dd>
</dl>
<form id="sign-out" method="post" action="/api/logout" data-next="{{.SignedOut}}">
<button type="submit" class="button">{{.T.signOut}}</button>
</form>
</section></main>
<script>{{.Script}}</script>
</body>
</html>
`))

var memberPageCSP = func() string {
	sum := sha256.Sum256([]byte(signOutScript))
	return strings.Join([]string{
		"default-src 'none'",
		"script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'",
		"style-src 'self'",
		"img-src 'self' data:",
		"connect-src 'self'",
		"form-action 'self'",
		"frame-ancestors 'none'",
		"base-uri 'none'",
	}, "; ")
}()

// handleMemberPage answers /secure/entry in the member's preferred
// language, and /hi/secure/entry, /ma/secure/entry (pathLang hi, ma) in
// the language of the address. Sign-out, and a visit without a session,
// lead to the login page of the page's language.
func (a *accounts) handleMemberPage(pathLang string) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		m, ok, err := a.store.credentialMember(r.Context(), kindSession, sessionValue(r), a.now())
		if err != nil {
			return err
		}
		if !ok {
			http.Redirect(w, r, languagePrefix(pathLang)+"/login", http.StatusSeeOther)
			return nil
		}
		lang := language(m.Language)
		if pathLang != "" {
			lang = pathLang
		}
		site := data.Site()
		htmlLang := lang
		for _, l := range site.Languages {
			if l.Code == lang {
				htmlLang = l.HTMLLang
			}
		}
		name := strings.TrimSpace(m.FirstName + " " + m.LastName)
		t := map[string]string{}
		for _, key := range []string{"title", "company", "loginId", "signOut"} {
			t[key] = locales.T(lang, "member."+key, nil)
		}
		t["welcome"] = locales.T(lang, "member.welcome", map[string]string{"name": name})
		prefix := languagePrefix(lang)
		home := prefix
		if home == "" {
			home = "/"
		}
		w.Header().Set("Content-Security-Policy", memberPageCSP)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		return memberPage.Execute(w, map[string]any{
			"Lang": lang, "HTMLLang": htmlLang, "Site": site.Name, "T": t,
			"Company": m.Company, "Email": m.Email,
			"Home":      home,
			"SignedOut": prefix + "/login?logout=true",
			"Script":    template.JS(signOutScript),
		})
	})
}
