package formapi

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"net/http"
	"strings"
)

// Pages the API writes itself, because they show one person's data and
// so cannot be prerendered: the members' landing page (member.go) and the
// confirmation of an auction registration change (auction.go). They share
// the site's stylesheet (the build keeps a copy under the stable name
// /assets/site.css) and header, and run only their own inline script,
// allowed by its hash.

// pageLayout is the frame of those pages; each defines "content".
var pageLayout = template.Must(template.New("layout").Parse(`<!doctype html>
<html lang="{{.HTMLLang}}" data-lang="{{.Lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{.Title}} | {{.Site}}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/site.css">
</head>
<body>
<header class="site-header"><div class="bar"><a class="brand" href="{{.Home}}"><img class="brand-mark" src="/favicon.svg" alt="" width="36" height="36"><span>{{.Site}}</span></a></div></header>
<main id="main"><section class="page {{.Class}}">
{{template "content" .}}
</section></main>
{{with .Script}}<script>{{.}}</script>{{end}}
</body>
</html>
`))

// pageTemplate is a page: the layout with its content.
func pageTemplate(content string) *template.Template {
	return template.Must(template.Must(pageLayout.Clone()).Parse(`{{define "content"}}` + content + `{{end}}`))
}

// page is what one page shows: the layout's fields plus T (the page's
// texts in its language) and Data (anything else its content reads).
type page struct {
	Lang, HTMLLang, Site, Home string
	Title, Class               string
	Script                     template.JS
	T                          map[string]string
	Data                       any
}

// newPage starts a page in lang (one of the site's languages).
func (site siteInfo) newPage(lang, title, class, script string) page {
	p := page{Lang: lang, HTMLLang: lang, Site: site.name, Title: title, Class: class, Script: template.JS(script), Home: site.prefix(lang)}
	for _, l := range site.languages {
		if l.Code == lang {
			p.HTMLLang = l.HTMLLang
		}
	}
	if p.Home == "" {
		p.Home = "/"
	}
	return p
}

// writePage answers with the page, under a CSP that allows its script by
// hash and nothing else from anywhere but the site.
func writePage(w http.ResponseWriter, status int, t *template.Template, p page) error {
	sum := sha256.Sum256([]byte(p.Script))
	w.Header().Set("Content-Security-Policy", strings.Join([]string{
		"default-src 'none'",
		"script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'",
		"style-src 'self'",
		"img-src 'self' data:",
		"connect-src 'self'",
		"form-action 'self'",
		"frame-ancestors 'none'",
		"base-uri 'none'",
	}, "; "))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	return t.Execute(w, p)
}

// postScript makes a page's form call the API with the anti-forgery header
// (a plain form post cannot send it), then go to the form's data-next
// address, or reload the page without one, which then shows what was
// stored. Each form's post carries an Idempotency-Key made with the page,
// so a post the browser sends again (on a connection that closed under
// it) is applied once. The sign-out form also drops the Auth-Token (and
// ends the bearer token it names).
const postScript = `document.documentElement.classList.add('js');
document.querySelectorAll('form[data-api]').forEach(function (form) {
  var key = Array.prototype.map.call(crypto.getRandomValues(new Uint8Array(16)), function (b) { return (b + 256).toString(16).slice(1); }).join('');
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var headers = { 'Content-Type': 'application/json', 'Idempotency-Key': key };
    var xsrf = document.cookie.split('; ').filter(function (c) { return c.indexOf('XSRF-TOKEN=') === 0; })[0];
    if (xsrf) headers['X-XSRF-TOKEN'] = decodeURIComponent(xsrf.slice(11));
    if (form.id === 'sign-out') {
      var token = null;
      try { token = sessionStorage.getItem('Auth-Token'); sessionStorage.removeItem('Auth-Token'); } catch (err) {}
      if (token) headers.Authorization = 'Bearer ' + token;
    }
    var body = {};
    new FormData(form).forEach(function (v, k) { body[k] = v; });
    form.querySelector('button').disabled = true;
    fetch(form.action, { method: 'POST', headers: headers, body: JSON.stringify(body), credentials: 'same-origin' }).finally(function () {
      if (form.dataset.next) location.assign(form.dataset.next); else location.reload();
    });
  });
});`
