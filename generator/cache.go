package generator

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The render cache keeps what the server bundle rendered, by a hash of
// everything the render read, so a rebuild renders only the pages whose
// inputs changed (none, when nothing did) and need not start the
// JavaScript runtimes at all then.
//
// A page's inputs are the server bundle (it holds the page code, data/,
// the site settings with their overrides, the QR code's path and the
// reCAPTCHA key, all compiled in), the texts of the page's language, the
// route, the language, the year and, for the pages that read them (the
// server bundle tells: page.Reads), the key figures. The base URL is not
// read by the render (the document around it is written on every build)
// and is in the key anyway, so that a page never depends on it unnoticed.
// The news archive's pages are filled from shapes (news.go), each shape a
// render with its key; a filled page's key covers its shapes' keys and
// its items (Filled), so a rebuild tells the pages whose inputs changed.
//
// The cache lives in the releases folder (renderCacheFile), not in the
// published output; a caller that rebuilds often (freightsite dev) may keep
// one in memory across builds instead (Options.Cache).

// renderCacheFile is the file in <out>.releases/ holding the render cache.
const renderCacheFile = ".render-cache.json"

// renderCacheVersion changes when what a key covers or what an entry holds
// changes, so an older cache file is ignored rather than misread. Every key
// also covers the program itself (program): the Go side shapes a render
// too (goja, escapeHTML, stringRenderer's edits), so another build of
// freightsite renders everything again.
const renderCacheVersion = "freightsite render cache 2"

// RenderCache holds renders by the hash of their inputs. It is safe for use
// by one build at a time.
type RenderCache struct {
	mu    sync.Mutex
	Pages map[string]cachedPage `json:"pages"`
	// Sites are the route lists and favicons, by the hash of the bundle
	// and the runtimes' globals they came from.
	Sites map[string]siteRender `json:"sites"`
	// Drawn are the images drawn in Go (link previews, app icons), by
	// the hash of what they were drawn from (see RenderCache.drawn).
	Drawn map[string]drawnFile `json:"drawn"`
	// Filled are the keys of the news archive's pages the build filled.
	Filled map[string]bool `json:"filled"`
	// drawnDir, when set, keeps the drawings across builds and outputs
	// too, one file each by key (Options.ImageCache): a clean build of
	// the same site draws nothing. It keeps the gzip of the assets too
	// (gzipped).
	drawnDir  string
	pruneOnce sync.Once
	// used are the keys read or written by the current build; changed
	// says it wrote some.
	used    map[string]bool
	changed bool
}

type cachedPage struct {
	Page page `json:"page"`
	// Data are the hashes of the build's data the page read (page.Reads),
	// by name: the render stands for those only.
	Data map[string]string `json:"data,omitempty"`
}

type drawnFile struct {
	Name    string `json:"name"`
	Content []byte `json:"content"`
}

type siteRender struct {
	Routes  []routeInfo `json:"routes"`
	Favicon string      `json:"favicon"`
}

// NewRenderCache returns an empty render cache.
func NewRenderCache() *RenderCache {
	return &RenderCache{Pages: map[string]cachedPage{}, Sites: map[string]siteRender{}, Drawn: map[string]drawnFile{}, Filled: map[string]bool{}, used: map[string]bool{}}
}

// loadRenderCache reads the cache file in dir, or gives an empty cache if
// there is none or it was written by another version.
func loadRenderCache(dir string) (*RenderCache, error) {
	c := NewRenderCache()
	raw, err := os.ReadFile(filepath.Join(dir, renderCacheFile))
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	var file struct {
		Version string `json:"version"`
		*RenderCache
	}
	file.RenderCache = c
	if err := json.Unmarshal(raw, &file); err != nil || file.Version != renderCacheVersion {
		return NewRenderCache(), nil // unreadable or older: render everything
	}
	return c, nil
}

// forgetUnused drops the entries the build did not use, so the cache
// holds one build's renders and no more.
func (c *RenderCache) forgetUnused() {
	c.mu.Lock()
	defer c.mu.Unlock()
	maps.DeleteFunc(c.Pages, func(k string, _ cachedPage) bool { return !c.used[k] })
	maps.DeleteFunc(c.Sites, func(k string, _ siteRender) bool { return !c.used[k] })
	maps.DeleteFunc(c.Drawn, func(k string, _ drawnFile) bool { return !c.used[k] })
	maps.DeleteFunc(c.Filled, func(k string, _ bool) bool { return !c.used[k] })
}

// save writes the cache into dir (one rename: a reader sees the old file
// or the new one).
func (c *RenderCache) save(dir string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	file := struct {
		Version string                `json:"version"`
		Pages   map[string]cachedPage `json:"pages"`
		Sites   map[string]siteRender `json:"sites"`
		Drawn   map[string]drawnFile  `json:"drawn"`
		Filled  map[string]bool       `json:"filled"`
	}{renderCacheVersion, c.Pages, c.Sites, c.Drawn, c.Filled}
	raw, err := json.Marshal(file)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// A temporary file of its own, as builds into one output may overlap
	// (removeStale deletes one a killed build left).
	tmp, err := os.CreateTemp(dir, ".new-render-cache-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails once renamed
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, renderCacheFile))
}

// startBuild forgets which entries the previous build used.
func (c *RenderCache) startBuild() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.used, c.changed = map[string]bool{}, false
}

// page is the render cached under key, if it stands for this build's
// data (their hashes by name).
func (c *RenderCache) page(key string, data map[string]string) (page, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.Pages[key]
	if !ok {
		return page{}, false
	}
	for _, name := range p.Page.Reads {
		if p.Data[name] != data[name] {
			return page{}, false
		}
	}
	c.used[key] = true
	return p.Page, true
}

func (c *RenderCache) putPage(key string, data map[string]string, p page) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entry := cachedPage{Page: p}
	for _, name := range p.Reads {
		if entry.Data == nil {
			entry.Data = map[string]string{}
		}
		entry.Data[name] = data[name]
	}
	c.Pages[key], c.used[key], c.changed = entry, true, true
}

// filled notes a page of the news archive filled under key, and says
// whether the last build filled it too.
func (c *RenderCache) filled(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	had := c.Filled[key]
	if !had {
		c.Filled[key], c.changed = true, true
	}
	c.used[key] = true
	return had
}

func (c *RenderCache) site(key string) (siteRender, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.Sites[key]
	if ok {
		c.used[key] = true
	}
	return s, ok
}

func (c *RenderCache) putSite(key string, s siteRender) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Sites[key], c.used[key], c.changed = s, true, true
}

// drawn gives the file (name and content) that draw makes from the
// inputs of key (which names them all, the program among them: see
// drawKey), from the cache when it drew them before.
// A nil cache draws every time.
func (c *RenderCache) drawn(key string, draw func() (string, []byte, error)) (string, []byte, error) {
	if c == nil {
		return draw()
	}
	c.mu.Lock()
	f, ok := c.Drawn[key]
	if ok {
		c.used[key] = true
	}
	c.mu.Unlock()
	if ok {
		return f.Name, f.Content, nil
	}
	name, content := c.drawnOnDisk(key)
	if content == nil {
		var err error
		if name, content, err = draw(); err != nil {
			return "", nil, err
		}
		c.keepDrawn(key, name, content)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Drawn[key], c.used[key], c.changed = drawnFile{name, content}, true, true
	return name, content, nil
}

// drawnOnDisk is the drawing of key in drawnDir, if it is there: its name
// on the first line, its content after.
func (c *RenderCache) drawnOnDisk(key string) (string, []byte) {
	raw := c.onDisk(key)
	name, content, ok := strings.Cut(string(raw), "\n")
	if raw == nil || !ok {
		return "", nil
	}
	return name, []byte(content)
}

// keepDrawn puts a drawing into drawnDir.
func (c *RenderCache) keepDrawn(key, name string, content []byte) {
	c.keepOnDisk(key, append([]byte(name+"\n"), content...))
}

// onDisk is the file of key in drawnDir (nil: none), marked as used.
func (c *RenderCache) onDisk(key string) []byte {
	if c.drawnDir == "" {
		return nil
	}
	raw, err := os.ReadFile(filepath.Join(c.drawnDir, key))
	if err != nil {
		return nil
	}
	now := time.Now()
	os.Chtimes(filepath.Join(c.drawnDir, key), now, now) // used: kept (keepOnDisk)
	return raw
}

// drawnKeptFor is how long a file of drawnDir no build used stays there.
const drawnKeptFor = 30 * 24 * time.Hour

// keepOnDisk puts the file of key into drawnDir (a failure only costs a
// later build the work) and, the first time in a build, deletes those no
// build used for drawnKeptFor.
func (c *RenderCache) keepOnDisk(key string, content []byte) {
	if c.drawnDir == "" || os.MkdirAll(c.drawnDir, 0o755) != nil {
		return
	}
	c.pruneOnce.Do(func() {
		entries, _ := os.ReadDir(c.drawnDir)
		for _, e := range entries {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > drawnKeptFor {
				os.Remove(filepath.Join(c.drawnDir, e.Name()))
			}
		}
	})
	// A temporary file of its own: builds may put the same key at once.
	tmp, err := os.CreateTemp(c.drawnDir, ".new-")
	if err != nil {
		return
	}
	_, err = tmp.Write(content)
	if cerr := tmp.Close(); err != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(c.drawnDir, key)) != nil {
		os.Remove(tmp.Name())
	}
}

// gzipped is content compressed at level. Compressing is a function of
// the bytes, the level and the compressor's version alone, so with a drawnDir
// the result is kept there by their hash and taken from it the next
// time: at the best level, compressing the stylesheet, scripts and
// translations is most of what writing a small site's files costs, and
// they change little between builds. A kept file is used only if its
// gzip trailer (the CRC-32 and length of the bytes) matches content.
func (c *RenderCache) gzipped(content []byte, level int) ([]byte, error) {
	if c == nil || c.drawnDir == "" || len(content) < 4<<10 {
		return gzipBytes(content, level)
	}
	h := sha256.New()
	fmt.Fprintf(h, "gzip %d %s\x00", level, compressorVersion)
	h.Write(content)
	key := hex.EncodeToString(h.Sum(nil)) + ".gz"
	if gz := c.onDisk(key); gzipOf(gz, content) {
		return gz, nil
	}
	gz, err := gzipBytes(content, level)
	if err != nil {
		return nil, err
	}
	c.keepOnDisk(key, gz)
	return gz, nil
}

// gzipOf reports whether gz is a whole gzip file whose trailer names
// content (RFC 1952: CRC-32 and length modulo 2^32, little-endian).
func gzipOf(gz, content []byte) bool {
	if len(gz) < 18 || gz[0] != 0x1f || gz[1] != 0x8b {
		return false
	}
	t := gz[len(gz)-8:]
	return binary.LittleEndian.Uint32(t) == crc32.ChecksumIEEE(content) && binary.LittleEndian.Uint32(t[4:]) == uint32(len(content))
}

// drawKey is the key of a drawing made by this program (the drawing code
// is Go) from these inputs.
func drawKey(inputs ...string) string {
	b, _ := json.Marshal(append([]string{renderCacheVersion, program()}, inputs...))
	return hash(b)
}

// renderInputs are the inputs of one build's renders, hashed.
type renderInputs struct {
	site    string            // the bundle and every global: for routes() and favicon()
	bundle  string            // the server bundle
	locales map[string]string // each language's texts
	data    map[string]string // the hash of each of the build's data pages may read, by name (page.Reads)
	year    int
	base    string
	program string
}

func newRenderInputs(b *bundles, locales map[string][]byte, globals map[string]string, year int, base string) renderInputs {
	in := renderInputs{bundle: hash(append([]byte(b.vendor+"\x00"), b.server...)), locales: map[string]string{}, data: map[string]string{}, year: year, base: base, program: program()}
	for code, texts := range locales {
		in.locales[code] = hash(texts)
	}
	parts := []string{renderCacheVersion, in.program, "site", in.bundle}
	for _, name := range slices.Sorted(maps.Keys(globals)) {
		if data, ok := pageData[name]; ok {
			// Neither the route list nor the icon reads them.
			in.data[data] = hash([]byte(globals[name]))
			continue
		}
		if name == "LOCALES" {
			continue // nor the texts (in.locales has them, by language)
		}
		parts = append(parts, name, hash([]byte(globals[name])))
	}
	site, _ := json.Marshal(parts)
	in.site = hash(site)
	return in
}

// pageData names the runtimes' globals that are data only some pages read
// (page.Reads names them so).
var pageData = map[string]string{"KEY_FIGURES": "figures"}

// key is the hash of everything the render of route in lang reads but the
// build's data (in.data, see RenderCache.page).
func (in renderInputs) key(route, lang string) string {
	parts := []string{renderCacheVersion, in.program, in.bundle, lang, in.locales[lang], route, strconv.Itoa(in.year), in.base}
	b, _ := json.Marshal(parts)
	return hash(b)
}

// program names this build of freightsite: its executable's path, size
// and time of change (hashing 30 MB on every build would cost more than it
// saves).
func program() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown " + strconv.FormatInt(time.Now().UnixNano(), 10) // never matches
	}
	info, err := os.Stat(exe)
	if err != nil {
		return "unknown " + strconv.FormatInt(time.Now().UnixNano(), 10)
	}
	return fmt.Sprintf("%s %d %d", exe, info.Size(), info.ModTime().UnixNano())
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// compressorVersion names the compressor's code (gzipped's keys): the
// version of klauspost/compress this program was built with.
var compressorVersion = func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "github.com/klauspost/compress" {
				return m.Path + " " + m.Version
			}
		}
	}
	return "github.com/klauspost/compress (version unknown)"
}()
