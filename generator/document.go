package generator

import (
	"html/template"
	"strings"
)

var document = template.Must(template.New("document").Parse(`<!doctype html>
<html lang="{{.HTMLLang}}" data-lang="{{.Lang}}" data-client="{{.Client}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<meta name="description" content="{{.Description}}">
{{if .Canonical}}<link rel="canonical" href="{{.Canonical}}">
{{end}}{{range .Alternates}}<link rel="alternate" hreflang="{{.HrefLang}}" href="{{.URL}}">
{{end}}<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="{{.CSS}}">
{{if .Scripts}}<script type="module" src="{{index .Scripts 0}}"></script>
{{range slice .Scripts 1}}<link rel="modulepreload" href="{{.}}">
{{end}}{{end}}<script>{{.Boot}}</script>
</head>
<body>
{{.Body}}
</body>
</html>
`))

type alternate struct {
	HrefLang, URL string
}

type documentData struct {
	Lang, HTMLLang     string
	Title, Description string
	Canonical          string
	Alternates         []alternate
	CSS                string
	Scripts            []string // the client entry first, then what it and the page's islands import
	Client             string   // the client entry, which the boot script loads on a tenant's host
	Boot               template.JS
	Body               template.HTML
}

func renderDocument(d documentData) (string, error) {
	var b strings.Builder
	err := document.Execute(&b, d)
	return b.String(), err
}
