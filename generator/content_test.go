package generator

import (
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"

	"freightsite/data"
)

func TestOverrideSettings(t *testing.T) {
	raw := []byte(`{"name": "N", "copyrightStartYear": 2011, "languages": [{"code": "en"}], "payment": {"donationURL": "https://a.example/d", "currency": "USD"}}`)
	cases := []struct {
		name    string
		set     map[string]string
		want    map[string]any // dotted path -> value after the override
		unknown bool
		invalid bool
	}{
		{name: "no settings keep the file as it is", set: nil},
		{name: "a nested text is replaced", set: map[string]string{"payment.donationURL": "http://127.0.0.1:9/d"},
			want: map[string]any{"payment.donationURL": "http://127.0.0.1:9/d", "payment.currency": "USD", "copyrightStartYear": float64(2011)}},
		{name: "a top-level text is replaced", set: map[string]string{"name": "M"}, want: map[string]any{"name": "M"}},
		{name: "a misspelt setting is refused", set: map[string]string{"payment.donationUrl": "x"}, unknown: true},
		{name: "a missing object is refused", set: map[string]string{"app.androidURL": "x"}, unknown: true},
		{name: "a number is not a text setting", set: map[string]string{"copyrightStartYear": "2012"}, unknown: true},
		{name: "a list is not an object", set: map[string]string{"languages.0": "x"}, unknown: true},
		{name: "an object is not a text setting", set: map[string]string{"payment": "x"}, unknown: true},
		{name: "a bidi override is refused", set: map[string]string{"name": "Acme\u202eTransport"}, invalid: true},
		{name: "a zero-width space is refused", set: map[string]string{"name": "Ac\u200bme"}, invalid: true},
		{name: "a soft hyphen is refused", set: map[string]string{"payment.currency": "US\u00adD"}, invalid: true},
		{name: "a line break is refused", set: map[string]string{"name": "Acme\nTransport"}, invalid: true},
		{name: "Devanagari with a joiner after a virama is text", set: map[string]string{"name": "सह्याद्री र्\u200dया"}, want: map[string]any{"name": "सह्याद्री र्\u200dया"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := overrideSettings(raw, c.set)
			if c.unknown || c.invalid {
				if want := map[bool]error{true: ErrUnknownSetting, false: ErrInvalidSetting}[c.unknown]; !errors.Is(err, want) {
					t.Fatalf("err = %v, want %v", err, want)
				}
				for key := range c.set {
					if !strings.Contains(err.Error(), strconv.Quote(key)) {
						t.Errorf("error %q does not name %q", err, key)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.set == nil && string(out) != string(raw) {
				t.Errorf("changed without settings: %s", out)
			}
			var doc map[string]any
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatal(err)
			}
			for key, want := range c.want {
				var node any = doc
				for _, part := range strings.Split(key, ".") {
					node = node.(map[string]any)[part]
				}
				if node != want {
					t.Errorf("%s = %v, want %v", key, node, want)
				}
			}
		})
	}
}

// TestSettingsReachPagesAndHeaders: a build with other payment endpoints
// puts them in the donation island and allows exactly them in the CSP.
func TestSettingsReachPagesAndHeaders(t *testing.T) {
	if html, headers := readDist(t, "donate/index.html"), readDist(t, headersFile); !strings.Contains(html, "https://payments.example.com/donate") ||
		!strings.Contains(headers, "form-action 'self' https://payments.example.com;") {
		t.Fatalf("the default build lacks site.json's payment provider:\n%s", headers)
	}
	out := filepath.Join(t.TempDir(), "dist")
	_, err := Build(Options{Root: "..", Out: out, Year: 2030, Settings: map[string]string{
		"payment.donationURL":     "http://127.0.0.1:4321/give",
		"payment.subscriptionURL": "http://127.0.0.1:4321/monthly",
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"", "hi/", "ma/"} {
		html, _ := os.ReadFile(filepath.Join(out, lang+"donate", "index.html"))
		for _, want := range []string{`&quot;donationURL&quot;:&quot;http://127.0.0.1:4321/give&quot;`, `&quot;subscriptionURL&quot;:&quot;http://127.0.0.1:4321/monthly&quot;`, `action="http://127.0.0.1:4321/give"`} {
			if !strings.Contains(string(html), want) {
				t.Errorf("/%sdonate lacks %s", lang, want)
			}
		}
		if strings.Contains(string(html), "payments.example.com") {
			t.Errorf("/%sdonate still names site.json's provider", lang)
		}
	}
	headers, _ := os.ReadFile(filepath.Join(out, headersFile))
	if !strings.Contains(string(headers), "form-action 'self' http://127.0.0.1:4321;") {
		t.Errorf("the CSP does not allow exactly the overridden provider:\n%s", headers)
	}

	_, err = Build(Options{Root: "..", Out: filepath.Join(t.TempDir(), "dist"), Settings: map[string]string{"payment.url": "x"}})
	if !errors.Is(err, ErrUnknownSetting) {
		t.Errorf("an unknown setting: err = %v", err)
	}
}

var reQRImage = regexp.MustCompile(`<img src="(/assets/build/app-qr-[0-9a-f]+\.svg)" alt="([^"]+)" width="200" height="200"[^>]*/>`)

// TestAppQRCodeReadsTheDownloadLink decodes the QR code the mobile app
// page shows in each language and compares it with site.json.
func TestAppQRCodeReadsTheDownloadLink(t *testing.T) {
	site := data.Site()
	for _, l := range langs {
		html := readDist(t, routeFile(l.prefix, "/mobile-app"))
		m := reQRImage.FindStringSubmatch(html)
		if m == nil {
			t.Fatalf("%s /mobile-app has no QR image", l.code)
		}
		if got := decodeQRSVG(t, []byte(readDist(t, strings.TrimPrefix(m[1], "/")))); got != site.App.AndroidURL {
			t.Errorf("%s: the QR code reads %q, want %q", l.code, got, site.App.AndroidURL)
		}
		if !strings.Contains(html, `href="`+site.App.AndroidURL+`"`) {
			t.Errorf("%s /mobile-app does not link the download", l.code)
		}
	}
}

func TestAppQRCodeIsAbsolute(t *testing.T) {
	for _, c := range []struct{ base, app, want string }{
		{"https://freight.example", "https://cdn.example/app.apk", "https://cdn.example/app.apk"},
		{"https://freight.example", "/downloads/app.apk", "https://freight.example/downloads/app.apk"},
		{"https://freight.example/site", "app.apk", "https://freight.example/site/app.apk"},
	} {
		qr, err := newAppQRCode(c.base, c.app)
		if err != nil {
			t.Fatal(err)
		}
		if qr.URL != c.want || !strings.HasPrefix(qr.File, hashedDir) {
			t.Errorf("%s on %s: %s in %s", c.app, c.base, qr.URL, qr.File)
		}
		if got := decodeQRSVG(t, qr.SVG); got != c.want {
			t.Errorf("%s on %s: the code reads %q, want %q", c.app, c.base, got, c.want)
		}
	}
	if _, err := newAppQRCode("https://freight.example", ""); err == nil || !strings.Contains(err.Error(), "app.androidURL") {
		t.Errorf("an empty app URL: err = %v", err)
	}
}

var (
	reViewBox = regexp.MustCompile(`viewBox="0 0 (\d+) (\d+)"`)
	reRun     = regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1H\d+z`)
)

// decodeQRSVG paints the runs of dark modules of qrSVG's drawing at 4
// pixels a module and reads the code back with ZXing.
func decodeQRSVG(t *testing.T, svg []byte) string {
	t.Helper()
	vb := reViewBox.FindSubmatch(svg)
	if vb == nil {
		t.Fatalf("no viewBox in %.80s", svg)
	}
	n, _ := strconv.Atoi(string(vb[1]))
	const scale = 4
	img := image.NewGray(image.Rect(0, 0, n*scale, n*scale))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for _, r := range reRun.FindAllSubmatch(svg, -1) {
		x, _ := strconv.Atoi(string(r[1]))
		y, _ := strconv.Atoi(string(r[2]))
		w, _ := strconv.Atoi(string(r[3]))
		for py := y * scale; py < (y+1)*scale; py++ {
			for px := x * scale; px < (x+w)*scale; px++ {
				img.SetGray(px, py, color.Gray{})
			}
		}
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("decoding the QR code: %v", err)
	}
	return res.GetText()
}

// reKeyLeak finds a translation key of the content screens printed as
// text, which is what t() returns for a key the locales lack.
var reKeyLeak = regexp.MustCompile(`\b(readMore|aboutUs|values|services|faq|testimonials|terms|copyright|legal|privacyPolicy|membersProfile|memberDetails|memberProfiles|mobileApp|donate)\.[a-zA-Z]`)

func TestContentPagesHaveNoMissingTexts(t *testing.T) {
	pages := []string{"/about-us", "/values", "/services", "/faq", "/testimonials", "/terms-n-conditions", "/copyright",
		"/privacy-policy", "/legal", "/members-profile", "/mobile-app", "/donate"}
	for _, m := range readMembers(t) {
		pages = append(pages, "/member-details-"+m)
	}
	for _, l := range langs {
		for _, p := range pages {
			html := readDist(t, routeFile(l.prefix, p))
			if leak := reKeyLeak.FindString(html); leak != "" {
				t.Errorf("%s%s shows the key %q instead of a text", l.prefix, p, leak)
			}
		}
	}
}

func readMembers(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "data", "members.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ms []struct{ Slug string }
	if err := json.Unmarshal(raw, &ms); err != nil {
		t.Fatal(err)
	}
	slugs := make([]string, len(ms))
	for i, m := range ms {
		slugs[i] = m.Slug
	}
	return slugs
}
