package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// archiveItems adds n news items to the database db (created with the
// seed of 8 on its first open), one a day back from a day before the seed,
// every seventh opening its source, and returns how many it holds.
func archiveItems(t *testing.T, db string, n int) int {
	t.Helper()
	type item struct {
		Title    string    `json:"newsFeedTitle"`
		Content  string    `json:"content"`
		URL      string    `json:"newsUrl,omitempty"`
		Redirect bool      `json:"redirectToSource"`
		Posted   time.Time `json:"postedAt"`
	}
	items := make([]item, n)
	for i := range items {
		items[i] = item{Title: fmt.Sprintf("Archive item %d: Nashik–Surat rates", i+1), Content: strings.Repeat("Transporters on the lane report shorter waits. ", 6),
			Posted: time.Date(2026, 10, 1, 6, 0, 0, 0, time.UTC).Add(-time.Duration(i) * 24 * time.Hour)}
		if i%7 == 3 {
			items[i].URL, items[i].Redirect = fmt.Sprintf("https://news.example.in/%d", i), true
		}
	}
	file := filepath.Join(t.TempDir(), "news.json")
	raw, _ := json.Marshal(items)
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(binary, "news", "import", file, "--db", db).CombinedOutput(); err != nil {
		t.Fatalf("news import: %v\n%s", err, out)
	}
	var total int
	if out, err := exec.Command(binary, "news", "list", "--db", db).CombinedOutput(); err != nil {
		t.Fatalf("news list: %v\n%s", err, out)
	} else if _, err := fmt.Sscanf(lastLine(string(out)), "%d items", &total); err != nil {
		t.Fatalf("news list ends %q", lastLine(string(out)))
	}
	return total
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

var (
	reFeedLink  = regexp.MustCompile(`<a href="([^"]*)" rel="(?:next|prev)">`)
	reItemTitle = regexp.MustCompile(`<h2 class="news-title"[^>]*><a href="([^"]*)"`)
)

// crawlNews follows the news feed's links as a browser without JavaScript
// does, from prefix/news-feed through each page of the archive it leads to
// (older and newer), gets every item page they link, and returns how many
// items the feed linked (to their page or, for those that open it, their
// source) and on how many pages.
func crawlNews(t *testing.T, get func(path string) (int, string), prefix string) (items, pages int) {
	t.Helper()
	seen, visited := map[string]bool{}, map[string]bool{}
	for queue := []string{prefix + "/news-feed"}; len(queue) > 0; queue = queue[1:] {
		page := queue[0]
		if visited[page] {
			continue
		}
		visited[page] = true
		status, html := get(page)
		if status != http.StatusOK {
			t.Fatalf("%s: %d", page, status)
		}
		for _, m := range reItemTitle.FindAllStringSubmatch(html, -1) {
			if seen[m[1]] {
				continue // on /news-feed and on a page of the archive
			}
			seen[m[1]] = true
			if strings.HasPrefix(m[1], "/") {
				if status, body := get(m[1]); status != http.StatusOK || !strings.Contains(body, `<article class="news-article" aria-busy="false">`) {
					t.Errorf("%s, linked from %s: %d, want the item's page", m[1], page, status)
				}
			}
		}
		for _, m := range reFeedLink.FindAllStringSubmatch(html, -1) {
			if strings.Contains(m[1], "/news-feed/news/") {
				continue // an item's neighbours
			}
			queue = append(queue, m[1])
		}
		if len(visited) > 100 {
			t.Fatal("the feed's pages do not end")
		}
	}
	return len(seen), len(visited)
}

// TestNewsArchiveByLinksUnderServe: a build of a database of 48 items
// served by `freightsite serve`: every item is linked from the feed's
// pages, in every language, /news-feed and each page of the archive
// linking the ones beside it, with no JavaScript; the RSS feeds are served as XML.
func TestNewsArchiveByLinksUnderServe(t *testing.T) {
	dir := t.TempDir()
	db, dist := filepath.Join(dir, "news.db"), filepath.Join(dir, "dist")
	total := archiveItems(t, db, 40)
	if out, err := exec.Command(binary, "build", "--root", root, "--out", dist, "--db", db).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	addr := freeAddr(t)
	s := startProcess(t, nil, "serve", "--addr", addr, "--dist", dist, "--db", db)
	waitHealthy(t, "http://"+addr+"/healthz")
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, prefix := range []string{"", "/hi", "/ma"} {
		items, pages := crawlNews(t, get, prefix)
		if items != total || pages != 1+(total+19)/20 {
			t.Errorf("%s/news-feed: %d of %d items linked on %d pages", prefix, items, total, pages)
		}
		resp, err := http.Get("http://" + addr + prefix + "/news-feed/feed.xml")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "xml") {
			t.Errorf("%s/news-feed/feed.xml: %d %q", prefix, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	s.stop(t)
}

// nginxCrawl is crawlNews through nginx (TestNginx).
func nginxCrawl(t *testing.T, n *nginxSite, total int) {
	get := func(path string) (int, string) {
		resp, body := n.get(t, path)
		return resp.StatusCode, body
	}
	for _, prefix := range []string{"", "/hi", "/ma"} {
		items, pages := crawlNews(t, get, prefix)
		if items != total || pages != 1+(total+19)/20 {
			t.Errorf("nginx: %s/news-feed: %d of %d items linked on %d pages", prefix, items, total, pages)
		}
		if resp, _ := n.get(t, prefix+"/news-feed/feed.xml"); resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "xml") {
			t.Errorf("nginx: %s/news-feed/feed.xml: %d %q", prefix, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	for _, path := range []string{"/news-feed/page/0", "/news-feed/page/99", "/hi/news-feed/page/x"} {
		if resp, _ := n.get(t, path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("nginx: %s: %d, want 404", path, resp.StatusCode)
		}
	}
}
