package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Browser tests of what a page carries for link previews (Open Graph and
// Twitter tags), search engines (JSON-LD) and installing the site (the web
// app manifest), read by Chromium from the served pages.

// shareInfo is what a page's head says of it, as the browser parsed it.
type shareInfo struct {
	Lang      string              `json:"lang"`
	Canonical string              `json:"canonical"`
	Manifest  string              `json:"manifest"`
	Meta      map[string][]string `json:"meta"`
	LD        []map[string]any    `json:"ld"`
	// Image is the preview's size as the browser decoded it, fetched from
	// this server (the tags name the site's configured address).
	Image []int `json:"image"`
}

const readShareInfo = `(async () => {
  const meta = {};
  for (const m of document.querySelectorAll('meta[property^="og:"], meta[name^="twitter:"]')) {
    const k = m.getAttribute('property') || m.getAttribute('name');
    (meta[k] = meta[k] || []).push(m.content);
  }
  const img = new Image();
  img.src = new URL(meta['og:image'][0]).pathname;
  await img.decode();
  return {
    lang: document.documentElement.lang,
    canonical: document.querySelector('link[rel=canonical]')?.href ?? '',
    manifest: document.querySelector('link[rel=manifest]')?.getAttribute('href') ?? '',
    meta,
    ld: [...document.querySelectorAll('script[type="application/ld+json"]')].map((s) => JSON.parse(s.textContent)),
    image: [img.naturalWidth, img.naturalHeight],
  };
})()`

// TestShareTagsAndStructuredData: in each language, the home page, the
// FAQ, a member's profile and a news item's page carry preview tags
// naming the page's address and locale with the language's 1200×630
// image, and the structured data of their type on that language's
// addresses.
func TestShareTagsAndStructuredData(t *testing.T) {
	if readManifest(t).NewsItems == 0 {
		t.Fatal("the build wrote no news item page (the seed news)")
	}
	newsPath := "/news-feed/news/1"
	p := newPage(t)
	for _, l := range []struct{ prefix, htmlLang, locale string }{{"", "en", "en_IN"}, {"/hi", "hi", "hi_IN"}, {"/ma", "mr", "mr_IN"}} {
		for _, c := range []struct{ route, ldType, ogType string }{
			{"/", "Organization", "website"},
			{"/faq", "FAQPage", "website"},
			{"/member-details-sharma-roadlines", "BreadcrumbList", "website"},
			{newsPath, "NewsArticle", "article"},
			{"/about-us", "", "website"},
		} {
			path := l.prefix + c.route
			if c.route == "/" && l.prefix != "" {
				path = l.prefix
			}
			p.open(path)
			info := eval[shareInfo](p, readShareInfo)
			one := func(k string) string {
				if len(info.Meta[k]) != 1 {
					t.Errorf("%s: %s %q", path, k, info.Meta[k])
					return ""
				}
				return info.Meta[k][0]
			}
			title := eval[string](p, `document.title`)
			if info.Lang != l.htmlLang || info.Canonical == "" || one("og:url") != info.Canonical || one("og:title") != title || one("twitter:title") != title ||
				one("og:type") != c.ogType || one("og:locale") != l.locale || len(info.Meta["og:locale:alternate"]) != 2 || one("twitter:card") != "summary_large_image" {
				t.Errorf("%s: %+v", path, info)
			}
			if img := one("og:image"); !strings.Contains(img, fmt.Sprintf("/assets/build/preview-%s-", map[string]string{"en": "en", "hi": "hi", "mr": "ma"}[l.htmlLang])) || !slices.Equal(info.Image, []int{1200, 630}) {
				t.Errorf("%s: preview %s is %v", path, img, info.Image)
			}
			if c.ldType == "" {
				if len(info.LD) != 0 {
					t.Errorf("%s: structured data %v", path, info.LD)
				}
				continue
			}
			if len(info.LD) != 1 || info.LD[0]["@type"] != c.ldType || info.LD[0]["@context"] != "https://schema.org" {
				t.Errorf("%s: structured data %v, want one %s", path, info.LD, c.ldType)
				continue
			}
			checkStructuredData(t, path, info.Canonical, l.htmlLang, info.LD[0])
		}
	}
}

// checkStructuredData checks one page's JSON-LD against its address and
// language, with what Google requires of each type.
func checkStructuredData(t *testing.T, path, canonical, lang string, d map[string]any) {
	t.Helper()
	home := regexp.MustCompile(`^(https?://[^/]+(?:/hi|/ma)?)`).FindString(canonical)
	switch d["@type"] {
	case "Organization":
		cp, _ := d["contactPoint"].(map[string]any)
		if d["url"] != canonical || d["name"] == nil || d["logo"] == nil || cp["@type"] != "ContactPoint" || cp["telephone"] == nil || cp["contactType"] == nil {
			t.Errorf("%s: organization %v", path, d)
		}
	case "FAQPage":
		qs, _ := d["mainEntity"].([]any)
		if d["url"] != canonical || d["inLanguage"] != lang || len(qs) == 0 {
			t.Errorf("%s: FAQ page %v", path, d)
		}
		for _, q := range qs {
			q, _ := q.(map[string]any)
			a, _ := q["acceptedAnswer"].(map[string]any)
			if q["@type"] != "Question" || q["name"] == "" || a["@type"] != "Answer" || a["text"] == "" {
				t.Errorf("%s: question %v", path, q)
			}
		}
	case "BreadcrumbList":
		steps, _ := d["itemListElement"].([]any)
		if len(steps) != 3 {
			t.Fatalf("%s: breadcrumbs %v", path, steps)
		}
		for i, s := range steps {
			s, _ := s.(map[string]any)
			item, _ := s["item"].(string)
			if s["@type"] != "ListItem" || s["position"] != float64(i+1) || s["name"] == "" || !strings.HasPrefix(item+"/", home+"/") {
				t.Errorf("%s: breadcrumb %v", path, s)
			}
		}
		if last, _ := steps[2].(map[string]any); last["item"] != canonical {
			t.Errorf("%s: the last breadcrumb %v is not the page", path, last)
		}
	case "NewsArticle":
		author, _ := d["author"].(map[string]any)
		publisher, _ := d["publisher"].(map[string]any)
		if d["url"] != canonical || d["headline"] == nil || d["datePublished"] == nil || author["name"] == nil || publisher["name"] == nil || d["inLanguage"] == nil {
			t.Errorf("%s: article %v", path, d)
		}
	}
}

// TestWebManifestInstallsTheLanguage: Chromium reads each language's
// manifest without errors, starting at and scoped to that language's home
// page in its language, with icons that load in the sizes they declare.
func TestWebManifestInstallsTheLanguage(t *testing.T) {
	p := newPage(t)
	for _, l := range []struct{ home, htmlLang string }{{"/", "en"}, {"/hi", "hi"}, {"/ma", "mr"}} {
		p.open(l.home)
		res, err := chromedp.Call(p.ctx, cdppage.GetAppManifest, cdppage.GetAppManifestParams{})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Manifest
		if len(res.Errors) > 0 || m == nil {
			t.Fatalf("%s: manifest %s: errors %v", l.home, res.URL, res.Errors)
		}
		if m.StartURL != baseURL+l.home || m.Scope != baseURL+l.home || m.ID != baseURL+l.home || m.Name != "BharatFreight Network" || !strings.HasSuffix(strings.ToLower(m.Display), "standalone") {
			t.Errorf("%s: manifest %+v", l.home, m)
		}
		for _, ic := range m.Icons {
			got := eval[string](p, fmt.Sprintf(`(async () => { const i = new Image(); i.src = %q; await i.decode(); return i.naturalWidth + 'x' + i.naturalHeight; })()`, ic.URL))
			if got != ic.Sizes {
				t.Errorf("%s: icon %s is %s, declared %s", l.home, ic.URL, got, ic.Sizes)
			}
		}
		// What Chromium reports of the parsed manifest leaves out the
		// language, the short name and the icons' purpose: read them from
		// the file it loaded.
		var raw struct {
			Lang      string
			ShortName string `json:"short_name"`
			Icons     []struct{ Sizes, Purpose string }
		}
		if err := json.Unmarshal([]byte(res.Data), &raw); err != nil {
			t.Fatal(err)
		}
		if raw.Lang != l.htmlLang || raw.ShortName == "" {
			t.Errorf("%s: manifest in %q, short name %q", l.home, raw.Lang, raw.ShortName)
		}
		var sizes []string
		for _, ic := range raw.Icons {
			sizes = append(sizes, strings.TrimSpace(ic.Sizes+" "+ic.Purpose))
		}
		if len(m.Icons) != 3 || !slices.Equal(sizes, []string{"192x192", "512x512", "512x512 maskable"}) {
			t.Errorf("%s: icons %v", l.home, sizes)
		}
		if ct := eval[string](p, fmt.Sprintf(`fetch(%q).then((r) => r.headers.get('content-type'))`, res.URL)); ct != "application/manifest+json" {
			t.Errorf("%s: the manifest is sent as %q", l.home, ct)
		}
	}
}
