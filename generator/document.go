package generator

import (
	"html/template"
	"strings"
)

var document = template.Must(template.New("document").Parse(`<!doctype html>
<html lang="{{.HTMLLang}}" data-lang="{{.Lang}}" data-client="{{.Client}}" data-layer="{{.DataLayer}}" data-page-view="{{.PageViewEvent}}"{{with .ServiceWorker}}{{if $.Entry}} data-sw-after-islands="{{.}}"{{else}} data-sw="{{.}}"{{end}}{{end}}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<meta name="description" content="{{.Description}}">
{{if .Canonical}}<link rel="canonical" href="{{.Canonical}}">
{{end}}{{range .Alternates}}<link rel="alternate" hreflang="{{.HrefLang}}" href="{{.URL}}">
{{end}}{{with .Feed}}<link rel="alternate" type="application/rss+xml" title="{{.HrefLang}}" href="{{.URL}}">
{{end}}<link rel="icon" href="/favicon.svg" type="image/svg+xml">
{{with .Share}}<link rel="manifest" href="{{.Manifest}}">
<link rel="apple-touch-icon" href="{{.TouchIcon}}">
<meta name="theme-color" content="{{.ThemeColor}}">
<meta property="og:type" content="{{.Type}}">
<meta property="og:site_name" content="{{.SiteName}}">
<meta property="og:title" content="{{$.Title}}">
<meta property="og:description" content="{{$.Description}}">
{{if $.Canonical}}<meta property="og:url" content="{{$.Canonical}}">
{{end}}<meta property="og:locale" content="{{.Locale}}">
{{range .LocaleAlternates}}<meta property="og:locale:alternate" content="{{.}}">
{{end}}<meta property="og:image" content="{{.Image}}">
<meta property="og:image:type" content="image/png">
<meta property="og:image:width" content="1200">
<meta property="og:image:height" content="630">
<meta property="og:image:alt" content="{{.ImageAlt}}">
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:title" content="{{$.Title}}">
<meta name="twitter:description" content="{{$.Description}}">
<meta name="twitter:image" content="{{.Image}}">
<meta name="twitter:image:alt" content="{{.ImageAlt}}">
{{end}}<link rel="stylesheet" href="{{.CSS}}">
{{if .Entry}}<script type="module" src="{{.Entry}}"{{with .Preload}} data-preload="{{.}}"{{end}}></script>
{{range .EntryImports}}<link rel="modulepreload" href="{{.}}">
{{end}}{{range .EagerScripts}}<link rel="modulepreload" href="{{.}}" fetchpriority="low">
{{end}}{{range .EagerData}}<link rel="preload" href="{{.}}" as="fetch" crossorigin="anonymous" fetchpriority="low">
{{end}}{{end}}<script>{{.Boot}}</script>
{{range .Share.StructuredData}}<script type="application/ld+json">{{.}}</script>
{{end}}</head>
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
	// Feed links the language's RSS feed of the news on the news pages
	// (HrefLang holds its title).
	Feed  *alternate
	Share shareTags // link preview, JSON-LD, manifest (share.go)
	CSS   string
	// Entry is the client entry on a page with islands, preloaded with
	// the helpers it imports (EntryImports). The rest of the page's
	// scripts (Preload, space-separated) are fetched after the first paint
	// (pages/client.tsx), so nothing competes with the HTML and CSS on a
	// slow connection and React starts after the page is shown. A page
	// whose main content an island fetches from the API has nothing to
	// show before that, so it preloads those scripts (EagerScripts), the
	// translations and the API answers (EagerData) at once, at low
	// priority.
	Entry, Preload string
	EntryImports   []string
	EagerScripts   []string
	EagerData      []string
	Client         string // the client entry, which the boot script loads on a tenant's host
	// DataLayer and PageViewEvent name the analytics array and the event
	// the boot script pushes after each page view (data/site.json).
	DataLayer, PageViewEvent string
	// ServiceWorker is the URL of the service worker (offline.go); empty:
	// none. The boot script registers it once the page has loaded
	// (data-sw), or on a page with islands client.tsx does once they are
	// live (data-sw-after-islands): the worker's first install downloads
	// the language's pages and files, which must not compete with the
	// islands' scripts and hydration.
	ServiceWorker string
	Boot          template.JS
	Body          template.HTML
}

func renderDocument(d documentData) (string, error) {
	var b strings.Builder
	err := document.Execute(&b, d)
	return b.String(), err
}
