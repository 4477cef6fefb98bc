package formapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"freightsite/internal/store"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNewsListAndSearch(t *testing.T) {
	a := newTestAPI(t)
	a.exec(`DELETE FROM news`)
	ctx := context.Background()
	old, _ := a.store.AddNews(ctx, store.NewsItem{Title: "Older item", Content: "Toll plaza at Khalapur", PostedAt: time.Now().Add(-72 * time.Hour)})
	newest, _ := a.store.AddNews(ctx, store.NewsItem{Title: "Newer 100% <b>item</b>", Content: "Diesel price steady", URL: "https://example.in/diesel", RedirectToSource: true, PostedAt: time.Now().Add(-2 * time.Hour)})

	items := decode[[]NewsAnswer](t, a.get("/api/news"))
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
		got := decode[[]NewsAnswer](t, a.get("/api/news?search="+urlQuery(c.search)))
		if len(got) != c.want {
			t.Errorf("search %q: %d items, want %d", c.search, len(got), c.want)
		}
	}
	expectJSONError(t, a.get("/api/news?search="+strings.Repeat("a", maxSearch+1)), http.StatusBadRequest, "longer than 100")
}

func TestNewsItem(t *testing.T) {
	a := newTestAPI(t)
	id, err := a.store.AddNews(context.Background(), store.NewsItem{Title: "Corridor", Content: "Full text\n\nSecond paragraph"})
	if err != nil {
		t.Fatal(err)
	}
	got := decode[NewsAnswer](t, a.get("/api/news/"+itoa(int(id))))
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

// TestTimeAgoInEachLanguage: the API's rounding (whole minutes, hours,
// days, months of 30 days, years of 365, rounded down), phrased as each
// language says it, singular and plural.
func TestTimeAgoInEachLanguage(t *testing.T) {
	posted := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		age        time.Duration
		en, hi, ma string
	}{
		{30 * time.Second, "just now", "अभी-अभी", "आत्ताच"},
		{time.Minute, "1 minute ago", "1 मिनट पहले", "1 मिनिटापूर्वी"},
		{45 * time.Minute, "45 minutes ago", "45 मिनट पहले", "45 मिनिटांपूर्वी"},
		{time.Hour, "1 hour ago", "1 घंटा पहले", "1 तासापूर्वी"},
		{5 * time.Hour, "5 hours ago", "5 घंटे पहले", "5 तासांपूर्वी"},
		{24 * time.Hour, "1 day ago", "1 दिन पहले", "1 दिवसापूर्वी"},
		{10 * 24 * time.Hour, "10 days ago", "10 दिन पहले", "10 दिवसांपूर्वी"},
		{29*24*time.Hour + 23*time.Hour, "29 days ago", "29 दिन पहले", "29 दिवसांपूर्वी"},
		{30 * 24 * time.Hour, "1 month ago", "1 महीना पहले", "1 महिन्यापूर्वी"},
		{200 * 24 * time.Hour, "6 months ago", "6 महीने पहले", "6 महिन्यांपूर्वी"},
		{365 * 24 * time.Hour, "1 year ago", "1 साल पहले", "1 वर्षापूर्वी"},
		{3 * 365 * 24 * time.Hour, "3 years ago", "3 साल पहले", "3 वर्षांपूर्वी"},
	} {
		for lang, want := range map[string]string{"en": c.en, "": c.en, "hi": c.hi, "ma": c.ma} {
			if got := timeAgo(posted, posted.Add(c.age), lang); got != want {
				t.Errorf("%v in %q: %q, want %q", c.age, lang, got, want)
			}
		}
	}
}

// TestNewsInTheVisitorsLanguage: an item may carry Hindi and Marathi title
// and content; the API answers an item in the language asked for where it
// has one and in English (lang "en") otherwise, with timeAgo in the
// language asked for, and a search matches the text shown.
func TestNewsInTheVisitorsLanguage(t *testing.T) {
	now := time.Now()
	a := newTestAPI(t, func(c *Config) { c.Now = func() time.Time { return now } })
	a.exec(`DELETE FROM news`)
	ctx := context.Background()
	both, err := a.store.AddNews(ctx, store.NewsItem{Title: "Toll rates revised", Content: "New toll rates from April", PostedAt: now.Add(-48 * time.Hour),
		Translations: map[string]store.NewsText{"hi": {Title: "टोल दरें बदलीं", Content: "अप्रैल से नई टोल दरें"}, "ma": {Title: "टोल दर बदलले", Content: "एप्रिलपासून नवे टोल दर"}}})
	if err != nil {
		t.Fatal(err)
	}
	english, _ := a.store.AddNews(ctx, store.NewsItem{Title: "Diesel steady", Content: "Prices unchanged", PostedAt: now.Add(-time.Hour)})
	if err := a.store.TranslateNews(ctx, english, "ma", store.NewsText{Title: "डिझेल स्थिर", Content: "दर बदललेले नाहीत"}); err != nil {
		t.Fatal(err)
	}

	type shown struct{ title, lang, timeAgo string }
	list := func(query string) []shown {
		var out []shown
		for _, n := range decode[[]NewsAnswer](t, a.get("/api/news"+query)) {
			out = append(out, shown{n.Title, n.Lang, n.TimeAgo})
		}
		return out
	}
	for query, want := range map[string][]shown{
		"":         {{"Diesel steady", "en", "1 hour ago"}, {"Toll rates revised", "en", "2 days ago"}},
		"?lang=en": {{"Diesel steady", "en", "1 hour ago"}, {"Toll rates revised", "en", "2 days ago"}},
		"?lang=hi": {{"Diesel steady", "en", "1 घंटा पहले"}, {"टोल दरें बदलीं", "hi", "2 दिन पहले"}},
		"?lang=ma": {{"डिझेल स्थिर", "ma", "1 तासापूर्वी"}, {"टोल दर बदलले", "ma", "2 दिवसांपूर्वी"}},
		// A search matches the text the page shows, in its language.
		"?lang=hi&search=" + urlQuery("टोल"):    {{"टोल दरें बदलीं", "hi", "2 दिन पहले"}},
		"?lang=hi&search=Toll":                  nil,
		"?lang=hi&search=diesel":                {{"Diesel steady", "en", "1 घंटा पहले"}},
		"?lang=ma&search=diesel":                nil,
		"?lang=ma&search=" + urlQuery("एप्रिल"): {{"टोल दर बदलले", "ma", "2 दिवसांपूर्वी"}},
		"?search=" + urlQuery("टोल"):            nil,
	} {
		if got := list(query); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("GET /api/news%s: %v, want %v", query, got, want)
		}
	}
	got := decode[NewsAnswer](t, a.get(fmt.Sprintf("/api/news/%d?lang=ma", both)))
	if got.Title != "टोल दर बदलले" || got.Content != "एप्रिलपासून नवे टोल दर" || got.Lang != "ma" || got.TimeAgo != "2 दिवसांपूर्वी" {
		t.Errorf("item in Marathi: %+v", got)
	}
	if got := decode[NewsAnswer](t, a.get(fmt.Sprintf("/api/news/%d?lang=hi", english))); got.Title != "Diesel steady" || got.Lang != "en" {
		t.Errorf("an item without Hindi asked in Hindi: %+v", got)
	}
	expectJSONError(t, a.get("/api/news?lang=fr"), http.StatusBadRequest, `lang "fr"`)
	expectJSONError(t, a.get(fmt.Sprintf("/api/news/%d?lang=xx", both)), http.StatusBadRequest, `lang "xx"`)

	// A translation replaces the earlier one, and the cached list sees it.
	if err := a.store.TranslateNews(ctx, both, "hi", store.NewsText{Title: "टोल दरें फिर बदलीं", Content: "मई से नई दरें"}); err != nil {
		t.Fatal(err)
	}
	if got := list("?lang=hi"); got[1].title != "टोल दरें फिर बदलीं" {
		t.Errorf("after a new translation: %v", got)
	}
	for _, c := range []struct {
		id   int64
		lang string
		text store.NewsText
		want string
	}{
		{both, "en", store.NewsText{Title: "x", Content: "y"}, `language "en"`},
		{both, "fr", store.NewsText{Title: "x", Content: "y"}, `language "fr"`},
		{both, "hi", store.NewsText{Title: "", Content: "y"}, "newsFeedTitle is empty"},
		{both, "hi", store.NewsText{Title: "x", Content: " "}, "content is empty"},
		{999999, "hi", store.NewsText{Title: "x", Content: "y"}, "no news item 999999"},
	} {
		if err := a.store.TranslateNews(ctx, c.id, c.lang, c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("TranslateNews(%d, %s, %v): %v, want an error saying %q", c.id, c.lang, c.text, err, c.want)
		}
	}
}

// TestNewsImportWithTranslations: the JSON import carries translations;
// a wrong one refuses the whole file, naming the item and the language.
func TestNewsImportWithTranslations(t *testing.T) {
	a := newTestAPI(t)
	before := a.count(`SELECT COUNT(*) FROM news_translations`)
	for bad, want := range map[string]string{
		`[{"newsFeedTitle":"a","content":"b","translations":{"fr":{"newsFeedTitle":"c","content":"d"}}}]`:                                    `item 1: translations: language "fr"`,
		`[{"newsFeedTitle":"a","content":"b"},{"newsFeedTitle":"a","content":"b","translations":{"hi":{"newsFeedTitle":"","content":"d"}}}]`: "item 2: translations.hi: newsFeedTitle is empty",
		`[{"newsFeedTitle":"a","content":"b","translations":{"hi":{"title":"c","content":"d"}}}]`:                                            "unknown field",
	} {
		if _, err := a.store.ImportNews(context.Background(), strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", bad, err, want)
		}
	}
	if n := a.count(`SELECT COUNT(*) FROM news_translations`); n != before {
		t.Fatalf("refused imports left %d translations, had %d", n, before)
	}
	n, err := a.store.ImportNews(context.Background(), strings.NewReader(`[{"newsFeedTitle":"Port strike ends","content":"Work resumed at JNPT.","translations":{"hi":{"newsFeedTitle":"बंदरगाह हड़ताल खत्म","content":"जेएनपीटी पर काम फिर शुरू हुआ।"}}}]`))
	if err != nil || n != 1 {
		t.Fatalf("import: %d, %v", n, err)
	}
	got := decode[[]NewsAnswer](t, a.get("/api/news?lang=hi&search="+urlQuery("हड़ताल")))
	if len(got) != 1 || got[0].Content != "जेएनपीटी पर काम फिर शुरू हुआ।" || got[0].Lang != "hi" {
		t.Errorf("the imported translation: %+v", got)
	}
}

// TestReadNewsSnapshot: the build's snapshot of the news (read-only, from
// the file or the PostgreSQL URL) is what GET /api/news answers, in each
// language.
// TestNewsArchive: the build's reader of the database gives every item,
// far more than a page of its reads, newest first (items posted at the same
// time by id, highest first), each with its translations, and the count.
func TestNewsArchive(t *testing.T) {
	a := newTestAPI(t)
	a.exec(`DELETE FROM news`)
	at := time.Date(2026, 11, 18, 4, 0, 0, 0, time.UTC)
	var items []store.NewsItem
	for i := range store.NewsArchivePage + 30 {
		it := store.NewsItem{Title: fmt.Sprintf("Item %d", i), Content: "Text.", PostedAt: at.Add(-time.Duration(i/4) * time.Minute)}
		if i%50 == 0 {
			it.Translations = map[string]store.NewsText{"hi": {Title: fmt.Sprintf("समाचार %d", i), Content: "पाठ।"}}
		}
		items = append(items, it)
	}
	raw, _ := json.Marshal(items)
	if _, err := a.store.ImportNews(t.Context(), bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	archive, err := store.OpenNewsArchive(a.db)
	if err != nil {
		t.Fatal(err)
	}
	defer archive.Close()
	n, err := archive.Count()
	if err != nil || n != len(items) {
		t.Fatalf("count %d (%v), want %d", n, err, len(items))
	}
	want := decode[newsPage](t, a.get(fmt.Sprintf("/api/news?limit=%d", newsListLimit))).Items
	var got []store.NewsItem
	if err := archive.Each(func(n store.NewsItem) error { got = append(got, n); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(items) {
		t.Fatalf("the archive gave %d items, want %d", len(got), len(items))
	}
	for i, w := range want {
		if got[i].ID != w.ID {
			t.Fatalf("item %d of the archive is %d, the API lists %d there", i, got[i].ID, w.ID)
		}
	}
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if a.PostedAt.Before(b.PostedAt) || (a.PostedAt.Equal(b.PostedAt) && a.ID < b.ID) {
			t.Fatalf("items %d and %d are out of order: %v %d, %v %d", i-1, i, a.PostedAt, a.ID, b.PostedAt, b.ID)
		}
		if want := strings.TrimPrefix(b.Title, "Item "); b.Translations["hi"].Title != "" && b.Translations["hi"].Title != "समाचार "+want {
			t.Errorf("item %q has the Hindi title %q", b.Title, b.Translations["hi"].Title)
		}
	}
}

// TestNewsCursor: after its newest 200 the list names the next page in a
// Link header; ?before= pages through every item in order, posted at the
// same time or not, each page naming the next, the last none; a cursor
// that is not one is refused.
func TestNewsCursor(t *testing.T) {
	a := newTestAPI(t)
	a.exec(`DELETE FROM news`)
	at := time.Date(2026, 11, 18, 4, 0, 0, 0, time.UTC)
	var items []store.NewsItem
	for i := range 230 {
		items = append(items, store.NewsItem{Title: fmt.Sprintf("Item %d", i), Content: "Text.", PostedAt: at.Add(-time.Duration(i/3) * time.Hour)})
	}
	raw, _ := json.Marshal(items)
	if _, err := a.store.ImportNews(t.Context(), bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	resp := a.get("/api/news?lang=hi")
	first := decode[[]NewsAnswer](t, resp)
	link := resp.Header.Get("Link")
	if len(first) != newsListLimit || !strings.HasPrefix(link, "</api/news?before=") || !strings.HasSuffix(link, `>; rel="next"`) || !strings.Contains(link, "lang=hi") {
		t.Fatalf("the plain list: %d items, Link %q", len(first), link)
	}
	rest := decode[newsPage](t, a.get(strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)))
	if len(rest.Items) != newsPageLimit || rest.Items[0].ID == first[len(first)-1].ID || rest.Next == nil {
		t.Fatalf("the page after the plain list: %d items, next %v", len(rest.Items), rest.Next)
	}
	var all []NewsAnswer
	next := ""
	for pages := 0; ; pages++ {
		page := decode[newsPage](t, a.get("/api/news?limit=7&before="+next))
		all = append(all, page.Items...)
		if page.Next == nil {
			break
		}
		if pages > 40 {
			t.Fatal("the pages do not end")
		}
		next = *page.Next
	}
	if len(all) != len(items) {
		t.Fatalf("the pages list %d items, want %d", len(all), len(items))
	}
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		if a.PostedAt.Before(b.PostedAt) || (a.PostedAt.Equal(b.PostedAt) && a.ID <= b.ID) {
			t.Fatalf("items out of order or repeated: %d after %d", b.ID, a.ID)
		}
	}
	for _, bad := range []string{"before=abc", "before=12", "before=1.-2", "limit=0", "limit=201", "limit=x"} {
		expectJSONError(t, a.get("/api/news?"+bad), http.StatusBadRequest, "")
	}
}
