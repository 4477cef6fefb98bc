package formapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"freightsite/internal/store"
	"freightsite/locales"
)

// NewsAnswer is a news item as GET /api/news and /api/news/{id} send it
// (SPEC §3): in the language asked for (lang=), or in English where the
// item has no translation into it, with timeAgo in that language.
type NewsAnswer struct {
	ID               int64     `json:"id"`
	Title            string    `json:"newsFeedTitle"`
	Content          string    `json:"content"`
	URL              string    `json:"newsUrl"`
	RedirectToSource bool      `json:"redirectToSource"`
	PostedAt         time.Time `json:"postedAt"`
	// Lang is the language of title and content: the one asked for, or
	// en when the item is shown in English.
	Lang    string `json:"lang"`
	TimeAgo string `json:"timeAgo"`
}

// maxSearch bounds the news search text.
const maxSearch = 100

// answerOf is an item as the API sends it, without its timeAgo.
func answerOf(n store.ShownNews) NewsAnswer {
	return NewsAnswer{ID: n.ID, Title: n.Title, Content: n.Content, URL: n.URL, RedirectToSource: n.RedirectToSource, PostedAt: n.PostedAt, Lang: n.Lang}
}

// newsList is the list GET /api/news answers at now (limit items from
// the one after before on), the cursor of what follows (zero for
// nothing), and when the first of its timeAgo texts reads differently.
func newsList(ctx context.Context, s *store.Store, search, lang string, before newsCursor, limit int, now time.Time) ([]NewsAnswer, newsCursor, time.Time, error) {
	shown, err := s.ListNewsAfter(ctx, search, lang, before.posted, before.id, limit+1)
	if err != nil {
		return nil, newsCursor{}, time.Time{}, err
	}
	var items []NewsAnswer
	for _, n := range shown {
		items = append(items, answerOf(n))
	}
	var next newsCursor
	if len(items) > limit {
		items = items[:limit]
		next = cursorOf(items[limit-1])
	}
	if items == nil {
		items = []NewsAnswer{}
	}
	until := now.Add(24 * time.Hour)
	for i, n := range items {
		items[i].TimeAgo = timeAgo(n.PostedAt, now, lang)
		if u := timeAgoChanges(n.PostedAt, now); u.Before(until) {
			until = u
		}
	}
	return items, next, until, nil
}

// newsCursor stands for an item of the list: GET /api/news?before= lists
// the items after it. It is written as the item's postedAt in
// milliseconds since 1970, a dot and its id ("1763438400000.12"), which a
// client that holds the item can write too.
type newsCursor struct {
	posted time.Time
	id     int64
}

func cursorOf(n NewsAnswer) newsCursor { return newsCursor{n.PostedAt, n.ID} }

func (c newsCursor) String() string {
	if c.id == 0 {
		return ""
	}
	return strconv.FormatInt(c.posted.UnixMilli(), 10) + "." + strconv.FormatInt(c.id, 10)
}

// parseNewsCursor reads a cursor as String writes it.
func parseNewsCursor(s string) (newsCursor, error) {
	ms, id, ok := strings.Cut(s, ".")
	t, err1 := strconv.ParseInt(ms, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if !ok || err1 != nil || err2 != nil || n <= 0 || t < 0 {
		return newsCursor{}, badRequest(fmt.Sprintf("before %q is not a cursor of the news list (MILLISECONDS.ID, as next gives it)", s))
	}
	return newsCursor{time.UnixMilli(t).UTC(), n}, nil
}

// newsPageLimit is how many items GET /api/news?before= lists unless
// limit says otherwise (up to newsListLimit).
const newsPageLimit = 20

// newsPage is the answer of GET /api/news?before=: the next items, and
// the cursor of those after them (null at the end).
type newsPage struct {
	Items []NewsAnswer `json:"items"`
	Next  *string      `json:"next"`
}

// timeAgo says how long before now t was, in lang's words (locales
// newsFeed.ago; English for "" or an unknown language, as locales reads
// any code that is not the site's): "just now" under a minute, then whole
// minutes, hours, days, months of 30 days and years of 365, rounded down,
// as SPEC's news item carries it.
func timeAgo(t, now time.Time, lang string) string {
	d := now.Sub(t)
	n := func(unit time.Duration, key string) string { return locales.N(lang, "newsFeed.ago."+key, int(d/unit)) }
	switch {
	case d < time.Minute:
		return locales.T(lang, "newsFeed.ago.justNow", nil)
	case d < time.Hour:
		return n(time.Minute, "minutes")
	case d < 24*time.Hour:
		return n(time.Hour, "hours")
	case d < 30*24*time.Hour:
		return n(24*time.Hour, "days")
	case d < 365*24*time.Hour:
		return n(30*24*time.Hour, "months")
	default:
		return n(365*24*time.Hour, "years")
	}
}

// timeAgoChanges is when timeAgo(t, now) next reads differently.
func timeAgoChanges(t, now time.Time) time.Time {
	d := now.Sub(t)
	next := func(unit time.Duration) time.Time { return t.Add((d/unit + 1) * unit) }
	switch {
	case d < time.Minute:
		return t.Add(time.Minute)
	case d < time.Hour:
		return next(time.Minute)
	case d < 24*time.Hour:
		return next(time.Hour)
	case d < 30*24*time.Hour:
		return next(24 * time.Hour)
	case d < 365*24*time.Hour:
		year := t.Add(365 * 24 * time.Hour)
		if month := next(30 * 24 * time.Hour); month.Before(year) {
			return month
		}
		return year
	default:
		return next(365 * 24 * time.Hour)
	}
}

// newsListLimit is how many items GET /api/news lists at most.
const newsListLimit = 200

// newsLanguage reads the lang parameter: a language code of the site, or
// "" for English.
func newsLanguage(r *http.Request, site siteInfo) (string, error) {
	q, err := query(r)
	if err != nil {
		return "", err
	}
	lang := q.Get("lang")
	if lang != "" && site.language(lang) != lang {
		return "", badRequest(fmt.Sprintf("lang %q is not a language of the site (en, hi, ma)", lang))
	}
	return lang, nil
}

// handleNewsList answers GET /api/news?lang=&search=: items newest first,
// shown in lang, from the cache of answers while the news are unchanged;
// a Link header names the page after them when there is one. With
// before= (a cursor: the next of an answer, or of the Link) it answers the
// items after that one, limit= of them (newsPageLimit by default), as
// newsPage.
func handleNewsList(s *store.Store, site siteInfo, now func() time.Time) http.Handler {
	cache := newNewsCache(s)
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		q, err := query(r)
		if err != nil {
			return err
		}
		search := strings.TrimSpace(q.Get("search"))
		if utf8.RuneCountInString(search) > maxSearch {
			return badRequest(fmt.Sprintf("search is longer than %d characters", maxSearch))
		}
		lang, err := newsLanguage(r, site)
		if err != nil {
			return err
		}
		if q.Has("before") || q.Has("limit") {
			before, limit := newsCursor{}, newsPageLimit
			if q.Get("before") != "" {
				if before, err = parseNewsCursor(q.Get("before")); err != nil {
					return err
				}
			}
			if q.Has("limit") {
				if limit, err = strconv.Atoi(q.Get("limit")); err != nil || limit < 1 || limit > newsListLimit {
					return badRequest(fmt.Sprintf("limit %q is not a whole number from 1 to %d", q.Get("limit"), newsListLimit))
				}
			}
			items, next, _, err := newsList(r.Context(), s, search, lang, before, limit, now())
			if err != nil {
				return err
			}
			page := newsPage{Items: items}
			if next.id != 0 {
				cursor := next.String()
				page.Next = &cursor
			}
			writeJSON(w, http.StatusOK, page)
			return nil
		}
		answer, err := cache.answer(r.Context(), search, lang, now())
		if err != nil {
			return err
		}
		answer.write(w, r)
		return nil
	})
}

// handleNewsItem answers GET /api/news/{id}?lang=.
func handleNewsItem(s *store.Store, site siteInfo, now func() time.Time) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		raw := mux.Vars(r)["id"]
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || id <= 0 {
			return badRequest(fmt.Sprintf("news id %q is not a positive whole number", raw))
		}
		lang, err := newsLanguage(r, site)
		if err != nil {
			return err
		}
		shown, found, err := s.ShowNews(r.Context(), id, lang)
		if err != nil {
			return err
		}
		if !found {
			return &httpError{http.StatusNotFound, fmt.Sprintf("no news item %d", id), "newsDetail.notFound"}
		}
		n := answerOf(shown)
		n.TimeAgo = timeAgo(n.PostedAt, now(), lang)
		writeJSON(w, http.StatusOK, n)
		return nil
	})
}
