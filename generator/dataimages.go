package generator

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // the photos of data/images may be JPEG
	_ "image/png"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gen2brain/webp"
	"golang.org/x/image/draw"
)

// The images of data/images: members' logos and photos, partners' logos,
// the testimonials' portraits, which data/*.json name by their path under
// data/images. A logo is SVG and is published as it is (gzip-compressed
// like every text file). A photo (JPEG or PNG, any size) is optimised at
// build time: scaled down (Catmull-Rom) to each width its kind of picture
// is shown at, encoded as WebP (lossy, libwebp run by WebAssembly in
// wazero: github.com/gen2brain/webp, pure Go, no cgo, no download), and
// offered as a width set (srcset) whose sizes the page gives, loaded
// lazily. WebP is what every browser in use decodes; AVIF would be
// smaller still, but its encoders are C libraries or slow WebAssembly.
// Each file's name carries a hash of its source and of the encoding, so it
// is cached forever; the build's image cache keeps the encodings across
// builds (RenderCache.drawn).

// dataImagesDir holds the images, under the source tree's data/.
const dataImagesDir = "data/images"

// photoQuality is the WebP quality of the photos: flat illustrations and
// photos alike stay sharp at it, at a fraction of the bytes of a JPEG.
const photoQuality = 72

// photoEncoding names the encoding in the files' hashes: change it when
// the encoder or its settings change, so no browser keeps an old file.
const photoEncoding = "webp-q72-m2-catmullrom-cascade-1"

// photoWidths are the widths a photo is encoded at, by the folder of
// data/images it is in (what the pages show it as): portraits are small
// circles, members' photos fill a card or half a page.
var photoWidths = map[string][]int{
	"testimonials": {96, 192, 288},
	"":             {320, 480, 640, 960},
}

// siteImage is one image of data/images as a page shows it: src (the
// largest width up to 640, for a browser that ignores srcset), the width
// set of a photo, and the picture's size in CSS pixels at its natural
// aspect (width and height attributes, so nothing shifts as it loads).
type siteImage struct {
	Src    string `json:"src"`
	SrcSet string `json:"srcSet,omitempty"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// dataImages are the build's images: what pages know of each (SITE_IMAGES)
// and the files to publish, an SVG's content or a photo's encoding.
type dataImages struct {
	manifest map[string]siteImage // by path under data/images
	svgs     map[string][]byte    // published name: content
	photos   []photoFile
}

// photoFile is one width of one photo.
type photoFile struct {
	name, source string // the published name; the source's path
	sum          string // the source's hash
	width        int
}

var viewBox = regexp.MustCompile(`viewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*"`)

// readDataImages reads data/images: every image's size and, for a photo,
// the widths it is encoded at; nothing is encoded yet (photoFiles).
func readDataImages(root string) (*dataImages, error) {
	d := &dataImages{manifest: map[string]siteImage{}, svgs: map[string][]byte{}}
	dir := filepath.Join(root, filepath.FromSlash(dataImagesDir))
	err := filepath.WalkDir(dir, func(file string, e fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && file == dir {
				return filepath.SkipDir
			}
			return err
		}
		if e.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, file)
		rel = filepath.ToSlash(rel)
		raw, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(raw)
		base := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
		switch strings.ToLower(path.Ext(rel)) {
		case ".svg":
			m := viewBox.FindSubmatch(raw)
			if m == nil {
				return fmt.Errorf("%s/%s: an SVG image needs a viewBox (its size)", dataImagesDir, rel)
			}
			w, _ := strconv.ParseFloat(string(m[1]), 64)
			h, _ := strconv.ParseFloat(string(m[2]), 64)
			name := hashedDir + "img-" + base + "-" + strings.ToUpper(hex.EncodeToString(sum[:4])) + ".svg"
			d.svgs[name] = bytes.TrimSpace(raw)
			d.manifest[rel] = siteImage{Src: "/" + name, Width: int(w), Height: int(h)}
		case ".jpg", ".jpeg", ".png":
			cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
			if err != nil {
				return fmt.Errorf("reading %s/%s: %w", dataImagesDir, rel, err)
			}
			widths, ok := photoWidths[strings.Split(rel, "/")[0]]
			if !ok {
				widths = photoWidths[""]
			}
			var set []string
			img := siteImage{Width: cfg.Width, Height: cfg.Height}
			for i, w := range widths {
				if w > cfg.Width {
					if i > 0 && widths[i-1] >= cfg.Width {
						break
					}
					w = cfg.Width // the largest is the source's own width
				}
				key := sha256.Sum256([]byte(fmt.Sprintf("%x %s %d", sum, photoEncoding, w)))
				name := fmt.Sprintf("%simg-%s-%d-%s.webp", hashedDir, base, w, strings.ToUpper(hex.EncodeToString(key[:4])))
				d.photos = append(d.photos, photoFile{name: name, source: file, sum: hex.EncodeToString(sum[:]), width: w})
				set = append(set, fmt.Sprintf("/%s %dw", name, w))
				if w <= 640 {
					img.Src = "/" + name
				}
			}
			img.SrcSet = strings.Join(set, ", ")
			if img.Src == "" {
				img.Src = strings.Fields(set[0])[0]
			}
			// The picture's size at the widest width it is offered at.
			largest := widths[min(len(widths), len(set))-1]
			if largest < cfg.Width {
				img.Width, img.Height = largest, (cfg.Height*largest+cfg.Width/2)/cfg.Width
			}
			d.manifest[rel] = img
		default:
			return fmt.Errorf("%s/%s: images are SVG (logos), JPEG or PNG (photos)", dataImagesDir, rel)
		}
		return nil
	})
	return d, err
}

// manifestJSON is SITE_IMAGES: what the pages know of each image.
func (d *dataImages) manifestJSON() string {
	b, _ := json.Marshal(d.manifest)
	return string(b)
}

// files adds every image's files to files: the SVGs as they are, the
// photos encoded (or taken from cache, by what they are made of). Each
// photo's widths are scaled down from its next wider one, largest first
// (a smaller image to scale each time), and the photos are encoded on
// every core; start runs it beside the rest of the build and the
// function it returns waits for it.
func (d *dataImages) start(cache *RenderCache) func(files map[string][]byte) error {
	out := map[string][]byte{}
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	bySource := map[string][]photoFile{}
	var sources []string
	for _, p := range d.photos {
		if bySource[p.source] == nil {
			sources = append(sources, p.source)
		}
		bySource[p.source] = append(bySource[p.source], p)
	}
	work := make(chan string)
	for range min(runtime.NumCPU(), max(1, len(sources))) {
		wg.Go(func() {
			for file := range work {
				files, err := encodePhoto(file, bySource[file], cache)
				mu.Lock()
				maps.Copy(out, files)
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		})
	}
	go func() {
		for _, file := range sources {
			work <- file
		}
		close(work)
	}()
	return func(files map[string][]byte) error {
		wg.Wait()
		maps.Copy(files, d.svgs)
		maps.Copy(files, out)
		return errors.Join(errs...)
	}
}

// encodePhoto encodes the widths of one photo, widest first, each scaled
// from the one before (the source first), decoding it only if a width is
// not in the cache. A width's pixels are the same whichever of the wider
// ones the cache held: a width missing from it is scaled down the whole
// cascade, not from the source.
func encodePhoto(file string, widths []photoFile, cache *RenderCache) (map[string][]byte, error) {
	files := map[string][]byte{}
	slices.SortFunc(widths, func(a, b photoFile) int { return b.width - a.width })
	var from image.Image // the source, then each width as it is scaled
	scaled := -1         // the index of the width from holds (-1: the source)
	pixels := func(i int) (image.Image, error) {
		if from == nil {
			f, err := os.Open(file)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			if from, _, err = image.Decode(f); err != nil {
				return nil, fmt.Errorf("decoding %s: %w", file, err)
			}
		}
		for ; scaled < i; scaled++ {
			b := from.Bounds()
			w := widths[scaled+1].width
			dst := image.NewNRGBA(image.Rect(0, 0, w, (b.Dy()*w+b.Dx()/2)/b.Dx()))
			draw.CatmullRom.Scale(dst, dst.Bounds(), from, b, draw.Src, nil)
			from = dst
		}
		return from, nil
	}
	for i, p := range widths {
		_, content, err := cache.drawn(drawKey("photo", p.name, p.sum), func() (string, []byte, error) {
			img, err := pixels(i)
			if err != nil {
				return "", nil, err
			}
			var out bytes.Buffer
			if err := webp.Encode(&out, img, webp.Options{Quality: photoQuality, Method: 2}); err != nil {
				return "", nil, fmt.Errorf("encoding %s at %d px: %w", file, p.width, err)
			}
			return p.name, out.Bytes(), nil
		})
		if err != nil {
			return nil, err
		}
		files[p.name] = content
	}
	return files, nil
}

// largestCandidate is the widest image of a srcset (what a page may cost
// on a large, dense screen), "" when it has none.
func largestCandidate(srcset string) string {
	best, bestW := "", -1
	for c := range strings.SplitSeq(srcset, ",") {
		f := strings.Fields(c)
		if len(f) == 0 {
			continue
		}
		w := 0
		if len(f) > 1 {
			w, _ = strconv.Atoi(strings.TrimSuffix(f[1], "w"))
		}
		if w > bestW {
			best, bestW = f[0], w
		}
	}
	return best
}
