package generator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// appQRCode is the QR code of the mobile app's download link (SPEC §2,
// Mobile app): an SVG under assets/build/ named by its content hash.
type appQRCode struct {
	URL  string // the absolute URL it encodes
	File string // its path under dist/
	SVG  []byte
}

// newAppQRCode encodes the app's download URL, made absolute against the
// site's base URL, since a phone scanning the code knows no page to
// resolve a relative link against.
func newAppQRCode(base, androidURL string) (*appQRCode, error) {
	if androidURL == "" {
		return nil, fmt.Errorf("site.json app.androidURL is empty: the mobile app page needs the download link")
	}
	b, err := url.Parse(base + "/")
	if err != nil {
		return nil, err
	}
	ref, err := url.Parse(androidURL)
	if err != nil {
		return nil, fmt.Errorf("site.json app.androidURL %q: %w", androidURL, err)
	}
	abs := b.ResolveReference(ref).String()
	svg, err := qrSVG(abs)
	if err != nil {
		return nil, fmt.Errorf("drawing the QR code of %s: %w", abs, err)
	}
	sum := sha256.Sum256(svg)
	return &appQRCode{URL: abs, File: hashedDir + "app-qr-" + hex.EncodeToString(sum[:4]) + ".svg", SVG: svg}, nil
}

// qrSVG draws content as a QR code (error correction M, quiet zone
// included) in an SVG of one path, one unit per module, each row's dark
// runs as rectangles; crispEdges keeps module edges sharp at any size.
func qrSVG(content string) ([]byte, error) {
	q, err := qrcode.New(content, qrcode.Medium)
	if err != nil {
		return nil, err
	}
	bits := q.Bitmap()
	n := len(bits)
	var d strings.Builder
	for y, row := range bits {
		for x := 0; x < n; {
			if !row[x] {
				x++
				continue
			}
			start := x
			for x < n && row[x] {
				x++
			}
			fmt.Fprintf(&d, "M%d %dh%dv1H%dz", start, y, x-start, start)
		}
	}
	return fmt.Appendf(nil, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges"><rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="%s"/></svg>`,
		n, n, n, n, d.String()), nil
}
