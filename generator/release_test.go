package generator

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeBuild is the file set of a build in the tests of releases: a page,
// its routes and headers, and the given hashed assets.
func fakeBuild(bootHash string, assets ...string) map[string][]byte {
	files := map[string][]byte{
		"index.html":  []byte("<p>" + strings.Join(assets, " ") + "</p>"),
		manifestFile:  []byte(`{"prefixes":[""],"routes":["/"]}`),
		headersFile:   []byte("/*\n  Content-Security-Policy: script-src 'self' '" + bootHash + "'\n"),
		"favicon.svg": []byte("<svg/>"),
	}
	for _, a := range assets {
		files[hashedDir+a] = []byte(a)
		files[hashedDir+a+".gz"] = []byte("gz " + a)
	}
	return files
}

func commitFake(t *testing.T, out string, stage bool, bootHash string, assets ...string) *Release {
	t.Helper()
	rs, err := openReleases(out)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := rs.commit(fakeBuild(bootHash, assets...), bootHash, stage)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func published(t *testing.T, out string) string {
	t.Helper()
	target, err := os.Readlink(out)
	if err != nil {
		t.Fatalf("%s is not a link to a release: %v", out, err)
	}
	return filepath.Base(target)
}

func TestABuildPublishesAReleaseThroughALink(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	first := commitFake(t, out, false, "sha256-one", "client-A.js")
	if got := published(t, out); got != first.ID {
		t.Fatalf("%s links to %s, want %s", out, got, first.ID)
	}
	rs, _ := openReleases(out)
	second, _, err := rs.commit(fakeBuild("sha256-one", "client-B.js"), "sha256-one", false)
	if err != nil || rs.cspChanged {
		t.Fatalf("a rebuild with the same boot script: %v, CSP changed %v", err, rs.cspChanged)
	}
	if got := published(t, out); got != second.ID || second.ID <= first.ID {
		t.Fatalf("after a second build %s links to %s, want %s (newer than %s)", out, got, second.ID, first.ID)
	}
	if b, err := os.ReadFile(filepath.Join(out, "index.html")); err != nil || string(b) != "<p>client-B.js</p>" {
		t.Errorf("the page through the link: %q %v", b, err)
	}
	list, _ := Releases(out)
	if len(list) != 2 || list[0].Published || !list[1].Published {
		t.Errorf("releases %+v, want two with the second published", list)
	}
}

// TestEarlierHashedAssetsStayForAWeek: a page opened before a rebuild
// loads the chunks of its own build; the new release carries them (and
// their .gz) for KeepAssets after the release that built them stopped
// being published, and then lets them go.
func TestEarlierHashedAssetsStayForAWeek(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	commitFake(t, out, false, "sha256-one", "altcha-OLD.js", "shared-S.js")
	second := commitFake(t, out, false, "sha256-one", "altcha-NEW.js", "shared-S.js")
	for _, name := range []string{"altcha-OLD.js", "altcha-OLD.js.gz", "altcha-NEW.js", "shared-S.js"} {
		if _, err := os.Stat(filepath.Join(out, hashedDir, name)); err != nil {
			t.Errorf("%s is not in the new release: %v", name, err)
		}
	}
	if _, ok := second.record.Carried[hashedDir+"altcha-OLD.js"]; !ok || len(second.record.Carried) != 2 {
		t.Errorf("the new release's record carries %v, want altcha-OLD.js and its .gz", second.record.Carried)
	}
	// Carried from the second release to the third, keeping its date.
	commitFake(t, out, false, "sha256-one", "altcha-THIRD.js")
	if _, err := os.Stat(filepath.Join(out, hashedDir, "altcha-OLD.js")); err != nil {
		t.Errorf("a chunk replaced two builds ago is gone: %v", err)
	}

	// A week and a minute later, nothing of the first release is carried.
	rs, _ := openReleases(out)
	for i := range rs.list {
		r := &rs.list[i]
		for name, when := range r.record.Carried {
			r.record.Carried[name] = when.Add(-KeepAssets - time.Minute)
		}
		if !r.record.Replaced.IsZero() {
			r.record.Replaced = r.record.Replaced.Add(-KeepAssets - time.Minute)
		}
		if err := r.saveRecord(); err != nil {
			t.Fatal(err)
		}
	}
	commitFake(t, out, false, "sha256-one", "altcha-FOURTH.js")
	entries, _ := os.ReadDir(filepath.Join(out, hashedDir))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// THIRD was published until this build: it stays.
	if want := []string{"altcha-FOURTH.js", "altcha-FOURTH.js.gz", "altcha-THIRD.js", "altcha-THIRD.js.gz"}; !slices.Equal(names, want) {
		t.Errorf("after a week the release holds %v, want %v", names, want)
	}
}

func TestOldReleasesArePrunedButThePublishedOneStays(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	first := commitFake(t, out, false, "sha256-one", "a.js")
	for range KeepReleases {
		commitFake(t, out, false, "sha256-one", "a.js")
	}
	list, _ := Releases(out)
	if len(list) != KeepReleases || slices.ContainsFunc(list, func(r Release) bool { return r.ID == first.ID }) {
		t.Errorf("%d releases kept (first among them: %v), want the newest %d", len(list), list[0].ID == first.ID, KeepReleases)
	}
	// Roll back to the oldest kept one, then build more: it stays while published.
	oldest := list[0].ID
	if err := Publish(out, oldest); err != nil {
		t.Fatal(err)
	}
	for range KeepReleases {
		commitFake(t, out, true, "sha256-one", "a.js")
	}
	list, _ = Releases(out)
	if len(list) != KeepReleases+1 || list[0].ID != oldest || !list[0].Published {
		t.Errorf("after a rollback and more staged builds: %d releases, first %s published %v", len(list), list[0].ID, list[0].Published)
	}
}

// TestStagedReleaseAndItsPolicy: a staged release is written but not
// published; the nginx policy file allows the boot scripts of both, so
// nginx can load it before the switch; publishing and rolling back move
// the link and rewrite the file.
func TestStagedReleaseAndItsPolicy(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "dist")
	// The real build writes the CSP with every kept release's hash.
	rs, _ := openReleases(out)
	if got := rs.bootHashes("sha256-v1"); !slices.Equal(got, []string{"sha256-v1"}) {
		t.Fatalf("first build's hashes %v", got)
	}
	v1 := commitFake(t, out, false, "sha256-v1", "a.js")
	rs, _ = openReleases(out)
	hashes := rs.bootHashes("sha256-v2")
	if !slices.Equal(hashes, []string{"sha256-v2", "sha256-v1"}) {
		t.Fatalf("an upgrade's CSP allows %v, want the new and the published boot script", hashes)
	}
	files := fakeBuild("sha256-v2' 'sha256-v1", "b.js")
	v2, _, err := rs.commit(files, "sha256-v2", true)
	if err != nil {
		t.Fatal(err)
	}
	if got := published(t, out); got != v1.ID || v2.Published {
		t.Fatalf("staging published %s", got)
	}
	policy := func() string {
		b, err := os.ReadFile(filepath.Join(out+releasesSuffix, NginxCSPFile))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if p := policy(); !strings.Contains(p, `set $freightsite_csp "script-src 'self' 'sha256-v2' 'sha256-v1'";`) || !rs.cspChanged {
		t.Errorf("after staging the nginx policy is (changed: %v)\n%s", rs.cspChanged, p)
	}
	if err := Publish(out, v2.ID); err != nil {
		t.Fatal(err)
	}
	if published(t, out) != v2.ID {
		t.Error("publish did not switch the link")
	}
	if err := Publish(out, v1.ID); err != nil {
		t.Fatal(err)
	}
	if published(t, out) != v1.ID || !strings.Contains(policy(), `"script-src 'self' 'sha256-v1'"`) {
		t.Errorf("a rollback left %s published with policy\n%s", published(t, out), policy())
	}
	if err := Publish(out, "20000101T000000.000Z"); err == nil || !strings.Contains(err.Error(), "release list") {
		t.Errorf("publishing an unknown release: %v", err)
	}
}

// TestAFolderOfAnEarlierVersionBecomesARelease: a dist/ folder written
// before releases existed is moved into the releases folder (and can be
// rolled back to); its hashed assets are carried.
func TestAFolderOfAnEarlierVersionBecomesARelease(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	for name, content := range fakeBuild("sha256-legacy", "old.js") {
		if err := writeFile(filepath.Join(out, filepath.FromSlash(name)), content); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeFile(filepath.Join(out, buildMarker), []byte("written by freightsite build; the next build replaces this whole folder\n")); err != nil {
		t.Fatal(err)
	}
	rs, _ := openReleases(out)
	if got := rs.bootHashes("sha256-new"); !slices.Equal(got, []string{"sha256-new", "sha256-legacy"}) {
		t.Errorf("hashes %v, want the earlier folder's too", got)
	}
	r, _, err := rs.commit(fakeBuild("sha256-new", "new.js"), "sha256-new", false)
	if err != nil {
		t.Fatal(err)
	}
	if published(t, out) != r.ID {
		t.Fatal("not published")
	}
	if _, err := os.Stat(filepath.Join(out, hashedDir, "old.js")); err != nil {
		t.Errorf("the earlier folder's asset is not carried: %v", err)
	}
	list, _ := Releases(out)
	if len(list) != 2 || list[0].record.BootHash != "sha256-legacy" || list[0].record.Replaced.IsZero() {
		t.Errorf("releases %+v, want the earlier folder as a replaced release", list)
	}
}

func TestReleasesRefuseWhatTheyDidNotWrite(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(dir, "elsewhere")
	os.Mkdir(elsewhere, 0o755)
	link := filepath.Join(dir, "linked")
	os.Symlink(elsewhere, link)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, out := range []string{link, file} {
		if _, err := openReleases(out); !errors.Is(err, errForeign) {
			t.Errorf("%s: err = %v, want a refusal", out, err)
		}
	}
	// An empty folder (made by hand for --out) is replaced.
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	commitFake(t, empty, false, "sha256-x", "a.js")
	if info, err := os.Lstat(empty); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the empty folder was not replaced by a link: %v", err)
	}
}

// TestServeNeverMissesAFileDuringRebuilds reads pages and hashed assets
// through the site handler and straight from the file system while builds
// publish releases one after another: no read may fail.
func TestServeNeverMissesAFileDuringRebuilds(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	commitFake(t, out, false, "sha256-one", "a.js")
	h, err := Site(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var failures atomic.Int64
	var reads atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				for _, p := range []string{"/", "/assets/build/a.js", "/favicon.svg"} {
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
					if rec.Code != http.StatusOK {
						failures.Add(1)
					}
				}
				if _, err := os.ReadFile(filepath.Join(out, "index.html")); err != nil {
					failures.Add(1)
				}
				reads.Add(4)
			}
		})
	}
	for range 30 {
		commitFake(t, out, false, "sha256-one", "a.js")
	}
	stop.Store(true)
	wg.Wait()
	if failures.Load() != 0 || reads.Load() == 0 {
		t.Errorf("%d of %d reads failed during 30 rebuilds", failures.Load(), reads.Load())
	}
}

// TestRealRebuildCarriesTheCaptchaChunk builds the real site twice, the
// second time from a tree whose captcha module changed and with other
// settings: the second release still holds the first one's captcha chunk,
// the chunk an open page of the first build loads when its form is first
// used, and both builds have the same boot script, so a web server's CSP
// stays valid.
func TestRealRebuildCarriesTheCaptchaChunk(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	first, err := Build(Options{Root: "..", Out: out, BaseURL: testBase, Settings: map[string]string{"analytics.pageViewEvent": "pv_first", "analytics.dataLayer": "firstLayer"}})
	if err != nil {
		t.Fatal(err)
	}
	oldChunk := lazyChunk(t, first, "altcha-")
	firstFaq, _ := os.ReadFile(filepath.Join(out, "faq", "index.html"))
	if !strings.Contains(string(firstFaq), `data-layer="firstLayer" data-page-view="pv_first"`) {
		t.Error("the page does not carry the analytics settings for the boot script")
	}
	root := changedSourceTree(t)
	second, err := Build(Options{Root: root, Out: out, BaseURL: testBase})
	if err != nil {
		t.Fatal(err)
	}
	newChunk := lazyChunk(t, second, "altcha-")
	if newChunk == oldChunk {
		t.Fatalf("the changed tree built the same chunk %s: the test shows nothing", newChunk)
	}
	for _, f := range []string{oldChunk, oldChunk + ".gz", newChunk} {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(strings.TrimPrefix(f, "/")))); err != nil {
			t.Errorf("%s is not in the published release: %v", f, err)
		}
	}
	secondFaq, _ := os.ReadFile(filepath.Join(out, "faq", "index.html"))
	if a, b := inlineScript(t, string(firstFaq)), inlineScript(t, string(secondFaq)); a != b {
		t.Errorf("the boot script changed with the build's settings:\n%s\n%s", a, b)
	}
	headers, _ := os.ReadFile(filepath.Join(out, headersFile))
	if n := strings.Count(string(headers), "'sha256-"); n != 1 {
		t.Errorf("the CSP allows %d inline scripts, want the one boot script:\n%s", n, headers)
	}
	if second.Carried == 0 || published(t, out) != second.Release.ID {
		t.Errorf("report: carried %d, release %s", second.Carried, second.Release.ID)
	}
	var rec releaseRecord
	raw, _ := os.ReadFile(filepath.Join(out, buildMarker))
	if err := json.Unmarshal(raw, &rec); err != nil || rec.Carried[strings.TrimPrefix(oldChunk, "/")].IsZero() {
		t.Errorf("the release record does not list %s: %s", oldChunk, raw)
	}
}

// lazyChunk is the lazily loaded file of a build whose name starts with prefix.
func lazyChunk(t *testing.T, r *Report, prefix string) string {
	t.Helper()
	for _, p := range r.Pages {
		for _, f := range p.lazy {
			if strings.HasPrefix(filepath.Base(f), prefix) && strings.HasSuffix(f, ".js") {
				return f
			}
		}
	}
	t.Fatalf("no lazily loaded %s*.js in the build", prefix)
	return ""
}

// changedSourceTree is a copy of the source tree whose captcha module
// does one more thing, so its chunk gets another hash.
func changedSourceTree(t *testing.T) string {
	t.Helper()
	src, _ := filepath.Abs("..")
	root := t.TempDir()
	for _, name := range []string{"node_modules", "locales", "data", "package.json"} {
		if err := os.Symlink(filepath.Join(src, name), filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.CopyFS(filepath.Join(root, "pages"), os.DirFS(filepath.Join(src, "pages"))); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "pages", "lib", "altcha.ts")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const anchor = "widget.setAttribute('hidelogo', '');"
	if !strings.Contains(string(raw), anchor) {
		t.Fatalf("pages/lib/altcha.ts no longer contains %q: update this test", anchor)
	}
	changed := strings.Replace(string(raw), anchor, anchor+" widget.dataset.build = 'second';", 1)
	if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func inlineScript(t *testing.T, html string) string {
	t.Helper()
	start := strings.Index(html, "<script>")
	end := strings.Index(html[start+1:], "</script>")
	if start < 0 || end < 0 {
		t.Fatal("no inline script")
	}
	return html[start+len("<script>") : start+1+end]
}

// TestARollbackKeepsTheNewerReleasesChunks: whichever way the link
// moves (a build, a staged release published later, a rollback), the
// published release holds the hashed assets of every release published
// within KeepAssets, so a page opened on the release just replaced keeps
// loading its chunks through the site handler.
func TestARollbackKeepsTheNewerReleasesChunks(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	a := commitFake(t, out, false, "sha256-one", "chunk-A.js")
	b := commitFake(t, out, false, "sha256-one", "chunk-B.js")
	served := func(step string, names ...string) {
		t.Helper()
		h, err := Site(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/"+hashedDir+name, nil))
			if rec.Code != http.StatusOK {
				t.Errorf("%s: /%s%s answers %d, want 200", step, hashedDir, name, rec.Code)
			}
		}
	}
	if err := Publish(out, a.ID); err != nil {
		t.Fatal(err)
	}
	served("after a rollback to the first release", "chunk-A.js", "chunk-B.js")
	if _, err := os.Stat(filepath.Join(out, hashedDir, "chunk-B.js.gz")); err != nil {
		t.Errorf("the rollback did not carry the chunk's .gz: %v", err)
	}
	c := commitFake(t, out, true, "sha256-one", "chunk-C.js")
	if err := Publish(out, c.ID); err != nil {
		t.Fatal(err)
	}
	served("after publishing a staged release", "chunk-A.js", "chunk-B.js", "chunk-C.js")
	if err := Publish(out, b.ID); err != nil {
		t.Fatal(err)
	}
	served("after a rollback to the second release", "chunk-A.js", "chunk-B.js", "chunk-C.js")
	list, _ := Releases(out)
	for _, r := range list {
		if r.ID == b.ID {
			if _, ok := r.record.Carried[hashedDir+"chunk-C.js"]; !ok {
				t.Errorf("the rolled-back-to release's record does not list what it carries: %v", r.record.Carried)
			}
		}
	}
	// Past the window, a rollback carries nothing more.
	rs, _ := openReleases(out)
	for i := range rs.list {
		r := &rs.list[i]
		for name, when := range r.record.Carried {
			r.record.Carried[name] = when.Add(-KeepAssets - time.Minute)
		}
		if !r.record.Replaced.IsZero() {
			r.record.Replaced = r.record.Replaced.Add(-KeepAssets - time.Minute)
		}
		r.saveRecord()
	}
	if err := Publish(out, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, hashedDir, "chunk-C.js")); err == nil {
		t.Error("a rollback carried a chunk of a release replaced more than KeepAssets ago")
	}
	served("after a rollback past the window", "chunk-B.js") // B was published until this rollback
}

// TestReleaseCommandsFromAnotherFolder: the publish command a staged
// build prints names the output folder absolutely, so it works from any
// folder; listing a folder that holds no releases says so.
func TestReleaseCommandsFromAnotherFolder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	staged := commitFake(t, "dist", true, "sha256-one", "a.js")
	rs, _ := openReleases("dist")
	cmd := PublishCommand(rs.dir, staged.ID)
	if want := "freightsite release publish " + staged.ID + " --out " + filepath.Join(dir, "dist"); cmd != want {
		t.Errorf("the printed command is %q, want %q", cmd, want)
	}
	t.Chdir(t.TempDir())
	if _, err := Releases("dist"); !errors.Is(err, ErrNoReleases) || !strings.Contains(err.Error(), "freightsite build --out") || !strings.Contains(err.Error(), string(filepath.Separator)+"dist") {
		t.Errorf("listing a folder with no releases: %v", err)
	}
	if err := Publish("dist", staged.ID); !errors.Is(err, ErrNoReleases) {
		t.Errorf("publishing where there are no releases: %v", err)
	}
	if err := Publish(filepath.Join(dir, "dist"), staged.ID); err != nil {
		t.Errorf("publishing with the printed --out from another folder: %v", err)
	}
	if got := shellQuote("/srv/my site/dist"); got != `'/srv/my site/dist'` {
		t.Errorf("a path with a space is quoted as %s", got)
	}
}

// TestExportGivesStaticHostsThePublicFiles: an export holds the
// published release's public files, and for Netlify and Cloudflare the
// rules each reads; never the build's bookkeeping, the .gz siblings or
// serve's shell pages.
func TestExportGivesStaticHostsThePublicFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	files := fakeBuild("sha256-one", "client-A.js")
	files[redirectsFile] = []byte("/hi/*  /hi/404.html  404\n")
	files["hi/404.html"] = []byte("<p>404</p>")
	files["news-feed/news/_/index.html"] = []byte("<p>shell</p>")
	files["news-feed/news/7/index.html"] = []byte("<p>item</p>")
	files["index.html.gz"] = []byte("gz")
	rs, _ := openReleases(out)
	if _, _, err := rs.commit(files, "sha256-one", false); err != nil {
		t.Fatal(err)
	}
	public := []string{"assets/build/client-A.js", "favicon.svg", "hi/404.html", "index.html", "news-feed/news/7/index.html"}
	for host, want := range map[string][]string{
		"static":     public,
		"netlify":    append([]string{headersFile, redirectsFile}, public...),
		"cloudflare": append([]string{headersFile}, public...),
	} {
		dir := filepath.Join(t.TempDir(), "public")
		_, n, err := Export(out, dir, host)
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		var got []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				got = append(got, filepath.ToSlash(rel))
			}
			return err
		})
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) || n != len(want) {
			t.Errorf("export for %s holds %v (%d), want %v", host, got, n, want)
		}
		if _, _, err := Export(out, dir, host); err == nil || !strings.Contains(err.Error(), "not empty") {
			t.Errorf("an export into a folder already holding one: %v", err)
		}
	}
	if _, _, err := Export(out, t.TempDir(), "github"); err == nil {
		t.Error("an export for an unknown host was not refused")
	}
	if _, _, err := Export(filepath.Join(t.TempDir(), "dist"), t.TempDir(), "static"); !errors.Is(err, ErrNoReleases) {
		t.Errorf("an export where there is no release: %v", err)
	}
}
