package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	reMeta       = regexp.MustCompile(`<meta (?:property|name)="([^"]+)" content="([^"]*)">`)
	reJSONLD     = regexp.MustCompile(`<script type="application/ld\+json">([^<]*)</script>`)
	reScriptOpen = regexp.MustCompile(`<script\b[^>]*>`)
	reManifest   = regexp.MustCompile(`<link rel="manifest" href="([^"]*)">`)
)

var ogLocales = map[string]string{"en": "en_IN", "hi": "hi_IN", "ma": "mr_IN"}

// metaTags are a page's <meta property|name content> pairs, values
// unescaped; repeated ones (og:locale:alternate) in order.
func metaTags(page string) map[string][]string {
	out := map[string][]string{}
	for _, m := range reMeta.FindAllStringSubmatch(page, -1) {
		out[m[1]] = append(out[m[1]], html.UnescapeString(m[2]))
	}
	return out
}

// jsonLD parses the page's JSON-LD documents.
func jsonLD(t *testing.T, name, page string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range reJSONLD.FindAllStringSubmatch(page, -1) {
		var d map[string]any
		if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
			t.Fatalf("%s: JSON-LD does not parse: %v\n%s", name, err, m[1])
		}
		if d["@context"] != "https://schema.org" {
			t.Errorf("%s: @context %v", name, d["@context"])
		}
		out = append(out, d)
	}
	return out
}

// pngSize reads the size of the PNG file at a URL path of the site.
func pngSize(t *testing.T, dist, urlPath string) image.Point {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(strings.TrimPrefix(urlPath, "/"))))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", urlPath, err)
	}
	return image.Pt(cfg.Width, cfg.Height)
}

// TestShareTagsOnEveryPage: every page of every language, the 404s too,
// has Open Graph and Twitter card tags naming its own title, description
// and address, its language's locale with the others as alternates, and
// its language's 1200×630 preview, a hashed file that exists.
func TestShareTagsOnEveryPage(t *testing.T) {
	previews := map[string]bool{}
	pages := 0
	var files []string
	_ = filepath.WalkDir(testDist+"/", func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".html") {
			files = append(files, p)
		}
		return err
	})
	for _, l := range langs {
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			name, page := strings.TrimPrefix(file, testDist), string(b)
			if !strings.Contains(page, `<html lang="`+l.htmlLang+`"`) {
				continue
			}
			pages++
			m := metaTags(page)
			one := func(key string) string {
				if len(m[key]) != 1 {
					t.Errorf("%s: %d %s tags", name, len(m[key]), key)
					return ""
				}
				return m[key][0]
			}
			title := html.UnescapeString(reTitle.FindStringSubmatch(page)[1])
			if one("og:title") != title || one("twitter:title") != title {
				t.Errorf("%s: og:title %q, twitter:title %q, want the title %q", name, m["og:title"], m["twitter:title"], title)
			}
			if d := one("description"); one("og:description") != d || one("twitter:description") != d {
				t.Errorf("%s: og:description %q, twitter:description %q, want %q", name, m["og:description"], m["twitter:description"], d)
			}
			if c := reCanonical.FindStringSubmatch(page); c == nil {
				if len(m["og:url"]) != 0 || !strings.HasSuffix(name, "404.html") {
					t.Errorf("%s: og:url %q without a canonical link", name, m["og:url"])
				}
			} else if one("og:url") != c[1] {
				t.Errorf("%s: og:url %q, want the canonical %s", name, m["og:url"], c[1])
			}
			if one("og:locale") != ogLocales[l.code] || len(m["og:locale:alternate"]) != 2 || slices.Contains(m["og:locale:alternate"], ogLocales[l.code]) {
				t.Errorf("%s: og:locale %q with alternates %q", name, m["og:locale"], m["og:locale:alternate"])
			}
			ogType := "website"
			if strings.Contains(name, "/news-feed/news/") && !strings.Contains(name, "/_/") {
				ogType = "article" // TestNewsArticleStructuredData
			}
			if one("og:site_name") != "BharatFreight Network" || one("og:type") != ogType || one("twitter:card") != "summary_large_image" {
				t.Errorf("%s: site name %q, type %q, card %q", name, m["og:site_name"], m["og:type"], m["twitter:card"])
			}
			img := one("og:image")
			if one("twitter:image") != img || !regexp.MustCompile(`^`+regexp.QuoteMeta(testBase)+`/assets/build/preview-`+l.code+`-[0-9A-F]{8}\.png$`).MatchString(img) {
				t.Errorf("%s: og:image %q, twitter:image %q", name, img, m["twitter:image"])
				continue
			}
			if one("og:image:width") != "1200" || one("og:image:height") != "630" || !strings.HasPrefix(one("og:image:alt"), "BharatFreight Network: ") {
				t.Errorf("%s: image size %q×%q, alt %q", name, m["og:image:width"], m["og:image:height"], m["og:image:alt"])
			}
			previews[img] = true
		}
	}
	if pages != len(files) || pages != len(testReport.Pages) {
		t.Errorf("checked %d pages of %d files; the build wrote %d", pages, len(files), len(testReport.Pages))
	}
	if len(previews) != 3 {
		t.Fatalf("previews %v, want one per language", previews)
	}
	for img := range previews {
		if size := pngSize(t, testDist, strings.TrimPrefix(img, testBase)); size != image.Pt(1200, 630) {
			t.Errorf("%s is %v", img, size)
		}
	}
}

// requireProps fails for each property the document lacks or has empty.
func requireProps(t *testing.T, name string, d map[string]any, props ...string) {
	t.Helper()
	for _, p := range props {
		if v, ok := d[p]; !ok || v == "" || v == nil {
			t.Errorf("%s: %v lacks %s", name, d["@type"], p)
		}
	}
}

// TestStructuredData: the home page names the organization and its contact
// point, the FAQ its questions, a member's profile its breadcrumbs, in each
// language on that language's addresses, with what Google's rich results
// require of each type; other pages carry none.
func TestStructuredData(t *testing.T) {
	for _, l := range langs {
		at := func(route string) string { return testBase + localePath(l.prefix, route) }
		file := func(route string) string { return routeFile(l.prefix, route) }

		docs := jsonLD(t, file("/"), readDist(t, file("/")))
		if len(docs) != 1 || docs[0]["@type"] != "Organization" {
			t.Fatalf("%s: JSON-LD %v, want an Organization", file("/"), docs)
		}
		org := docs[0]
		requireProps(t, file("/"), org, "name", "url", "logo", "contactPoint")
		cp, _ := org["contactPoint"].(map[string]any)
		requireProps(t, file("/")+" contactPoint", cp, "telephone", "contactType", "email")
		if org["url"] != at("/") || cp["@type"] != "ContactPoint" || cp["url"] != at("/contact-us") || !strings.HasPrefix(cp["telephone"].(string), "+91") {
			t.Errorf("%s: organization %v", file("/"), org)
		}

		docs = jsonLD(t, file("/faq"), readDist(t, file("/faq")))
		if len(docs) != 1 || docs[0]["@type"] != "FAQPage" || docs[0]["url"] != at("/faq") || docs[0]["inLanguage"] != l.htmlLang {
			t.Fatalf("%s: JSON-LD %v, want the FAQPage at %s in %s", file("/faq"), docs, at("/faq"), l.htmlLang)
		}
		questions, _ := docs[0]["mainEntity"].([]any)
		if len(questions) != 13 {
			t.Errorf("%s: %d questions, want the 13 of the page", file("/faq"), len(questions))
		}
		faqPage := readDist(t, file("/faq"))
		for _, q := range questions {
			q, _ := q.(map[string]any)
			a, _ := q["acceptedAnswer"].(map[string]any)
			requireProps(t, file("/faq"), q, "name", "acceptedAnswer")
			requireProps(t, file("/faq"), a, "text")
			if q["@type"] != "Question" || a["@type"] != "Answer" || strings.Contains(a["text"].(string), "<link>") ||
				!strings.Contains(faqPage, `<span class="faq-question">`+reactEscape(q["name"].(string))+`</span>`) {
				t.Errorf("%s: question %v is not one the page shows, or its answer is not plain text", file("/faq"), q)
			}
		}

		route := "/member-details-ganga-logistics"
		docs = jsonLD(t, file(route), readDist(t, file(route)))
		if len(docs) != 1 || docs[0]["@type"] != "BreadcrumbList" {
			t.Fatalf("%s: JSON-LD %v, want a BreadcrumbList", file(route), docs)
		}
		steps, _ := docs[0]["itemListElement"].([]any)
		want := []string{at("/"), at("/members-profile"), at(route)}
		if len(steps) != len(want) {
			t.Fatalf("%s: breadcrumbs %v", file(route), steps)
		}
		for i, s := range steps {
			s, _ := s.(map[string]any)
			requireProps(t, file(route), s, "position", "name", "item")
			if s["@type"] != "ListItem" || s["position"] != float64(i+1) || s["item"] != want[i] {
				t.Errorf("%s: breadcrumb %d is %v, want %s", file(route), i+1, s, want[i])
			}
		}

		for _, route := range []string{"/about-us", "/contact-us", "/members-profile", "/news-feed"} {
			if docs := jsonLD(t, file(route), readDist(t, file(route))); len(docs) != 0 {
				t.Errorf("%s carries structured data %v", file(route), docs)
			}
		}
	}
}

// reactEscape is how React writes a text in HTML.
func reactEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;").Replace(s)
}

// TestNewsArticleStructuredData: a news item's page is an article, by and
// from the network, in the language of its text, on its own address; the
// shell page for items added later is not.
func TestNewsArticleStructuredData(t *testing.T) {
	for _, c := range []struct {
		file, url, headline, lang string
	}{
		{"news-feed/news/3/index.html", testBase + "/news-feed/news/3", "Toll rates revised on the Mumbai–Pune expressway", "en"},
		{"hi/news-feed/news/3/index.html", testBase + "/hi/news-feed/news/3", "मुंबई–पुणे एक्सप्रेसवे पर टोल दरें बदलीं", "hi"},
		{"ma/news-feed/news/7/index.html", testBase + "/ma/news-feed/news/7", "Diesel prices steady", "en"}, // no Marathi text
	} {
		page := readNewsDist(t, c.file)
		docs := jsonLD(t, c.file, page)
		if len(docs) != 1 || docs[0]["@type"] != "NewsArticle" {
			t.Fatalf("%s: JSON-LD %v, want a NewsArticle", c.file, docs)
		}
		a := docs[0]
		requireProps(t, c.file, a, "headline", "datePublished", "author", "publisher", "url", "inLanguage")
		author, _ := a["author"].(map[string]any)
		publisher, _ := a["publisher"].(map[string]any)
		requireProps(t, c.file+" author", author, "name", "url")
		requireProps(t, c.file+" publisher", publisher, "name", "logo")
		if a["headline"] != c.headline || a["url"] != c.url || a["mainEntityOfPage"] != c.url || a["inLanguage"] != c.lang {
			t.Errorf("%s: article %v", c.file, a)
		}
		if a["description"] != html.UnescapeString(reDescription.FindStringSubmatch(page)[1]) {
			t.Errorf("%s: description %q is not the page's", c.file, a["description"])
		}
		if m := metaTags(page); !slices.Equal(m["og:type"], []string{"article"}) || !slices.Equal(m["og:title"], []string{c.headline + " | BharatFreight Network"}) {
			t.Errorf("%s: og:type %q, og:title %q", c.file, m["og:type"], m["og:title"])
		}
	}
	if d, ok := jsonLD(t, "news-feed/news/3", readNewsDist(t, "news-feed/news/3/index.html"))[0]["datePublished"].(string); !ok || d != "2026-11-18T04:00:00Z" {
		t.Errorf("datePublished %q, want the item's posting time", d)
	}
	shell := readNewsDist(t, "news-feed/news/_/index.html")
	if docs := jsonLD(t, "the news item shell", shell); len(docs) != 0 || !slices.Equal(metaTags(shell)["og:type"], []string{"website"}) {
		t.Errorf("the news item shell page carries %v", docs)
	}
}

// TestStructuredDataNeedsNoCSPChange: JSON-LD is data: the only script a
// page runs inline is still the boot script the CSP allows by hash, and no
// text of the data can end its script element early.
func TestStructuredDataNeedsNoCSPChange(t *testing.T) {
	for _, file := range []string{"index.html", "hi/faq/index.html", "ma/member-details-ganga-logistics/index.html"} {
		page := readDist(t, file)
		var inline int
		for _, tag := range reScriptOpen.FindAllString(page, -1) {
			switch {
			case tag == "<script>":
				inline++
			case tag == `<script type="application/ld+json">`, strings.HasPrefix(tag, `<script type="module" src=`):
			default:
				t.Errorf("%s: unexpected script %s", file, tag)
			}
		}
		if inline != 1 {
			t.Errorf("%s: %d inline scripts, want the boot script only", file, inline)
		}
		for _, m := range reJSONLD.FindAllStringSubmatch(page, -1) {
			if strings.ContainsAny(m[1], "<>") {
				t.Errorf("%s: JSON-LD with unescaped < or >: %s", file, m[1])
			}
		}
	}
}

// TestWebManifests: each language has a manifest its pages link, started
// at and scoped to its home page, in its language, with icons that exist
// in the sizes they declare: 192 and 512 pixels, and a maskable one whose
// corners are painted (a launcher's mask may cut anywhere outside the
// central circle).
func TestWebManifests(t *testing.T) {
	for _, l := range langs {
		name := filepath.ToSlash(filepath.Join(strings.TrimPrefix(l.prefix, "/"), webManifestFile))
		for _, page := range []string{routeFile(l.prefix, "/"), routeFile(l.prefix, "/faq"), notFoundFile(l.prefix)} {
			if m := reManifest.FindStringSubmatch(readDist(t, page)); m == nil || m[1] != "/"+name {
				t.Errorf("%s links the manifest %v, want /%s", page, m, name)
			}
		}
		var m struct {
			ID, Name, ShortName, StartURL, Scope, Lang, Display, ThemeColor string
			Icons                                                           []appIcon
		}
		raw := readDist(t, name)
		if err := json.Unmarshal([]byte(strings.NewReplacer(`"short_name"`, `"shortName"`, `"start_url"`, `"startURL"`, `"theme_color"`, `"themeColor"`).Replace(raw)), &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		home := localePath(l.prefix, "/")
		if m.StartURL != home || m.Scope != home || m.ID != home || m.Lang != l.htmlLang || m.Name != "BharatFreight Network" || m.ShortName == "" || len([]rune(m.ShortName)) > 15 || m.Display != "standalone" || m.ThemeColor != "#0b5394" {
			t.Errorf("%s: %+v", name, m)
		}
		var sizes []string
		for _, ic := range m.Icons {
			size := pngSize(t, testDist, ic.Src)
			if ic.Type != "image/png" || ic.Sizes != fmt.Sprintf("%dx%d", size.X, size.Y) || !strings.HasPrefix(ic.Src, "/"+hashedDir) {
				t.Errorf("%s: icon %+v is %v", name, ic, size)
			}
			sizes = append(sizes, ic.Sizes+" "+ic.Purpose)
			if ic.Purpose == "maskable" {
				b, _ := os.ReadFile(filepath.Join(testDist, ic.Src))
				img, err := png.Decode(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				if _, _, _, a := img.At(0, 0).RGBA(); a != 0xffff {
					t.Errorf("%s: the maskable icon's corner is not painted", name)
				}
			}
		}
		if !slices.Equal(sizes, []string{"192x192 ", "512x512 ", "512x512 maskable"}) {
			t.Errorf("%s: icons %v", name, sizes)
		}
	}
}

// TestPreviewNamesAMissingLetter: a tagline in a script the preview fonts
// lack fails the build by naming the letter, rather than drawing boxes.
func TestPreviewNamesAMissingLetter(t *testing.T) {
	icon, err := os.ReadFile(filepath.Join(testDist, "favicon.svg"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPreviewMaker("..", string(icon))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.preview("BharatFreight Network", "சரக்கு வலையமைப்பு"); err == nil || !strings.Contains(err.Error(), `'ச'`) {
		t.Errorf("a Tamil tagline: %v, want an error naming ச", err)
	}
}
