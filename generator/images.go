package generator

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/go-text/render"
	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/shaping"
	"github.com/srwiley/oksvg"
	"github.com/srwiley/rasterx"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/math/fixed"
)

// The build's raster images, all drawn from the logo mark (favicon.svg,
// rendered from pages/components/Logo.tsx): the app icons the web app
// manifests name, in the sizes Android asks for, and one link preview per
// language with the mark, the site's name and the home page's tagline.
// They are written under hashedDir with their content hash in the name, so
// they are cached forever.

// previewFont draws the previews' Devanagari: Noto Sans Devanagari Bold
// (SIL Open Font License, data/fonts/OFL.txt); the other letters are Go
// Bold (golang.org/x/image/font/gofont, BSD). The text is shaped by
// go-text's HarfBuzz port, so conjuncts and vowel signs come out as a
// browser draws them.
const previewFont = "data/fonts/NotoSansDevanagari-Bold.ttf"

// Preview size: what WhatsApp, Facebook, LinkedIn and X show large.
const previewWidth, previewHeight = 1200, 630

// The mark's colours (Logo.tsx): the tile's blue and the destination's saffron.
var (
	brandBlue    = color.NRGBA{0x0b, 0x53, 0x94, 0xff}
	brandSaffron = color.NRGBA{0xf5, 0x9e, 0x0b, 0xff}
	previewInk   = color.NRGBA{0x1f, 0x29, 0x37, 0xff}
)

// appIcon is one icon of the web app manifests.
type appIcon struct {
	Src     string `json:"src"`
	Sizes   string `json:"sizes"`
	Type    string `json:"type"`
	Purpose string `json:"purpose,omitempty"`
}

// hashedPNG encodes img and names it under hashedDir by its content.
func hashedPNG(name string, img image.Image) (string, []byte, error) {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.DefaultCompression}
	if err := enc.Encode(&b, img); err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(b.Bytes())
	return hashedDir + name + "-" + strings.ToUpper(hex.EncodeToString(sum[:4])) + ".png", b.Bytes(), nil
}

// drawSVG draws the SVG document into dst, scaled into the square of side
// size at (x, y). rasterx covers its whole image with every shape it
// fills, so the drawing is made in an image of its own size and laid over.
func drawSVG(dst draw.Image, svg string, x, y, size int) error {
	icon, err := oksvg.ReadIconStream(strings.NewReader(svg), oksvg.StrictErrorMode)
	if err != nil {
		return fmt.Errorf("reading the logo mark: %w", err)
	}
	icon.SetTarget(0, 0, float64(size), float64(size))
	// oksvg scales a path's points to the target but not its stroke.
	for i := range icon.SVGPaths {
		icon.SVGPaths[i].LineWidth *= float64(size) / icon.ViewBox.W
	}
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	icon.Draw(rasterx.NewDasher(size, size, rasterx.NewScannerGV(size, size, img, img.Bounds())), 1)
	draw.Draw(dst, image.Rect(x, y, x+size, y+size), img, image.Point{}, draw.Over)
	return nil
}

// appIcons draws the mark at 192 and 512 pixels, and as a maskable icon:
// on a full square of the tile's blue, with the mark inside the central
// circle of 80% that every launcher's mask keeps.
func appIcons(mark string, cache *RenderCache) ([]appIcon, map[string][]byte, error) {
	var icons []appIcon
	files := map[string][]byte{}
	for _, ic := range []struct {
		size     int
		maskable bool
	}{{192, false}, {512, false}, {512, true}} {
		name, purpose, inset := fmt.Sprintf("icon-%d", ic.size), "", 0
		if ic.maskable {
			name, purpose, inset = name+"-maskable", "maskable", ic.size/5
		}
		file, content, err := cache.drawn(drawKey("icon", name, mark), func() (string, []byte, error) {
			img := image.NewNRGBA(image.Rect(0, 0, ic.size, ic.size))
			if ic.maskable {
				draw.Draw(img, img.Bounds(), image.NewUniform(brandBlue), image.Point{}, draw.Src)
			}
			if err := drawSVG(img, mark, inset, inset, ic.size-2*inset); err != nil {
				return "", nil, err
			}
			return hashedPNG(name, img)
		})
		if err != nil {
			return nil, nil, err
		}
		files[file] = content
		icons = append(icons, appIcon{Src: "/" + file, Sizes: fmt.Sprintf("%dx%d", ic.size, ic.size), Type: "image/png", Purpose: purpose})
	}
	return icons, files, nil
}

// previewMaker draws link previews with the preview font.
type previewMaker struct {
	devanagari, latin *font.Face
	mark              string
	fonts             string // hash of the fonts' files, for drawKey
}

func newPreviewMaker(root, mark string) (*previewMaker, error) {
	raw, err := os.ReadFile(filepath.Join(root, previewFont))
	if err != nil {
		return nil, fmt.Errorf("reading the preview font: %w", err)
	}
	devanagari, err := font.ParseTTF(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("reading the preview font %s: %w", previewFont, err)
	}
	latin, err := font.ParseTTF(bytes.NewReader(gobold.TTF))
	if err != nil {
		return nil, err
	}
	return &previewMaker{devanagari: devanagari, latin: latin, mark: mark, fonts: hash(append(raw, gobold.TTF...))}, nil
}

// preview draws one language's preview: the mark and the site's name on
// top, the tagline below in lines that fit, a saffron band at the foot.
func (p *previewMaker) preview(name, tagline string) (image.Image, error) {
	for _, r := range name + tagline {
		if _, ok := p.ResolveFace(r).NominalGlyph(r); !ok {
			return nil, fmt.Errorf("the preview fonts have no letter %q (of %q)", r, tagline)
		}
	}
	img := image.NewNRGBA(image.Rect(0, 0, previewWidth, previewHeight))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(0, previewHeight-24, previewWidth, previewHeight), image.NewUniform(brandSaffron), image.Point{}, draw.Src)
	const margin, markSize = 80, 128
	if err := drawSVG(img, p.mark, margin, margin, markSize); err != nil {
		return nil, err
	}
	p.draw(img, p.shape(name, 60), margin+markSize+40, margin+markSize/2+22, brandBlue, 60)
	// The tagline: as large as fits in three lines.
	width := previewWidth - 2*margin
	for size := 72; size >= 32; size -= 4 {
		lines := p.wrap(tagline, size, width)
		if len(lines) > 3 && size > 32 {
			continue
		}
		y := margin + markSize + 60 + size
		for _, l := range lines {
			p.draw(img, l, margin, y, previewInk, size)
			y += size * 3 / 2
		}
		break
	}
	return img, nil
}

// shape lays out one line of text at size pixels.
func (p *previewMaker) shape(text string, size int) shaping.Line {
	runes := []rune(text)
	in := shaping.Input{Text: runes, RunEnd: len(runes), Face: p.latin, Size: fixed.I(size)}
	var seg shaping.Segmenter
	var shaper shaping.HarfbuzzShaper
	var line shaping.Line
	for _, run := range seg.Split(in, p) {
		line = append(line, shaper.Shape(run))
	}
	return line
}

func lineWidth(l shaping.Line) int {
	var w fixed.Int26_6
	for _, run := range l {
		w += run.Advance
	}
	return w.Ceil()
}

// wrap breaks text at spaces into lines no wider than width.
func (p *previewMaker) wrap(text string, size, width int) []shaping.Line {
	var lines []shaping.Line
	var current string
	for _, word := range strings.Fields(text) {
		next := strings.TrimSpace(current + " " + word)
		if current != "" && lineWidth(p.shape(next, size)) > width {
			lines = append(lines, p.shape(current, size))
			next = word
		}
		current = next
	}
	return append(lines, p.shape(current, size))
}

// draw draws a line with its baseline at y, in a band of its own laid
// over img (see drawSVG).
func (p *previewMaker) draw(img draw.Image, line shaping.Line, x, y int, c color.Color, size int) {
	top, height := y-size*3/2, size*2
	band := image.NewNRGBA(image.Rect(0, 0, img.Bounds().Dx(), height))
	r := render.Renderer{FontSize: float32(size), Color: c}
	for _, run := range line {
		x = r.DrawShapedRunAt(run, band, x, y-top)
	}
	draw.Draw(img, image.Rect(0, top, band.Rect.Dx(), top+height), band, image.Point{}, draw.Over)
}

// ResolveFace picks the font of a letter: Noto for Devanagari (with the
// Vedic signs and extensions), Go Bold for the rest.
func (p *previewMaker) ResolveFace(r rune) *font.Face {
	if unicode.Is(unicode.Devanagari, r) || r == '\u0964' || r == '\u0965' || (r >= 0x1cd0 && r <= 0x1cff) {
		return p.devanagari
	}
	return p.latin
}
