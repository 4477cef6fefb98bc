package generator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/klauspost/compress/gzip"

	"freightsite/internal/site"
)

// Releases: a build writes its files into a new folder <out>.releases/<id>
// and publishes it by pointing the symbolic link <out> at it with one
// rename(2). A server reading through <out> (serve, nginx's root) sees the
// old release or the new one, never a missing or half-written file, and a
// failed build leaves the published release as it was.
//
// Each release also carries the hashed assets (assets/build/) of earlier
// releases that were published within KeepAssets, so a page opened before
// a rebuild still finds the chunks it loads on first use (the captcha
// widget). The KeepReleases newest releases and the published one stay
// for rollback (`freightsite release publish ID`); older ones are deleted.
const (
	KeepReleases = 5
	KeepAssets   = 7 * 24 * time.Hour
)

// releasesSuffix names the folder beside <out> that holds the releases.
const releasesSuffix = ".releases"

// NginxCSPFile is written into <out>.releases/: one nginx `set` line with
// the Content-Security-Policy of the published (or staged) release, for
// deploy/nginx.conf to include. It lives outside the releases so that a
// staged release's policy can be loaded (nginx -s reload) before it is
// published. nginx reads it only when it starts or reloads; it changes
// only when the boot script (a new version), the payment provider or the
// captcha changes.
const NginxCSPFile = "nginx-csp.conf"

// buildMarker marks a release folder (and the dist/ folder of builds
// before releases) as written by Build; it holds the release's record.
const buildMarker = ".freightsite-build"

// releaseRecord is the JSON in a release's buildMarker.
type releaseRecord struct {
	Built time.Time `json:"built"`
	// Replaced is when another release was published in its place.
	Replaced time.Time `json:"replaced,omitzero"`
	// BootHash is the CSP source of the release's inline boot script
	// ('sha256-...'), allowed by later releases' CSP while it is kept.
	BootHash string `json:"bootHash"`
	// Carried lists the hashed assets of earlier releases this one holds,
	// with the last time a release that built them was published.
	Carried map[string]time.Time `json:"carried,omitempty"`
}

// Release describes one release folder.
type Release struct {
	ID        string
	Dir       string
	Built     time.Time
	Published bool
	record    releaseRecord
}

// servedUntil is the last time the release's own files were published:
// now while it is, when it was replaced otherwise (zero: never published).
func (r Release) servedUntil(now time.Time) time.Time {
	if r.Published {
		return now
	}
	return r.record.Replaced
}

// releases is the state of one output: the link, the releases folder and
// what it holds.
type releases struct {
	out    string // the published path: a symbolic link (or, before releases, a folder)
	dir    string // out + releasesSuffix
	legacy bool   // out is a folder written by a build before releases
	list   []Release
	// cspChanged says that the last commit changed the CSP nginx reads
	// (NginxCSPFile): nginx serves the earlier one until it reloads.
	cspChanged bool
}

var errForeign = errors.New("was not written by freightsite build; refusing to replace it")

// openReleases reads what is published at out and the releases beside it,
// refusing an out that Build did not write.
func openReleases(out string) (*releases, error) {
	// Absolute, so that what the commands print (the release's folder,
	// the publish command) works from any folder.
	out, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	rs := &releases{out: out, dir: out + releasesSuffix}
	published := ""
	info, err := os.Lstat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(out)
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(out), target)
		}
		inside, _ := filepath.Abs(filepath.Dir(target))
		if releases, _ := filepath.Abs(rs.dir); inside != releases {
			return nil, fmt.Errorf("%s links to %s, not to a release in %s: it %w", out, target, rs.dir, errForeign)
		}
		published = filepath.Base(target)
	case info.IsDir():
		entries, err := os.ReadDir(out)
		if err != nil {
			return nil, err
		}
		if len(entries) > 0 {
			if _, err := os.Stat(filepath.Join(out, buildMarker)); err != nil {
				return nil, fmt.Errorf("%s exists and %w", out, errForeign)
			}
			rs.legacy = true
			rs.list = append(rs.list, Release{ID: "", Dir: out, Built: info.ModTime(), Published: true, record: releaseRecord{Built: info.ModTime()}})
		}
	default:
		return nil, fmt.Errorf("%s is a file and %w", out, errForeign)
	}
	entries, err := os.ReadDir(rs.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(rs.dir, e.Name())
		raw, err := os.ReadFile(filepath.Join(dir, buildMarker))
		if err != nil {
			continue // not a complete release
		}
		var rec releaseRecord
		if err := json.Unmarshal(raw, &rec); err != nil {
			return nil, fmt.Errorf("reading %s: %w", filepath.Join(dir, buildMarker), err)
		}
		rs.list = append(rs.list, Release{ID: e.Name(), Dir: dir, Built: rec.Built, Published: e.Name() == published, record: rec})
	}
	sort.Slice(rs.list, func(i, j int) bool {
		a, b := rs.list[i], rs.list[j]
		return a.Built.Before(b.Built) || (a.Built.Equal(b.Built) && a.ID < b.ID)
	})
	return rs, nil
}

func (rs *releases) published() *Release {
	for i := range rs.list {
		if rs.list[i].Published {
			return &rs.list[i]
		}
	}
	return nil
}

// newest is the folder of the newest release, or "" if there is none.
func (rs *releases) newest() string {
	if len(rs.list) == 0 {
		return ""
	}
	return rs.list[len(rs.list)-1].Dir
}

// kept are the published release and the newest n others.
func (rs *releases) kept(n int) []Release {
	var out []Release
	for i, r := range rs.list {
		if r.Published || (r.ID != "" && i >= len(rs.list)-n) {
			out = append(out, r)
		}
	}
	return out
}

// bootHashes are the CSP sources of this build's boot script and of every
// kept release's, so a page of any of them keeps its script while nginx
// still serves an earlier policy (or already a later one).
func (rs *releases) bootHashes(own string) []string {
	hashes := []string{own}
	for _, r := range rs.kept(KeepReleases - 1) {
		h := r.record.BootHash
		if r.ID == "" {
			h = legacyBootHash(r.Dir)
		}
		if h != "" && !slices.Contains(hashes, h) {
			hashes = append(hashes, h)
		}
	}
	return hashes
}

// legacyBootHash reads the boot script's hash from the CSP of a dist/
// written before releases.
func legacyBootHash(dir string) string {
	raw, _ := os.ReadFile(filepath.Join(dir, headersFile))
	for _, rule := range site.ParseHeaders(raw) {
		for _, src := range strings.Fields(rule.Header.Get("Content-Security-Policy")) {
			if strings.HasPrefix(src, "'sha256-") {
				return strings.Trim(src, "'")
			}
		}
	}
	return ""
}

// carry finds the hashed assets of earlier releases a new release keeps:
// those a release published within KeepAssets built, less the new files.
// It returns each one's source path and last publication time.
func (rs *releases) carry(files map[string][]byte, now time.Time) (src map[string]string, when map[string]time.Time, err error) {
	return rs.carryFrom("", func(name string) bool { _, own := files[name]; return own }, now)
}

// carryFrom finds the hashed assets of the releases other than skip
// that were published within KeepAssets, less those own says the
// receiving release has.
func (rs *releases) carryFrom(skip string, own func(name string) bool, now time.Time) (src map[string]string, when map[string]time.Time, err error) {
	src, when = map[string]string{}, map[string]time.Time{}
	for _, r := range rs.list {
		if skip != "" && r.Dir == skip {
			continue
		}
		base := filepath.Join(r.Dir, filepath.FromSlash(hashedDir))
		err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(r.Dir, p)
			name := filepath.ToSlash(rel)
			if own(name) {
				return nil
			}
			if orig, ok := strings.CutSuffix(name, ".gz"); ok && compressed(orig) {
				if own(orig) {
					return nil // the new release compresses its own
				}
			}
			t := r.servedUntil(now)
			if c, ok := r.record.Carried[name]; ok {
				t = c
			}
			if t.IsZero() || now.Sub(t) > KeepAssets || !t.After(when[name]) {
				return nil
			}
			src[name], when[name] = p, t
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
	}
	return src, when, nil
}

// staged is a release being written: a hidden folder that finish
// renames into place. Files can be written into it as a build makes them
// (write, or a stream), so a large site is streamed to disk rather than
// held, and a small one is written while its pages render.
type staged struct {
	rs    *releases
	id    string
	tmp   string
	prev  string // the newest release's folder, "" for none
	now   time.Time
	dirs  sync.Map     // the folders made in tmp, by slash path
	cache *RenderCache // the gzip of assets (RenderCache.gzipped); nil: none

	mu      sync.Mutex
	written map[string]int // the files written, with their .gz's size (0: none)
}

// begin starts a new release.
func (rs *releases) begin() (*staged, error) {
	now := time.Now().UTC()
	if err := os.MkdirAll(rs.dir, 0o755); err != nil {
		return nil, err
	}
	rs.removeStale(now)
	id := now.Format("20060102T150405.000Z")
	for i := 1; exists(filepath.Join(rs.dir, id)); i++ {
		id = fmt.Sprintf("%s-%d", now.Format("20060102T150405.000Z"), i)
	}
	tmp, err := os.MkdirTemp(rs.dir, ".new-"+id+"-")
	if err != nil {
		return nil, err
	}
	return &staged{rs: rs, id: id, tmp: tmp, prev: rs.newest(), now: now, written: map[string]int{}}, nil
}

// abort deletes what was written of the release.
func (s *staged) abort() { os.RemoveAll(s.tmp) }

// write writes a file of the release, with its .gz sibling when its kind
// is compressed, and returns the .gz's size (0 for none). A file whose
// content equals the newest release's file of that name is linked with
// its .gz from there instead: the same bytes, and no compressing.
func (s *staged) write(name string, content []byte) (int, error) {
	n, err := s.writeFile(name, content)
	if err == nil {
		s.mu.Lock()
		s.written[name] = n
		s.mu.Unlock()
	}
	return n, err
}

func (s *staged) writeFile(name string, content []byte) (int, error) {
	p := filepath.Join(s.tmp, filepath.FromSlash(name))
	if err := s.mkdir(path.Dir(name)); err != nil {
		return 0, err
	}
	zip := compressed(name)
	linked := false
	if s.prev != "" {
		old := filepath.Join(s.prev, filepath.FromSlash(name))
		if b, err := os.ReadFile(old); err == nil && bytes.Equal(b, content) && os.Link(old, p) == nil {
			if !zip {
				return 0, nil
			}
			if info, err := os.Stat(old + ".gz"); err == nil && os.Link(old+".gz", p+".gz") == nil {
				return int(info.Size()), nil
			}
			linked = true
		}
	}
	if !linked {
		if err := writeNew(p, content); err != nil {
			return 0, err
		}
	}
	if !zip {
		return 0, nil
	}
	var gz []byte
	var err error
	if level := gzipLevel(name); level == gzip.BestCompression {
		gz, err = s.cache.gzipped(content, level)
	} else {
		gz, err = gzipBytes(content, level)
	}
	if err != nil {
		return 0, fmt.Errorf("compressing %s: %w", name, err)
	}
	return len(gz), writeNew(p+".gz", gz)
}

// gzSize is the size of the .gz written for name (0: none, or not
// written).
func (s *staged) gzSize(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written[name]
}

// files is how many files were written with write, .gz siblings
// included.
func (s *staged) files() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.written)
	for _, gz := range s.written {
		if gz > 0 {
			n++
		}
	}
	return n
}

// stream writes files into a staged release in the background as the
// build hands them over (put), several at a time: much of writing a file
// is waiting for the file system, and the build renders meanwhile.
type stream struct {
	s     *staged
	todo  chan streamed
	wg    sync.WaitGroup
	close sync.Once
	mu    sync.Mutex
	err   error
}

type streamed struct {
	name    string
	content []byte
}

// streamWriters is how many files a stream writes at once.
var streamWriters = 2 * runtime.NumCPU()

func (s *staged) stream() *stream {
	st := &stream{s: s, todo: make(chan streamed, 256)}
	for range streamWriters {
		st.wg.Go(func() {
			for f := range st.todo {
				if _, err := s.write(f.name, f.content); err != nil {
					st.fail(fmt.Errorf("writing %s: %w", f.name, err))
				}
			}
		})
	}
	return st
}

// put hands a file over to be written (gzSize tells its .gz's size once
// it is). It returns the first error of a write so far, so that a build
// stops early.
func (st *stream) put(name string, content []byte) error {
	if err := st.failed(); err != nil {
		return err
	}
	st.todo <- streamed{name, content}
	return nil
}

// wait waits for every file handed over, and returns the first error;
// nothing may be put after it.
func (st *stream) wait() error {
	st.close.Do(func() { close(st.todo) })
	st.wg.Wait()
	return st.failed()
}

func (st *stream) fail(err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.err == nil {
		st.err = err
	}
}

func (st *stream) failed() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.err
}

// compressed reports whether a file of the release gets a .gz sibling.
func compressed(name string) bool {
	return slices.Contains(compressible, path.Ext(name)) && name != manifestFile
}

// writeNew writes a new file in three system calls (open, write, close),
// where os.WriteFile makes six or more (it readies the file for Go's
// poller, which regular files refuse): a large site is thousands of files,
// and on a busy disk each call waits.
func writeNew(p string, content []byte) error {
	fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return &fs.PathError{Op: "open", Path: p, Err: err}
	}
	for len(content) > 0 {
		n, err := syscall.Write(fd, content)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(fd)
			return &fs.PathError{Op: "write", Path: p, Err: err}
		}
		content = content[n:]
	}
	if err := syscall.Close(fd); err != nil {
		return &fs.PathError{Op: "close", Path: p, Err: err}
	}
	return nil
}

// mkdir makes the folder dir (a slash path) in the release, and its
// parents, each once: a large site has a folder for each page.
func (s *staged) mkdir(dir string) error {
	if dir == "." || dir == "" {
		return nil
	}
	if _, ok := s.dirs.Load(dir); ok {
		return nil
	}
	if err := s.mkdir(path.Dir(dir)); err != nil {
		return err
	}
	if err := os.Mkdir(filepath.Join(s.tmp, filepath.FromSlash(dir)), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	s.dirs.Store(dir, true)
	return nil
}

// commit writes a release holding files plus the assets it carries,
// publishes it unless stage is set, writes the nginx policy file and
// deletes the releases no longer kept. It returns the new release.
func (rs *releases) commit(files map[string][]byte, bootHash string, stage bool) (*Release, int, error) {
	s, err := rs.begin()
	if err != nil {
		return nil, 0, err
	}
	return rs.finish(s, files, bootHash, stage)
}

// finish writes files into the staged release, with the assets it
// carries, and commits it (see commit).
func (rs *releases) finish(s *staged, files map[string][]byte, bootHash string, stage bool) (*Release, int, error) {
	now, id, tmp := s.now, s.id, s.tmp
	src, when, err := rs.carry(files, now)
	if err != nil {
		s.abort()
		return nil, 0, err
	}
	fail := func(err error) (*Release, int, error) {
		os.RemoveAll(tmp)
		return nil, 0, err
	}
	if err := s.writeAll(files); err != nil {
		return fail(err)
	}
	for name, from := range src {
		if err := linkOrCopy(from, filepath.Join(tmp, filepath.FromSlash(name))); err != nil {
			return fail(fmt.Errorf("keeping %s of an earlier release: %w", name, err))
		}
	}
	rec := releaseRecord{Built: now, BootHash: bootHash, Carried: when}
	raw, _ := json.MarshalIndent(rec, "", "  ")
	if err := writeFile(filepath.Join(tmp, buildMarker), raw); err != nil {
		return fail(err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fail(err)
	}
	dir := filepath.Join(rs.dir, id)
	if err := os.Rename(tmp, dir); err != nil {
		return fail(err)
	}
	r := Release{ID: id, Dir: dir, Built: now, record: rec}
	rs.list = append(rs.list, r)
	before, _ := os.ReadFile(filepath.Join(rs.dir, NginxCSPFile))
	if stage {
		err = rs.writeNginxCSP(dir)
	} else {
		err = rs.publish(id, now)
	}
	if err != nil {
		return nil, 0, err
	}
	after, _ := os.ReadFile(filepath.Join(rs.dir, NginxCSPFile))
	rs.cspChanged = len(before) > 0 && !bytes.Equal(before, after)
	rs.prune()
	for _, x := range rs.list {
		if x.ID == id {
			return &x, len(src), nil
		}
	}
	return &r, len(src), nil
}

// publish points out at the release id (one rename of a symbolic link),
// records when the previous one was replaced and writes its policy file.
func (rs *releases) publish(id string, now time.Time) error {
	i := slices.IndexFunc(rs.list, func(r Release) bool { return r.ID == id && id != "" })
	if len(rs.list) == 0 {
		return rs.noReleases()
	}
	if i < 0 {
		return fmt.Errorf("%s holds no release %q (see `freightsite release list --out %s`)", rs.dir, id, shellQuote(rs.out))
	}
	if !rs.list[i].Published {
		// The release taking over carries what the one it replaces (and
		// any other published within KeepAssets) loads, whichever way the
		// switch goes: a page opened on a newer release keeps loading its
		// chunks after a rollback.
		if err := rs.carryInto(&rs.list[i], now); err != nil {
			return err
		}
		if prev := rs.published(); prev != nil {
			if prev.ID == "" {
				// A dist/ folder of a build before releases becomes a
				// release itself, so it can be rolled back to. The two
				// renames leave out missing for a moment, this once.
				if err := rs.adoptLegacy(prev, now); err != nil {
					return err
				}
			} else {
				prev.record.Replaced = now
				if err := prev.saveRecord(); err != nil {
					return err
				}
			}
			prev.Published = false
		}
		link := filepath.Join(filepath.Dir(rs.out), "."+filepath.Base(rs.out)+"-link-"+id)
		os.Remove(link)
		if err := os.Symlink(filepath.Join(filepath.Base(rs.dir), id), link); err != nil {
			return err
		}
		if info, err := os.Lstat(rs.out); err == nil && info.IsDir() {
			// An empty folder (a fresh --out made by hand) gives way.
			if err := os.Remove(rs.out); err != nil {
				os.Remove(link)
				return fmt.Errorf("replacing %s: %w", rs.out, err)
			}
		}
		if err := os.Rename(link, rs.out); err != nil {
			os.Remove(link)
			return err
		}
		rs.list[i].Published = true
	}
	return rs.writeNginxCSP(rs.list[i].Dir)
}

// carryInto links into release r the hashed assets of the other releases
// published within KeepAssets that it lacks, and records them. Adding
// files to a release never changes one a server reads.
func (rs *releases) carryInto(r *Release, now time.Time) error {
	own := func(name string) bool { return exists(filepath.Join(r.Dir, filepath.FromSlash(name))) }
	src, when, err := rs.carryFrom(r.Dir, own, now)
	if err != nil || len(src) == 0 {
		return err
	}
	if r.record.Carried == nil {
		r.record.Carried = map[string]time.Time{}
	}
	for name, from := range src {
		if err := linkOrCopy(from, filepath.Join(r.Dir, filepath.FromSlash(name))); err != nil {
			return fmt.Errorf("keeping %s of another release in %s: %w", name, r.Dir, err)
		}
		r.record.Carried[name] = when[name]
	}
	return r.saveRecord()
}

// adoptLegacy moves a pre-release dist/ folder into the releases folder.
func (rs *releases) adoptLegacy(prev *Release, now time.Time) error {
	id := prev.Built.UTC().Format("20060102T150405.000Z")
	for i := 1; exists(filepath.Join(rs.dir, id)); i++ {
		id = fmt.Sprintf("%s-%d", prev.Built.UTC().Format("20060102T150405.000Z"), i)
	}
	dir := filepath.Join(rs.dir, id)
	prev.record = releaseRecord{Built: prev.Built, Replaced: now, BootHash: legacyBootHash(prev.Dir)}
	raw, _ := json.MarshalIndent(prev.record, "", "  ")
	if err := writeFile(filepath.Join(prev.Dir, buildMarker), raw); err != nil {
		return err
	}
	if err := os.Rename(prev.Dir, dir); err != nil {
		return err
	}
	prev.ID, prev.Dir = id, dir
	rs.legacy = false
	return nil
}

func (r *Release) saveRecord() error {
	raw, _ := json.MarshalIndent(r.record, "", "  ")
	return writeFileAtomic(filepath.Join(r.Dir, buildMarker), raw)
}

// writeNginxCSP writes the nginx policy file from a release's _headers.
func (rs *releases) writeNginxCSP(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, headersFile))
	if err != nil {
		return err
	}
	csp := ""
	for _, rule := range site.ParseHeaders(raw) {
		if rule.Pattern == "/*" {
			csp = rule.Header.Get("Content-Security-Policy")
		}
	}
	content := "# Written by freightsite build: the Content-Security-Policy of the site's pages,\n" +
		"# for deploy/nginx.conf. nginx reads it when it starts or reloads.\n" +
		"set $freightsite_csp \"" + strings.ReplaceAll(csp, `"`, `\"`) + "\";\n"
	return writeFileAtomic(filepath.Join(rs.dir, NginxCSPFile), []byte(content))
}

// prune deletes the releases that are no longer kept.
func (rs *releases) prune() {
	keep := rs.kept(KeepReleases)
	var left []Release
	for _, r := range rs.list {
		if slices.ContainsFunc(keep, func(k Release) bool { return k.ID == r.ID }) {
			left = append(left, r)
			continue
		}
		os.RemoveAll(r.Dir)
	}
	rs.list = left
}

// removeStale deletes what builds that failed or were killed left behind
// (hidden folders and links), once they are an hour old.
func (rs *releases) removeStale(now time.Time) {
	entries, _ := os.ReadDir(rs.dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), ".new-") && now.Sub(info.ModTime()) > time.Hour {
			os.RemoveAll(filepath.Join(rs.dir, e.Name()))
		}
	}
}

// ErrNoReleases says that nothing a build wrote is at or beside the
// output folder: most often a command run from another folder than the
// build's, without --out.
var ErrNoReleases = errors.New("no releases")

func (rs *releases) noReleases() error {
	return fmt.Errorf("%w at %s or in %s: give --out the folder `freightsite build` published (its --out), or build one with `freightsite build --out %s`",
		ErrNoReleases, rs.out, rs.dir, shellQuote(rs.out))
}

// Releases lists the releases of the output folder out, oldest first; it
// fails with ErrNoReleases when there are none.
func Releases(out string) ([]Release, error) {
	rs, err := openReleases(out)
	if err != nil {
		return nil, err
	}
	if len(rs.list) == 0 {
		return nil, rs.noReleases()
	}
	return rs.list, nil
}

// PublishCommand is the command line that publishes release id of the
// releases folder dir (a Report's Releases), from any folder.
func PublishCommand(dir, id string) string {
	return "freightsite release publish " + id + " --out " + shellQuote(strings.TrimSuffix(dir, releasesSuffix))
}

// shellQuote quotes a path for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@%,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Publish points out at the release id: a rollback to an earlier one, or
// the publication of one written with Options.Stage.
func Publish(out, id string) error {
	rs, err := openReleases(out)
	if err != nil {
		return err
	}
	return rs.publish(id, time.Now().UTC())
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// writeAll writes those of files not written yet into the release, as
// they are (their .gz siblings are files too), several at a time.
func (s *staged) writeAll(files map[string][]byte) error {
	st := &stream{s: s}
	names := make([]string, 0, len(files))
	s.mu.Lock()
	for name := range files {
		if _, ok := s.written[name]; !ok {
			names = append(names, name)
		}
	}
	s.mu.Unlock()
	next := make(chan string)
	for range streamWriters {
		st.wg.Go(func() {
			for name := range next {
				err := s.mkdir(path.Dir(name))
				if err == nil {
					err = writeNew(filepath.Join(s.tmp, filepath.FromSlash(name)), files[name])
				}
				if err != nil {
					st.fail(err)
				}
			}
		})
	}
	for _, name := range names {
		next <- name
	}
	close(next)
	st.wg.Wait()
	return st.failed()
}

func writeFile(p string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, content, 0o644)
}

// writeFileAtomic replaces p by a rename, so a reader sees the old file or
// the new one.
func writeFileAtomic(p string, content []byte) error {
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, content, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// linkOrCopy puts the file from at to: a hard link when both are on one
// file system (release files never change), a copy otherwise.
func linkOrCopy(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if err := os.Link(from, to); err == nil {
		return nil
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// StaticHosts are the hosts Export prepares a release for, and the
// build's files each reads as its own configuration (never serving them):
// a plain static host gets the public files alone.
var StaticHosts = map[string][]string{
	"static":     nil,
	"netlify":    {headersFile, redirectsFile},
	"cloudflare": {headersFile},
}

// PublicFile reports whether a file of a release (a slash path) is one
// visitors are served, as deploy/nginx.conf serves them: the build's
// bookkeeping (the release record and other dotfiles, routes.json), the
// rules of other hosts (_headers, _redirects), the .gz siblings (an
// encoding of their file, never an address of their own) and the shell
// pages of parameter routes (news-feed/news/_/index.html, for serve) are
// not.
func PublicFile(name string) bool {
	switch {
	case strings.HasPrefix(name, ".") || strings.Contains(name, "/."):
		return false
	case strings.HasSuffix(name, ".gz"):
		return false
	case name == manifestFile || name == headersFile || name == redirectsFile:
		return false
	case strings.Contains("/"+name, "/_/"):
		return false
	}
	return true
}

// Export links (or copies) the public files of the release published at
// out into dir, a folder that must be new or empty, with the files the
// static host (a key of StaticHosts) reads as its configuration, for an
// upload to that host. It returns the release and the number of files.
func Export(out, dir, host string) (*Release, int, error) {
	extra, ok := StaticHosts[host]
	if !ok {
		return nil, 0, fmt.Errorf("no static host %q (static, netlify or cloudflare)", host)
	}
	rs, err := openReleases(out)
	if err != nil {
		return nil, 0, err
	}
	pub := rs.published()
	if pub == nil {
		if len(rs.list) == 0 {
			return nil, 0, rs.noReleases()
		}
		return nil, 0, fmt.Errorf("no release is published at %s (see `freightsite release list --out %s`)", rs.out, shellQuote(rs.out))
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, 0, fmt.Errorf("%s is not empty: export into a new folder, so that nothing of an earlier export is uploaded", dir)
	}
	n := 0
	err = filepath.WalkDir(pub.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(pub.Dir, p)
		name := filepath.ToSlash(rel)
		if !PublicFile(name) && !slices.Contains(extra, name) {
			return nil
		}
		n++
		return linkOrCopy(p, filepath.Join(dir, rel))
	})
	if err != nil {
		return nil, 0, fmt.Errorf("exporting %s to %s: %w", pub.Dir, dir, err)
	}
	return pub, n, nil
}
