package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestScreenshots saves full-page pictures of every page in the three
// languages, on a 360 px phone and a 1280 px desktop, in the light and the
// dark colour scheme, when SCREENSHOTS is set (for people to look at; the
// assertions live in the other tests), and the open states: the not-found
// page's feedback dialog, the home page's menu on the phone and its About
// group on the desktop. SHOTS picks the paths instead, comma-separated.
//
// SCREENSHOTS=1 writes PNGs, e2e/screenshots/<path>-<phone|desktop>-<light|dark>.png
// (open states <path>-<dialog|menu|about>-...).
//
// SCREENSHOTS=readme writes the screenshot set, WebP at quality
// readmeQuality, into e2e/readme: <screen>-<en|hi|ma>-<phone|desktop>-<light|dark>.webp
// for every screen once (not /home, the home page's other address; one
// member page, one news item), the open states as
// <screen>-<dialog|menu|about>-..., and the first screens README shows
// (readmeFirstScreens) as NAME.top.webp. Without SHOTS it replaces the set
// a run made before and checks that every picture was written, no two
// under one name; only the .top pictures are committed (.gitignore).
func TestScreenshots(t *testing.T) {
	mode := os.Getenv("SCREENSHOTS")
	if mode == "" {
		t.Skip("set SCREENSHOTS=1 to save screenshots under e2e/screenshots (SCREENSHOTS=readme: the set of e2e/readme)")
	}
	pages, notFound := sitePages(t)
	paths := append(pages, notFound...)
	readme := mode == "readme"
	if readme {
		paths = slices.DeleteFunc(paths, func(p string) bool {
			return strings.HasSuffix(p, "/home") || strings.Contains(p, "/news-feed/news/") && !strings.HasSuffix(p, "/news-feed/news/1") ||
				strings.Contains(p, "/member-details-") && !strings.HasSuffix(p, "/member-details-"+firstMember(t))
		})
	}
	if s := os.Getenv("SHOTS"); s != "" {
		paths = strings.Split(s, ",")
	}
	dir := filepath.Join(root, "e2e", "screenshots")
	if readme {
		dir = filepath.Join(root, "e2e", "readme")
	}
	if readme && os.Getenv("SHOTS") == "" { // a new set, all of it
		old, _ := filepath.Glob(filepath.Join(dir, "*.webp"))
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var want []string // the pictures the run should write
	t.Run("shots", func(t *testing.T) {
		for _, device := range []struct {
			name string
			screen
		}{{"phone", phone}, {"desktop", screen{1280, 800}}} {
			for _, scheme := range []string{"light", "dark"} {
				names := func(path, state string) string {
					lang, screen := readmeName(path)
					if !readme {
						lang, screen = "", strings.NewReplacer("/", "_").Replace(strings.TrimPrefix(path, "/"))
						if screen == "" {
							screen = "home"
						}
					}
					return strings.Join(slices.DeleteFunc([]string{screen, state, lang, device.name, scheme}, func(s string) bool { return s == "" }), "-")
				}
				for _, path := range paths {
					want = append(want, names(path, ""))
					_, screen := readmeName(path)
					if slices.Contains(notFound, path) {
						want = append(want, names(path, "dialog"))
					}
					if screen == "home" && !strings.HasSuffix(path, "/home") {
						want = append(want, names(path, map[string]string{"phone": "menu", "desktop": "about"}[device.name]))
					}
					if readme && readmeFirstScreens[names(path, "")] {
						want = append(want, names(path, "")+".top")
					}
				}
				t.Run(device.name+"-"+scheme, func(t *testing.T) {
					t.Parallel()
					p := newPage(t, viewport(device.width, device.height), colorScheme(scheme))
					save := func(name string, full bool) { p.save(dir, name, full, readme) }
					for _, path := range paths {
						p.open(path)
						lang, screen := readmeName(path)
						name := names(path, "")
						if readme {
							p.settleImages()
						}
						save(name, true)
						if readme && readmeFirstScreens[name] {
							save(name+".top", false)
						}
						switch {
						case slices.Contains(notFound, path): // the feedback dialog, open
							p.click(byRole("button", text(t, lang, "notFound.sendFeedback")))
							p.waitFor(`byRole('dialog')?.open === true && document.getAnimations().length === 0`)
							save(names(path, "dialog"), false)
						case screen == "home" && !strings.HasSuffix(path, "/home"): // the menu, open
							key, state, shows := "nav.aboutGroup", "about", "nav.values"
							if device.name == "phone" {
								key, state, shows = "nav.menu", "menu", "nav.faq"
							}
							p.click(byRole("button", text(t, lang, key)))
							p.waitFor(byRole("link", text(t, lang, shows)) + ` !== null && document.getAnimations().length === 0`)
							save(names(path, state), false)
						}
					}
				})
			}
		}
	})
	if !readme || os.Getenv("SHOTS") != "" {
		return
	}
	seen := map[string]bool{}
	for _, name := range want {
		if seen[name] {
			t.Errorf("two pictures of the set are named %s", name)
		}
		seen[name] = true
		if fi, err := os.Stat(filepath.Join(dir, name+".webp")); err != nil || fi.Size() == 0 {
			t.Errorf("the set lacks %s.webp (%v)", name, err)
		}
	}
	t.Logf("%d pictures in e2e/readme", len(want))
}

// readmeFirstScreens are the pictures of the set whose first screen
// README shows: the home page on a desktop in English, on a phone in
// Hindi in the dark scheme and in Marathi in the light one.
var readmeFirstScreens = map[string]bool{
	"home-en-desktop-light": true,
	"home-hi-phone-dark":    true,
	"home-ma-phone-light":   true,
}

// readmeQuality is the WebP quality of e2e/readme's pictures: text stays
// legible, a full page costs tens of kilobytes.
const readmeQuality = 45

// firstMember is the slug of the first member of data/members.json, whose
// page stands for every member's in the set.
func firstMember(t *testing.T) string {
	t.Helper()
	for _, r := range readManifest(t).Routes {
		if slug, ok := strings.CutPrefix(r, "/member-details-"); ok {
			return slug
		}
	}
	t.Fatal("the site has no member page")
	return ""
}

// readmeName is a path's language and screen name: /hi/faq is hi, faq;
// /news-feed/news/1 is news-item; /member-details-x is member; a not-found
// page is not-found.
func readmeName(path string) (lang, screen string) {
	lang = "en"
	for _, l := range languagesUnderTest {
		if l.prefix != "" && (path == l.prefix || strings.HasPrefix(path, l.prefix+"/")) {
			lang, path = l.code, strings.TrimPrefix(path, l.prefix)
		}
	}
	switch {
	case path == "" || path == "/":
		screen = "home"
	case strings.HasPrefix(path, "/news-feed/news/"):
		screen = "news-item"
	case strings.HasPrefix(path, "/member-details-"):
		screen = "member"
	case path == "/no-such-page":
		screen = "not-found"
	default:
		screen = strings.ReplaceAll(strings.TrimPrefix(path, "/"), "/", "-")
	}
	return lang, screen
}

// settleImages scrolls the page through, so its lazy images load, waits
// for them, and returns to the top.
func (p *page) settleImages() {
	p.t.Helper()
	p.do(chromedp.Evaluate[chromedp.Void](`(async () => { for (let y = 0; y < document.body.scrollHeight; y += innerHeight) { scrollTo(0, y); await new Promise(r => setTimeout(r, 30)); } scrollTo(0, 0); })()`, chromedp.EvalAwaitPromise))
	p.waitFor(`[...document.images].every(i => i.complete)`)
}

// save writes the page (full, or its first screen) as dir/NAME.webp at
// readmeQuality (webp), or as a PNG.
func (p *page) save(dir, name string, full, webp bool) {
	p.t.Helper()
	params := cdppage.CaptureScreenshotParams{CaptureBeyondViewport: &full, FromSurface: &full, Format: cdppage.CaptureScreenshotFormatPng}
	ext := ".png"
	if webp {
		q := int64(readmeQuality)
		params.Format, params.Quality, ext = cdppage.CaptureScreenshotFormatWebp, &q, ".webp"
	}
	shot := func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		r, err := cdp.Call(ctx, t, cdppage.CaptureScreenshot, params)
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	}
	b, err := chromedp.Run(p.ctx, chromedp.Action[[]byte](shot))
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+ext), b, 0o644); err != nil {
		p.t.Fatal(err)
	}
}
