package formapi

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"freightsite/data"
)

// NewsItem is one news item, in the JSON shape of GET /api/news (SPEC §3)
// and of the files `freightsite news import` reads (data/news.json).
type NewsItem struct {
	ID               int64     `json:"id,omitempty"`
	Title            string    `json:"newsFeedTitle"`
	Content          string    `json:"content"`
	URL              string    `json:"newsUrl"`
	RedirectToSource bool      `json:"redirectToSource"`
	PostedAt         time.Time `json:"postedAt"`
}

// newsAnswer is a news item as the API sends it, with timeAgo.
type newsAnswer struct {
	NewsItem
	TimeAgo string `json:"timeAgo"`
}

// maxSearch bounds the news search text.
const maxSearch = 100

// check says what is wrong with an item, naming the field.
func (n *NewsItem) check() error {
	n.Title, n.Content, n.URL = strings.TrimSpace(n.Title), strings.TrimSpace(n.Content), strings.TrimSpace(n.URL)
	switch {
	case n.Title == "":
		return errors.New("newsFeedTitle is empty")
	case utf8.RuneCountInString(n.Title) > 200:
		return errors.New("newsFeedTitle is longer than 200 characters")
	case n.Content == "":
		return errors.New("content is empty")
	case utf8.RuneCountInString(n.Content) > 20000:
		return errors.New("content is longer than 20000 characters")
	case n.RedirectToSource && n.URL == "":
		return errors.New("redirectToSource is set but newsUrl is empty")
	}
	if n.URL != "" {
		u, err := url.Parse(n.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fmt.Errorf("newsUrl %q is not an absolute http(s) URL", n.URL)
		}
	}
	if n.PostedAt.IsZero() {
		n.PostedAt = time.Now()
	}
	return nil
}

func insertNews(tx *sql.Tx, n NewsItem) (int64, error) {
	res, err := tx.Exec(`INSERT INTO news (title, content, news_url, redirect_to_source, posted_at) VALUES (?, ?, ?, ?, ?)`,
		n.Title, n.Content, n.URL, n.RedirectToSource, timestamp(n.PostedAt))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// AddNews stores one item and returns its id.
func (s *Store) AddNews(ctx context.Context, n NewsItem) (int64, error) {
	if err := n.check(); err != nil {
		return 0, err
	}
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		id, err = insertNews(tx, n)
		return err
	})
	return id, err
}

// ImportNews reads a JSON array of items and stores all of them, or none
// when one is wrong (the error names it by its position).
func (s *Store) ImportNews(ctx context.Context, r io.Reader) (int, error) {
	var items []NewsItem
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&items); err != nil {
		return 0, fmt.Errorf("reading the news file (a JSON array of items): %w", err)
	}
	for i := range items {
		if err := items[i].check(); err != nil {
			return 0, fmt.Errorf("item %d: %w", i+1, err)
		}
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		for _, n := range items {
			if _, err := insertNews(tx, n); err != nil {
				return err
			}
		}
		return nil
	})
	return len(items), err
}

// ListNews returns items newest first; search (if not empty) must appear
// in the title or the content, case-insensitively for ASCII letters.
func (s *Store) ListNews(ctx context.Context, search string, limit int) ([]NewsItem, error) {
	pattern := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(search) + "%"
	rows, err := s.read.QueryContext(ctx, `SELECT id, title, content, news_url, redirect_to_source, posted_at FROM news
		WHERE title LIKE ?1 ESCAPE '\' OR content LIKE ?1 ESCAPE '\' ORDER BY posted_at DESC, id DESC LIMIT ?2`, pattern, limit)
	if err != nil {
		return nil, storageError(err)
	}
	defer rows.Close()
	var out []NewsItem
	for rows.Next() {
		n, err := scanNews(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, storageError(rows.Err())
}

func scanNews(row interface{ Scan(...any) error }) (NewsItem, error) {
	var n NewsItem
	var posted string
	err := row.Scan(&n.ID, &n.Title, &n.Content, &n.URL, &n.RedirectToSource, &posted)
	n.PostedAt = parseTimestamp(posted)
	return n, err
}

// seedNews loads data/news.json into a database that has never had news,
// once: deleting every item later does not bring the seed back.
func seedNews(w *sql.DB) error {
	var seeded int
	if err := w.QueryRow(`SELECT COUNT(*) FROM settings WHERE key = 'news_seeded'`).Scan(&seeded); err != nil || seeded > 0 {
		return err
	}
	var items []NewsItem
	if err := json.Unmarshal(data.File("news.json"), &items); err != nil {
		return fmt.Errorf("reading data/news.json: %w", err)
	}
	tx, err := w.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var existing int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM news`).Scan(&existing); err != nil {
		return err
	}
	for i := range items {
		if existing > 0 {
			break
		}
		if err := items[i].check(); err != nil {
			return fmt.Errorf("data/news.json item %d: %w", i+1, err)
		}
		if _, err := insertNews(tx, items[i]); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(`INSERT INTO settings (key, value) VALUES ('news_seeded', ?)`, timestamp(time.Now())); err != nil {
		return err
	}
	return tx.Commit()
}

// timeAgo is English relative time, as SPEC's news item carries it.
func timeAgo(t, now time.Time) string {
	d := now.Sub(t)
	unit := func(n int, name string) string {
		if n == 1 {
			return "1 " + name + " ago"
		}
		return strconv.Itoa(n) + " " + name + "s ago"
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return unit(int(d/time.Minute), "minute")
	case d < 24*time.Hour:
		return unit(int(d/time.Hour), "hour")
	case d < 30*24*time.Hour:
		return unit(int(d/(24*time.Hour)), "day")
	case d < 365*24*time.Hour:
		return unit(int(d/(30*24*time.Hour)), "month")
	default:
		return unit(int(d/(365*24*time.Hour)), "year")
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

// handleNewsList answers GET /api/news?search=: items newest first, from
// the cache of answers while the news are unchanged.
func handleNewsList(store *Store, now func() time.Time) http.Handler {
	cache := newNewsCache(store)
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		search := strings.TrimSpace(r.URL.Query().Get("search"))
		if utf8.RuneCountInString(search) > maxSearch {
			return badRequest(fmt.Sprintf("search is longer than %d characters", maxSearch))
		}
		answer, err := cache.answer(r.Context(), search, now())
		if err != nil {
			return err
		}
		answer.write(w, r)
		return nil
	})
}

// handleNewsItem answers GET /api/news/{id}.
func handleNewsItem(store *Store, now func() time.Time) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		raw := mux.Vars(r)["id"]
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || id <= 0 {
			return badRequest(fmt.Sprintf("news id %q is not a positive whole number", raw))
		}
		n, err := scanNews(store.read.QueryRowContext(r.Context(), `SELECT id, title, content, news_url, redirect_to_source, posted_at FROM news WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return &httpError{http.StatusNotFound, fmt.Sprintf("no news item %d", id), "newsDetail.notFound"}
		}
		if err != nil {
			return storageError(err)
		}
		writeJSON(w, http.StatusOK, newsAnswer{n, timeAgo(n.PostedAt, now())})
		return nil
	})
}
