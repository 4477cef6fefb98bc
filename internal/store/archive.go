package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// What the build reads from a database, without changing it: the whole
// news archive, and the counts the home page shows.

// NewsArchive reads every news item of a database, without changing it,
// for `freightsite build`: the count and then the items, newest first, in
// one read transaction, so both see the same news even while a server
// adds some. It reads a page of items at a time and holds no more.
type NewsArchive struct {
	db *sql.DB
	tx *sql.Tx
}

// NewsArchivePage is how many items the archive reads at a time.
const NewsArchivePage = 500

// OpenNewsArchive opens the database at path (a SQLite file or a
// PostgreSQL URL) read-only for Count and Each.
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
			ORDER BY posted_at DESC, id DESC LIMIT ?3`, after, afterID, NewsArchivePage)
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

// Counts are the numbers anyone may see (GET /public_totals.json).
type Counts struct {
	Members   int // registered member accounts
	NewsItems int
}

// Counts reads the counts.
func (s *Store) Counts(ctx context.Context) (Counts, error) {
	c, err := counts(ctx, s.read)
	return c, s.fault(err)
}

func counts(ctx context.Context, db *sql.DB) (Counts, error) {
	var c Counts
	err := db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM news)`).Scan(&c.Members, &c.NewsItems)
	return c, err
}

// ReadCounts reads the counts from the database at path (a SQLite file or
// a PostgreSQL URL) without writing to it, for the build; a database no
// server has created yet is ErrNotCreated.
func ReadCounts(ctx context.Context, path string) (Counts, error) {
	db, err := openReadOnly(path)
	if err != nil {
		return Counts{}, fmt.Errorf("reading the public totals: %w", err)
	}
	defer db.Close()
	c, err := counts(ctx, db)
	if err != nil {
		return Counts{}, fmt.Errorf("reading the public totals of %s: %w", DisplayName(path), err)
	}
	return c, nil
}
