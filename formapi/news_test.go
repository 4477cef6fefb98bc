package formapi

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNewsSeedIsLoadedOnce(t *testing.T) {
	a := newTestAPI(t)
	n := a.count(`SELECT COUNT(*) FROM news`)
	if n < 8 || a.count(`SELECT COUNT(*) FROM news WHERE redirect_to_source = 1 AND news_url != ''`) < 1 {
		t.Fatalf("seed: %d items, want 8 with one that redirects to its source", n)
	}
	a.exec(`DELETE FROM news`)
	a.store.Close()
	s, err := OpenStore(a.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var after int
	s.read.QueryRow(`SELECT COUNT(*) FROM news`).Scan(&after)
	if after != 0 {
		t.Errorf("the seed came back after every item was deleted: %d items", after)
	}
}

func TestNewsListAndSearch(t *testing.T) {
	a := newTestAPI(t)
	a.exec(`DELETE FROM news`)
	ctx := context.Background()
	old, _ := a.store.AddNews(ctx, NewsItem{Title: "Older item", Content: "Toll plaza at Khalapur", PostedAt: time.Now().Add(-72 * time.Hour)})
	newest, _ := a.store.AddNews(ctx, NewsItem{Title: "Newer 100% <b>item</b>", Content: "Diesel price steady", URL: "https://example.in/diesel", RedirectToSource: true, PostedAt: time.Now().Add(-2 * time.Hour)})

	items := decode[[]newsAnswer](t, a.get("/api/news"))
	if len(items) != 2 || items[0].ID != newest || items[1].ID != old {
		t.Fatalf("list %+v: want the newest first", items)
	}
	if got := items[0]; got.Title != "Newer 100% <b>item</b>" || !got.RedirectToSource || got.URL != "https://example.in/diesel" || got.TimeAgo != "2 hours ago" {
		t.Errorf("item %+v", got)
	}
	if items[1].TimeAgo != "3 days ago" {
		t.Errorf("timeAgo %q", items[1].TimeAgo)
	}
	for _, c := range []struct {
		search string
		want   int
	}{{"khalapur", 1}, {"DIESEL", 1}, {"100%", 1}, {"%", 1}, {"_", 0}, {"nothing like it", 0}, {"", 2}, {"'; DROP TABLE news;--", 0}} {
		got := decode[[]newsAnswer](t, a.get("/api/news?search="+urlQuery(c.search)))
		if len(got) != c.want {
			t.Errorf("search %q: %d items, want %d", c.search, len(got), c.want)
		}
	}
	expectJSONError(t, a.get("/api/news?search="+strings.Repeat("a", maxSearch+1)), http.StatusBadRequest, "longer than 100")
}

func TestNewsItem(t *testing.T) {
	a := newTestAPI(t)
	id, err := a.store.AddNews(context.Background(), NewsItem{Title: "Corridor", Content: "Full text\n\nSecond paragraph"})
	if err != nil {
		t.Fatal(err)
	}
	got := decode[newsAnswer](t, a.get("/api/news/"+itoa(int(id))))
	if got.Title != "Corridor" || got.Content != "Full text\n\nSecond paragraph" {
		t.Errorf("item %+v", got)
	}
	expectJSONError(t, a.get("/api/news/999999"), http.StatusNotFound, "no news item 999999")
	expectJSONError(t, a.get("/api/news/abc"), http.StatusBadRequest, "not a positive whole number")
	expectJSONError(t, a.get("/api/news/-1"), http.StatusBadRequest, "not a positive whole number")
	expectJSONError(t, a.get("/api/news/99999999999999999999999"), http.StatusBadRequest, "not a positive whole number")
}

func TestNewsImportIsAllOrNothing(t *testing.T) {
	a := newTestAPI(t)
	before := a.count(`SELECT COUNT(*) FROM news`)
	_, err := a.store.ImportNews(context.Background(), strings.NewReader(`[{"newsFeedTitle":"ok","content":"fine"},{"newsFeedTitle":"","content":"no title"}]`))
	if err == nil || !strings.Contains(err.Error(), "item 2: newsFeedTitle is empty") {
		t.Errorf("err %v", err)
	}
	for _, bad := range []string{`{"newsFeedTitle":"x"}`, `[{"title":"x"}]`, `[{"newsFeedTitle":"x","content":"y","redirectToSource":true}]`, `[{"newsFeedTitle":"x","content":"y","newsUrl":"javascript:alert(1)"}]`} {
		if _, err := a.store.ImportNews(context.Background(), strings.NewReader(bad)); err == nil {
			t.Errorf("%s imported", bad)
		}
	}
	if after := a.count(`SELECT COUNT(*) FROM news`); after != before {
		t.Errorf("%d items after failed imports, had %d", after, before)
	}
	n, err := a.store.ImportNews(context.Background(), strings.NewReader(`[{"newsFeedTitle":"a","content":"b","postedAt":"2026-01-02T10:00:00+05:30"},{"newsFeedTitle":"c","content":"d","newsUrl":"https://x.in","redirectToSource":true}]`))
	if err != nil || n != 2 || a.count(`SELECT COUNT(*) FROM news`) != before+2 {
		t.Errorf("import: %d, %v", n, err)
	}
}
