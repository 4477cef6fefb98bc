package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"freightsite/data"
	"freightsite/internal/plaintext"
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
// (data/site.json, which no setting changes) other than the default one
// (English, which the item itself is in).
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

// ShownNews is a news item as a page in one language shows it: the
// translation's title and content where the item has one, the English
// ones otherwise, and the language they are in.
type ShownNews struct {
	ID               int64
	Title            string
	Content          string
	URL              string
	RedirectToSource bool
	PostedAt         time.Time
	Lang             string // the language of title and content
}

// newsColumns select an item shown in the language ?lang (the query's
// first argument).
const newsColumns = `SELECT n.id, COALESCE(t.title, n.title), COALESCE(t.content, n.content), n.news_url, n.redirect_to_source, n.posted_at, COALESCE(t.lang, 'en')
	FROM news n LEFT JOIN news_translations t ON t.news_id = n.id AND t.lang = ?1`

func scanNews(row interface{ Scan(...any) error }) (ShownNews, error) {
	var n ShownNews
	var posted string
	err := row.Scan(&n.ID, &n.Title, &n.Content, &n.URL, &n.RedirectToSource, &posted, &n.Lang)
	n.PostedAt = parseTimestamp(posted)
	return n, err
}

// ListNews returns items newest first, shown in lang (a language code of
// the site; the default language or "" for English); search (if not
// empty) must appear in the title or the content shown, case-insensitively
// for ASCII letters.
func (s *Store) ListNews(ctx context.Context, search, lang string, limit int) ([]ShownNews, error) {
	return s.ListNewsAfter(ctx, search, lang, time.Time{}, 0, limit)
}

// ListNewsAfter is ListNews from the item after the one posted at
// posted with id afterID on (from the newest for afterID 0).
func (s *Store) ListNewsAfter(ctx context.Context, search, lang string, posted time.Time, afterID int64, limit int) ([]ShownNews, error) {
	pattern := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(search) + "%"
	rows, err := s.read.QueryContext(ctx, newsColumns+`
		WHERE (lower(COALESCE(t.title, n.title)) LIKE lower(?2) ESCAPE '\' OR lower(COALESCE(t.content, n.content)) LIKE lower(?2) ESCAPE '\')
		AND (?5 = 0 OR n.posted_at < ?4 OR (n.posted_at = ?4 AND n.id < ?5))
		ORDER BY n.posted_at DESC, n.id DESC LIMIT ?3`, lang, pattern, limit, timestamp(posted), afterID)
	if err != nil {
		return nil, s.fault(err)
	}
	defer rows.Close()
	var out []ShownNews
	for rows.Next() {
		n, err := scanNews(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, s.fault(rows.Err())
}

// ShowNews finds item id shown in lang.
func (s *Store) ShowNews(ctx context.Context, id int64, lang string) (ShownNews, bool, error) {
	n, err := scanNews(s.read.QueryRowContext(ctx, newsColumns+` WHERE n.id = ?2`, lang, id))
	if errors.Is(err, sql.ErrNoRows) {
		return n, false, nil
	}
	return n, err == nil, s.fault(err)
}

// NewsExists says whether there is a news item with this id (the site's
// server answers 404 for the page of any other).
func (s *Store) NewsExists(ctx context.Context, id int64) (bool, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM news WHERE id = ?`, id).Scan(&n)
	return n > 0, s.fault(err)
}

// NewsVersion counts the changes to the news and their translations,
// whichever process made them (triggers count them): an answer made from
// the news holds while it stays the same.
func (s *Store) NewsVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.newsVersion.QueryRowContext(ctx).Scan(&v)
	return v, s.fault(err)
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
