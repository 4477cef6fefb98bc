package generator

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"freightsite/data"
)

// distFiles reads every file of the shared test build.
func distFiles(t *testing.T) map[string][]byte {
	t.Helper()
	dir, err := filepath.EvalSymlinks(testDist)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestServiceWorkerKeepsTheLanguagesPages: each language's precache list
// starts with its home page, holds its pages (not another language's, not
// the 404 page or a route's shell) with the hash of their content, every
// hashed script and style, and its own translations; the worker carries
// every hash (a rebuild that changes a file changes /sw.js), and the
// pages of every language register that one worker.
func TestServiceWorkerKeepsTheLanguagesPages(t *testing.T) {
	files := distFiles(t)
	sw := string(files[serviceWorkerFile])
	for _, l := range langs {
		list := precacheList(data.Language{Code: l.code, Prefix: l.prefix, HTMLLang: l.htmlLang}, files, testReport.Pages)
		paths := make([]string, len(list))
		for i, e := range list {
			paths[i] = e[0]
			if !strings.Contains(sw, `"`+e[0]+`","`+e[1]+`"`) {
				t.Errorf("%s: /sw.js lacks %s with its hash %s", l.code, e[0], e[1])
			}
		}
		home := l.prefix
		if home == "" {
			home = "/"
		}
		if len(paths) == 0 || paths[0] != home {
			t.Fatalf("%s: the list starts %v, want the home page %s", l.code, paths[:min(len(paths), 3)], home)
		}
		sum := sha256.Sum256(files[strings.TrimPrefix(l.prefix+"/faq/index.html", "/")])
		if !slices.Contains(list, [2]string{l.prefix + "/faq", hex.EncodeToString(sum[:8])}) {
			t.Errorf("%s: the list lacks %s/faq with the hash of its content", l.code, l.prefix)
		}
		for _, p := range paths {
			if strings.Contains(p, ":") || strings.Contains(p, "404") {
				t.Errorf("%s: the list holds %s", l.code, p)
			}
			if strings.HasPrefix(p, "/assets/i18n/") && p != "/assets/i18n/"+l.code+".json" {
				t.Errorf("%s: the list holds another language's translations %s", l.code, p)
			}
			for _, other := range langs {
				if other.prefix != "" && other.code != l.code && (p == other.prefix || strings.HasPrefix(p, other.prefix+"/")) {
					t.Errorf("%s: the list holds %s of %s", l.code, p, other.code)
				}
			}
		}
		for name := range files {
			if strings.HasPrefix(name, hashedDir) && (strings.HasSuffix(name, ".js") || strings.HasSuffix(name, ".css")) && !slices.Contains(paths, "/"+name) {
				t.Errorf("%s: the list lacks /%s", l.code, name)
			}
		}
		// The boot script registers it on a page without islands, client.tsx
		// on a page with islands once they are live.
		if !strings.Contains(string(files[strings.TrimPrefix(l.prefix+"/faq/index.html", "/")]), `data-sw="/sw.js"`) {
			t.Errorf("%s/faq does not have the boot script register the worker", l.prefix)
		}
		if contact := string(files[strings.TrimPrefix(l.prefix+"/contact-us/index.html", "/")]); !strings.Contains(contact, `data-sw-after-islands="/sw.js"`) || strings.Contains(contact, `data-sw=`) {
			t.Errorf("%s/contact-us (islands) does not leave the worker to client.tsx", l.prefix)
		}
	}
}

// TestBuildWithoutServiceWorker: with the worker off, pages register
// none and /sw.js is the one that unregisters an earlier build's.
func TestBuildWithoutServiceWorker(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	if _, err := Build(Options{Root: "..", Out: out, BaseURL: testBase, Year: 2030, NoServiceWorker: true}); err != nil {
		t.Fatal(err)
	}
	sw, err := os.ReadFile(filepath.Join(out, serviceWorkerFile))
	if err != nil || string(sw) != unregisteringWorker {
		t.Errorf("/sw.js of a build without the worker: %q, %v", sw, err)
	}
	for _, page := range []string{"faq", "contact-us"} {
		html, _ := os.ReadFile(filepath.Join(out, page, "index.html"))
		if strings.Contains(string(html), "data-sw") {
			t.Errorf("/%s of a build without the worker registers it", page)
		}
	}
}
