package formapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"freightsite/internal/store"
	"io"
	"net/http"
	"testing"
	"time"
)

// TestNewsListSeesChangesFromAnotherProcess: `freightsite news add` writes
// through its own connection while the server caches the list; a request
// a millisecond later lists the new item.
func TestNewsListSeesChangesFromAnotherProcess(t *testing.T) {
	a := newTestAPI(t)
	before := decode[[]NewsAnswer](t, a.get("/api/news"))

	other, err := store.Open(a.db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := other.AddNews(context.Background(), store.NewsItem{Title: "Added by the command line", Content: "New corridor"})
	other.Close()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	after := decode[[]NewsAnswer](t, a.get("/api/news"))
	if len(after) != len(before)+1 || after[0].ID != id {
		t.Fatalf("after another process added item %d: %d items (first %d), before %d", id, len(after), after[0].ID, len(before))
	}

}

// TestNewsListSeesItsOwnChangesAtOnce: a change through the server's own
// store shows in the very next answer, however recently news_version was
// read.
func TestNewsListSeesItsOwnChangesAtOnce(t *testing.T) {
	defer func(d time.Duration) { versionReadEvery = d }(versionReadEvery)
	versionReadEvery = time.Hour
	a := newTestAPI(t)
	before := decode[[]NewsAnswer](t, a.get("/api/news"))
	id, err := a.store.AddNews(context.Background(), store.NewsItem{Title: "Added through the server", Content: "New corridor"})
	if err != nil {
		t.Fatal(err)
	}
	if got := decode[[]NewsAnswer](t, a.get("/api/news")); len(got) != len(before)+1 || got[0].ID != id {
		t.Fatalf("right after adding item %d: %d items, want %d", id, len(got), len(before)+1)
	}
	if got := decode[[]NewsAnswer](t, a.get("/api/news?search="+urlQuery("New corridor"))); len(got) != 1 {
		t.Fatalf("search: %d items, want the new one", len(got))
	}
	a.exec(`DELETE FROM news WHERE id = ?`, id)
	if got := decode[[]NewsAnswer](t, a.get("/api/news")); len(got) != len(before) {
		t.Errorf("right after a delete: %d items, want %d", len(got), len(before))
	}
	if got := decode[[]NewsAnswer](t, a.get("/api/news?search="+urlQuery("New corridor"))); len(got) != 0 {
		t.Errorf("a search still finds the deleted item: %+v", got)
	}
}

// TestNewsListTimeAgoMovesOn: a cached answer is not served past the
// moment one of its timeAgo texts changes.
func TestNewsListTimeAgoMovesOn(t *testing.T) {
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	a := newTestAPI(t, func(c *Config) { c.Now = func() time.Time { return now } })
	a.exec(`DELETE FROM news`)
	if _, err := a.store.AddNews(context.Background(), store.NewsItem{Title: "Fresh", Content: "x", PostedAt: now.Add(-59 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	if got := decode[[]NewsAnswer](t, a.get("/api/news")); got[0].TimeAgo != "just now" {
		t.Fatalf("timeAgo %q, want just now", got[0].TimeAgo)
	}
	now = now.Add(time.Second)
	if got := decode[[]NewsAnswer](t, a.get("/api/news")); got[0].TimeAgo != "1 minute ago" {
		t.Errorf("a second later: timeAgo %q, want 1 minute ago", got[0].TimeAgo)
	}
}

func TestTimeAgoChangesWhenItSays(t *testing.T) {
	posted := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, age := range []time.Duration{
		-time.Hour, 0, 30 * time.Second, 59 * time.Second, time.Minute, 61 * time.Minute, 23*time.Hour + 59*time.Minute,
		25 * time.Hour, 29*24*time.Hour + time.Minute, 31 * 24 * time.Hour, 359 * 24 * time.Hour, 364 * 24 * time.Hour,
		366 * 24 * time.Hour, 800 * 24 * time.Hour,
	} {
		for _, lang := range []string{"en", "hi", "ma"} {
			now := posted.Add(age)
			next := timeAgoChanges(posted, now)
			text := timeAgo(posted, now, lang)
			if !next.After(now) {
				t.Errorf("age %v: next change %v is not after now", age, next.Sub(posted))
				continue
			}
			if before := timeAgo(posted, next.Add(-time.Nanosecond), lang); before != text {
				t.Errorf("%s, age %v: %q changes to %q before %v", lang, age, text, before, next.Sub(posted))
			}
			if at := timeAgo(posted, next, lang); at == text {
				t.Errorf("%s, age %v: %q has not changed at %v", lang, age, text, next.Sub(posted))
			}
		}
	}
}

// TestNewsListIsCompressed: a client that accepts gzip gets the list
// compressed, the same JSON as without.
func TestNewsListIsCompressed(t *testing.T) {
	a := newTestAPI(t)
	plain := a.do(http.MethodGet, "/api/news", "", nil, http.Header{"Accept-Encoding": {"identity"}})
	identity, _ := io.ReadAll(plain.Body)
	plain.Body.Close()
	if plain.Header.Get("Content-Encoding") != "" || len(identity) < 1000 {
		t.Fatalf("without gzip: encoding %q, %d bytes", plain.Header.Get("Content-Encoding"), len(identity))
	}
	resp := a.do(http.MethodGet, "/api/news", "", nil, http.Header{"Accept-Encoding": {"gzip, deflate, br"}})
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("headers %v", resp.Header)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if !bytes.Equal(unzipped, identity) {
		t.Error("the gzip answer is not the same JSON")
	}
	if n := resp.ContentLength; n <= 0 || int(n) >= len(identity) {
		t.Errorf("Content-Length %d for %d bytes of JSON", n, len(identity))
	}
	for header, want := range map[string]bool{"gzip;q=0": false, "*": true, "br": false, "GZIP;q=0.5": true} {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Accept-Encoding", header)
		if got := acceptsGzip(r); got != want {
			t.Errorf("Accept-Encoding %q: gzip %v, want %v", header, got, want)
		}
	}
}
