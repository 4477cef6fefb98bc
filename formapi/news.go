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
	"freightsite/internal/plaintext"
	"freightsite/locales"
)

// NewsItem is one news item as it is stored and imported (data/news.json,
// `freightsite news import`): the English title and content, and
// optionally the same in other languages of the site.
type NewsItem struct {
	ID               int64     `json:"id,omitempty"`
	Title            string    `json:"newsFeedTitle"`
	Content          string    `json:"content"`
	URL              string    `json:"newsUrl"`
	RedirectToSource bool      `json:"redirectToSource"`
	PostedAt         time.Time `json:"postedAt"`
	// Translations are the title and content in Hindi or Marathi, by
	// language code (hi, ma); a page in a language without one shows the
	// English text.
	Translations map[string]NewsText `json:"translations,omitempty"`
}

// NewsText is an item's title and content in one language.
type NewsText struct {
	Title   string `json:"newsFeedTitle"`
	Content string `json:"content"`
}

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

// check says what is wrong with an item, naming the field.
func (n *NewsItem) check() error {
	n.URL = strings.TrimSpace(n.URL)
	if err := n.NewsText().check(); err != nil {
		return err
	}
	n.Title, n.Content = strings.TrimSpace(n.Title), strings.TrimSpace(n.Content)
	if n.RedirectToSource && n.URL == "" {
		return errors.New("redirectToSource is set but newsUrl is empty")
	}
	if n.URL != "" {
		if err := plaintext.CheckLine(n.URL); err != nil {
			return fmt.Errorf("newsUrl: %w", err)
		}
		u, err := url.Parse(n.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fmt.Errorf("newsUrl %q is not an absolute http(s) URL", n.URL)
		}
	}
	for lang, text := range n.Translations {
		if err := checkTranslationLanguage(lang); err != nil {
			return fmt.Errorf("translations: %w", err)
		}
		if err := text.check(); err != nil {
			return fmt.Errorf("translations.%s: %w", lang, err)
		}
		n.Translations[lang] = NewsText{strings.TrimSpace(text.Title), strings.TrimSpace(text.Content)}
	}
	if n.PostedAt.IsZero() {
		n.PostedAt = time.Now()
	}
	return nil
}

// NewsText is the item's English title and content.
func (n *NewsItem) NewsText() NewsText { return NewsText{n.Title, n.Content} }

// check says what is wrong with a title and content.
func (t NewsText) check() error {
	title, content := strings.TrimSpace(t.Title), strings.TrimSpace(t.Content)
	switch {
	case title == "":
		return errors.New("newsFeedTitle is empty")
	case utf8.RuneCountInString(title) > 200:
		return errors.New("newsFeedTitle is longer than 200 characters")
	case content == "":
		return errors.New("content is empty")
	case utf8.RuneCountInString(content) > 20000:
		return errors.New("content is longer than 20000 characters")
	}
	if err := plaintext.CheckLine(title); err != nil {
		return fmt.Errorf("newsFeedTitle: %w", err)
	}
	if err := plaintext.CheckText(content); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	return nil
}

// checkTranslationLanguage accepts the codes of the site's languages
// other than the default one (English, which the item itself is in).
func checkTranslationLanguage(lang string) error {
	var codes []string
	for _, l := range data.Site().Languages[1:] {
		if l.Code == lang {
			return nil
		}
		codes = append(codes, l.Code)
	}
	return fmt.Errorf("language %q is not one an item is translated into (%s)", lang, strings.Join(codes, ", "))
}

func insertNews(tx *sql.Tx, n NewsItem) (int64, error) {
	var id int64
	err := tx.QueryRow(`INSERT INTO news (title, content, news_url, redirect_to_source, posted_at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
		n.Title, n.Content, n.URL, n.RedirectToSource, timestamp(n.PostedAt)).Scan(&id)
	if err != nil {
		return 0, err
	}
	for lang, text := range n.Translations {
		if err := putTranslation(tx, id, lang, text); err != nil {
			return 0, err
		}
	}
	return id, nil
}

func putTranslation(tx *sql.Tx, id int64, lang string, t NewsText) error {
	_, err := tx.Exec(`INSERT INTO news_translations (news_id, lang, title, content) VALUES (?, ?, ?, ?)
		ON CONFLICT (news_id, lang) DO UPDATE SET title = excluded.title, content = excluded.content`, id, lang, t.Title, t.Content)
	return err
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

// TranslateNews adds or replaces item id's title and content in lang
// (hi or ma).
func (s *Store) TranslateNews(ctx context.Context, id int64, lang string, t NewsText) error {
	if err := checkTranslationLanguage(lang); err != nil {
		return err
	}
	if err := t.check(); err != nil {
		return err
	}
	t = NewsText{strings.TrimSpace(t.Title), strings.TrimSpace(t.Content)}
	return s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM news WHERE id = ?`, id).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("there is no news item %d", id)
		}
		return putTranslation(tx, id, lang, t)
	})
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

// newsColumns select an item shown in the language ?lang (the query's
// first argument): its translation's title and content where it has one,
// the English ones otherwise, and the language they are in.
const newsColumns = `SELECT n.id, COALESCE(t.title, n.title), COALESCE(t.content, n.content), n.news_url, n.redirect_to_source, n.posted_at, COALESCE(t.lang, 'en')
	FROM news n LEFT JOIN news_translations t ON t.news_id = n.id AND t.lang = ?1`

// ListNews returns items newest first, shown in lang (a language code of
// the site; the default language or "" for English); search (if not
// empty) must appear in the title or the content shown, case-insensitively
// for ASCII letters.
func (s *Store) ListNews(ctx context.Context, search, lang string, limit int) ([]NewsAnswer, error) {
	return listNews(ctx, s.read, search, lang, limit)
}

func listNews(ctx context.Context, db *sql.DB, search, lang string, limit int) ([]NewsAnswer, error) {
	return listNewsBefore(ctx, db, search, lang, newsCursor{}, limit)
}

// listNewsBefore is listNews from the item after the cursor on (the
// whole list for a zero cursor).
func listNewsBefore(ctx context.Context, db *sql.DB, search, lang string, before newsCursor, limit int) ([]NewsAnswer, error) {
	pattern := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(search) + "%"
	rows, err := db.QueryContext(ctx, newsColumns+`
		WHERE (lower(COALESCE(t.title, n.title)) LIKE lower(?2) ESCAPE '\' OR lower(COALESCE(t.content, n.content)) LIKE lower(?2) ESCAPE '\')
		AND (?5 = 0 OR n.posted_at < ?4 OR (n.posted_at = ?4 AND n.id < ?5))
		ORDER BY n.posted_at DESC, n.id DESC LIMIT ?3`, lang, pattern, limit, timestamp(before.posted), before.id)
	if err != nil {
		return nil, storageError(err)
	}
	defer rows.Close()
	var out []NewsAnswer
	for rows.Next() {
		n, err := scanNews(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, storageError(rows.Err())
}

// NewsExists says whether there is a news item with this id (the site's
// server answers 404 for the page of any other).
func (s *Store) NewsExists(ctx context.Context, id int64) (bool, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM news WHERE id = ?`, id).Scan(&n)
	return n > 0, storageError(err)
}

// newsList is the list GET /api/news answers at now (limit items from
// the one after before on), the cursor of what follows (zero for
// nothing), and when the first of its timeAgo texts reads differently.
func newsList(ctx context.Context, db *sql.DB, search, lang string, before newsCursor, limit int, now time.Time) ([]NewsAnswer, newsCursor, time.Time, error) {
	items, err := listNewsBefore(ctx, db, search, lang, before, limit+1)
	if err != nil {
		return nil, newsCursor{}, time.Time{}, err
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

func scanNews(row interface{ Scan(...any) error }) (NewsAnswer, error) {
	var n NewsAnswer
	var posted string
	err := row.Scan(&n.ID, &n.Title, &n.Content, &n.URL, &n.RedirectToSource, &posted, &n.Lang)
	n.PostedAt = parseTimestamp(posted)
	return n, err
}

// seedNews loads data/news.json into a database that has never had news,
// once: deleting every item later does not bring the seed back.
func seedNews(ctx context.Context, w *sql.Conn) error {
	var items []NewsItem
	if err := json.Unmarshal(data.File("news.json"), &items); err != nil {
		return fmt.Errorf("reading data/news.json: %w", err)
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var seeded int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM settings WHERE key = 'news_seeded'`).Scan(&seeded); err != nil || seeded > 0 {
		return err
	}
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

// timeAgo says how long before now t was, in lang's words (locales
// newsFeed.ago; English for "" or an unknown language): "just now" under a
// minute, then whole minutes, hours, days, months of 30 days and years of
// 365, rounded down, as SPEC's news item carries it.
func timeAgo(t, now time.Time, lang string) string {
	d := now.Sub(t)
	lang = language(lang)
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
func newsLanguage(r *http.Request) (string, error) {
	q, err := query(r)
	if err != nil {
		return "", err
	}
	lang := q.Get("lang")
	if lang != "" && language(lang) != lang {
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
func handleNewsList(store *Store, now func() time.Time) http.Handler {
	cache := newNewsCache(store)
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		q, err := query(r)
		if err != nil {
			return err
		}
		search := strings.TrimSpace(q.Get("search"))
		if utf8.RuneCountInString(search) > maxSearch {
			return badRequest(fmt.Sprintf("search is longer than %d characters", maxSearch))
		}
		lang, err := newsLanguage(r)
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
			items, next, _, err := newsList(r.Context(), store.read, search, lang, before, limit, now())
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
func handleNewsItem(store *Store, now func() time.Time) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		raw := mux.Vars(r)["id"]
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || id <= 0 {
			return badRequest(fmt.Sprintf("news id %q is not a positive whole number", raw))
		}
		lang, err := newsLanguage(r)
		if err != nil {
			return err
		}
		n, err := scanNews(store.read.QueryRowContext(r.Context(), newsColumns+` WHERE n.id = ?2`, lang, id))
		if errors.Is(err, sql.ErrNoRows) {
			return &httpError{http.StatusNotFound, fmt.Sprintf("no news item %d", id), "newsDetail.notFound"}
		}
		if err != nil {
			return storageError(err)
		}
		n.TimeAgo = timeAgo(n.PostedAt, now(), lang)
		writeJSON(w, http.StatusOK, n)
		return nil
	})
}

// NewsArchive reads every news item of a database, without changing it,
// for `freightsite build`: the count and then the items, newest first, in
// one read transaction, so both see the same news even while a server
// adds some. It reads a page of items at a time and holds no more.
type NewsArchive struct {
	db *sql.DB
	tx *sql.Tx
}

// newsArchivePage is how many items the archive reads at a time.
const newsArchivePage = 500

// OpenNewsArchive opens the database at path (a SQLite file or a
// PostgreSQL URL) read-only for ReadNews.
func OpenNewsArchive(path string) (*NewsArchive, error) {
	db, err := openReadOnly(path)
	if err != nil {
		return nil, fmt.Errorf("reading the news: %w", err)
	}
	var opts *sql.TxOptions
	if IsPostgres(path) {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	tx, err := db.BeginTx(context.Background(), opts)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("reading the news of %s: %w", DisplayName(path), err)
	}
	return &NewsArchive{db: db, tx: tx}, nil
}

// Close ends the read.
func (a *NewsArchive) Close() error {
	a.tx.Rollback()
	return a.db.Close()
}

// Count is how many items there are.
func (a *NewsArchive) Count() (int, error) {
	var n int
	err := a.tx.QueryRow(`SELECT COUNT(*) FROM news`).Scan(&n)
	return n, storageError(err)
}

// Each gives each item, with its translations, newest first (the
// latest posted, then the highest id), until each returns an error.
func (a *NewsArchive) Each(each func(NewsItem) error) error {
	after, afterID := "9999", int64(0) // before every item
	for {
		rows, err := a.tx.Query(`SELECT id, title, content, news_url, redirect_to_source, posted_at FROM news
			WHERE posted_at < ?1 OR (posted_at = ?1 AND id < ?2) OR ?2 = 0
			ORDER BY posted_at DESC, id DESC LIMIT ?3`, after, afterID, newsArchivePage)
		if err != nil {
			return storageError(err)
		}
		var page []NewsItem
		var posted []string
		for rows.Next() {
			var n NewsItem
			var at string
			if err := rows.Scan(&n.ID, &n.Title, &n.Content, &n.URL, &n.RedirectToSource, &at); err != nil {
				rows.Close()
				return storageError(err)
			}
			n.PostedAt = parseTimestamp(at)
			page = append(page, n)
			posted = append(posted, at)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return storageError(err)
		}
		if len(page) == 0 {
			return nil
		}
		if err := a.translations(page); err != nil {
			return err
		}
		for _, n := range page {
			if err := each(n); err != nil {
				return err
			}
		}
		after, afterID = posted[len(posted)-1], page[len(page)-1].ID
	}
}

// translations reads the translations of a page of items.
func (a *NewsArchive) translations(page []NewsItem) error {
	index := map[int64]int{}
	ids := make([]string, len(page))
	for i, n := range page {
		index[n.ID] = i
		ids[i] = strconv.FormatInt(n.ID, 10)
	}
	rows, err := a.tx.Query(`SELECT news_id, lang, title, content FROM news_translations WHERE news_id IN (` + strings.Join(ids, ",") + `)`)
	if err != nil {
		return storageError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var lang string
		var t NewsText
		if err := rows.Scan(&id, &lang, &t.Title, &t.Content); err != nil {
			return storageError(err)
		}
		n := &page[index[id]]
		if n.Translations == nil {
			n.Translations = map[string]NewsText{}
		}
		n.Translations[lang] = t
	}
	return storageError(rows.Err())
}
