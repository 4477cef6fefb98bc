package e2e

import (
	"context"
	"fmt"
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
// languages, on a 390 px phone and a 1366 px desktop, in the light and the
// dark colour scheme, when SCREENSHOTS is set (for people to look at; the
// assertions live in the other tests). SHOTS picks the paths instead,
// comma-separated. Files are e2e/screenshots/<path>-<phone|desktop>-<light|dark>.png;
// the not-found pages also show their feedback dialog open (<path>-dialog-...).
//
// SCREENSHOTS=readme writes the set kept in the repository instead:
// e2e/readme/<screen>-<en|hi|ma>-<phone|desktop>-<light|dark>.webp, every
// screen once (not /home, the home page's other address; one news item)
// at WebP quality readmeQuality, and the two pictures README shows, the
// first screen of the home page: home-en-desktop.webp and
// home-ma-phone.webp.
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
			return strings.HasSuffix(p, "/home") || strings.Contains(p, "/news-feed/news/") && !strings.HasSuffix(p, "/news-feed/news/1")
		})
	}
	if s := os.Getenv("SHOTS"); s != "" {
		paths = strings.Split(s, ",")
	}
	for _, device := range []struct {
		name          string
		width, height int64
	}{{"phone", 390, 844}, {"desktop", 1366, 900}} {
		for _, scheme := range []string{"light", "dark"} {
			t.Run(device.name+"-"+scheme, func(t *testing.T) {
				t.Parallel()
				p := newPage(t, viewport(device.width, device.height), colorScheme(scheme))
				for _, path := range paths {
					p.open(path)
					if readme {
						lang, screen := readmeName(path)
						p.settleImages()
						p.readmeShot(fmt.Sprintf("%s-%s-%s-%s", screen, lang, device.name, scheme), true)
						if screen == "home" && scheme == "light" && (lang == "en" && device.name == "desktop" || lang == "ma" && device.name == "phone") {
							p.readmeShot(fmt.Sprintf("home-%s-%s", lang, device.name), false)
						}
						continue
					}
					name := strings.NewReplacer("/", "_").Replace(strings.TrimPrefix(path, "/"))
					if name == "" {
						name = "home"
					}
					p.screenshot(name + "-" + device.name + "-" + scheme)
					// The not-found page's feedback dialog, open.
					if slices.Contains(notFound, path) {
						p.click(`[data-opens="feedback-dialog"]`)
						p.waitFor(`document.querySelector('dialog#feedback-dialog')?.open === true && document.getAnimations().length === 0`)
						p.screenshot(name + "-dialog-" + device.name + "-" + scheme)
					}
				}
			})
		}
	}
}

// readmeQuality is the WebP quality of e2e/readme's pictures: text stays
// legible, a full page costs tens of kilobytes.
const readmeQuality = 45

// readmeName is a path's language and screen name: /hi/faq is hi, faq;
// /news-feed/news/1 is news-item; a not-found page is not-found.
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

// readmeShot saves the page (full, or its first screen) as
// e2e/readme/NAME.webp.
func (p *page) readmeShot(name string, full bool) {
	p.t.Helper()
	q := int64(readmeQuality)
	shot := func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		r, err := cdp.Call(ctx, t, cdppage.CaptureScreenshot, cdppage.CaptureScreenshotParams{CaptureBeyondViewport: &full, FromSurface: &full, Format: cdppage.CaptureScreenshotFormatWebp, Quality: &q})
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	}
	b, err := chromedp.Run(p.ctx, chromedp.Action[[]byte](shot))
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "e2e", "readme", name+".webp"), b, 0o644); err != nil {
		p.t.Fatal(err)
	}
}
