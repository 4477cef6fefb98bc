package generator

import (
	"encoding/json"
	"fmt"
	"html/template"
	"mime"
	"path"
	"strings"
	"sync"

	"freightsite/data"
)

// This file makes what a page carries for others than its visitor: the
// link preview a chat app or social network shows (Open Graph and Twitter
// card tags with the language's preview image), the structured data search
// engines read (JSON-LD, made by the server bundle: pages/lib/structuredData.ts)
// and the web app manifest that makes the site installable.

// webManifestFile is each language's web app manifest, beside its home
// page: /manifest.webmanifest, /hi/manifest.webmanifest.
const webManifestFile = "manifest.webmanifest"

func init() {
	// Go's own table has no .webmanifest (deploy/nginx.conf sets it too).
	_ = mime.AddExtensionType(".webmanifest", "application/manifest+json")
}

// shareTags are the head's tags of one page beyond title and description.
type shareTags struct {
	SiteName, Type   string // og:site_name; og:type: website or article
	Locale           string // og:locale: en_IN
	LocaleAlternates []string
	Image, ImageAlt  string // the absolute URL of the language's preview
	Manifest         string // the language's web app manifest
	TouchIcon        string // the 192 px icon, for iOS's home screen
	ThemeColor       string
	StructuredData   []template.JS // JSON-LD documents, HTML-escaped
}

// languageShare is what every page of one language shares.
type languageShare struct {
	image, imageAlt, manifest string
}

// shared is what shareAssets made for the pages' tags.
type shared struct {
	langs map[string]languageShare
	icons []appIcon
}

// shareAssets draws the icons and each language's preview image and writes
// each language's manifest; home gives each language's home page, whose
// description the manifest takes.
// The drawings come from the render cache when they were drawn before.
func shareAssets(root string, site data.Settings, texts map[string]langTexts, mark string, home map[string]page, w *writer, cache *RenderCache) (shared, error) {
	icons, files, err := appIcons(mark, cache)
	if err != nil {
		return shared{}, err
	}
	maker, err := newPreviewMaker(root, mark)
	if err != nil {
		return shared{}, err
	}
	out := map[string]languageShare{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, len(site.Languages))
	for _, l := range site.Languages {
		tagline := texts[l.Code].tagline
		manifest, err := webManifest(site, l, home[l.Code].Description, icons)
		if err != nil {
			return shared{}, err
		}
		wg.Go(func() {
			file, content, err := cache.drawn(drawKey("preview", l.Code, maker.fonts, maker.mark, site.Name, tagline), func() (string, []byte, error) {
				img, err := maker.preview(site.Name, tagline)
				if err != nil {
					return "", nil, fmt.Errorf("drawing the link preview in %s: %w", l.Code, err)
				}
				return hashedPNG("preview-"+l.Code, img)
			})
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			defer mu.Unlock()
			files[file] = content
			name := path.Join(strings.TrimPrefix(l.Prefix, "/"), webManifestFile)
			files[name] = manifest
			out[l.Code] = languageShare{image: site.BaseURL + "/" + file, imageAlt: site.Name + ": " + tagline, manifest: "/" + name}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return shared{}, err
	}
	for name, content := range files {
		w.add(name, content)
	}
	return shared{out, icons}, nil
}

// tags are the share tags of one page of language l.
func (s languageShare) tags(site data.Settings, l data.Language, p page, icons []appIcon) (shareTags, error) {
	t := shareTags{
		SiteName: site.Name, Type: p.OGType, Locale: l.Locale,
		Image: s.image, ImageAlt: s.imageAlt,
		Manifest: s.manifest, TouchIcon: icons[0].Src, ThemeColor: site.App.ThemeColor,
	}
	for _, o := range site.Languages {
		if o.Code != l.Code {
			t.LocaleAlternates = append(t.LocaleAlternates, o.Locale)
		}
	}
	for _, d := range p.StructuredData {
		// json.Marshal escapes <, > and &, so no text can end the script
		// element.
		b, err := json.Marshal(d)
		if err != nil {
			return t, err
		}
		t.StructuredData = append(t.StructuredData, template.JS(b))
	}
	return t, nil
}

// webManifest is language l's manifest: the site in that language,
// started at its home page.
func webManifest(site data.Settings, l data.Language, description string, icons []appIcon) ([]byte, error) {
	home := localePath(l.Prefix, "/")
	return json.MarshalIndent(map[string]any{
		"id":               home,
		"name":             site.Name,
		"short_name":       site.App.ShortName,
		"description":      description,
		"lang":             l.HTMLLang,
		"dir":              "ltr",
		"start_url":        home,
		"scope":            home,
		"display":          "standalone",
		"theme_color":      site.App.ThemeColor,
		"background_color": "#ffffff",
		"icons":            icons,
	}, "", "  ")
}
