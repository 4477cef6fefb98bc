package formapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"freightsite/internal/store"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// newsCache keeps the answers of GET /api/news in memory, encoded and
// compressed, so a busy feed is served from memory instead of reading,
// encoding and compressing 200 items a request. An answer is used while
// the news table is unchanged (news_version, which triggers bump on every
// change, by this process or another such as `freightsite news add`) and
// until the first of its timeAgo texts would read differently.
type newsCache struct {
	store   *store.Store
	mu      sync.Mutex
	version int64     // news_version the entries were made at
	checked time.Time // when news_version was last read
	commits int64     // the store's commit count then
	entries map[string]cachedNews
}

type cachedNews struct {
	json, gzip []byte
	until      time.Time // when a timeAgo text in it changes
	link       string    // the Link header naming the page after it, or ""
}

// maxCachedSearches bounds the memory the searches people type can take:
// past it, the cache starts again empty.
const maxCachedSearches = 256

// versionReadEvery is how often news_version is read under load: a busy
// feed does one query a millisecond rather than one a request. A change
// made through this process's store shows at once (news_version is read
// again after any commit), one made by another process in answers to
// requests made a millisecond after it.
var versionReadEvery = time.Millisecond // a variable for tests only

func newNewsCache(s *store.Store) *newsCache {
	return &newsCache{store: s, entries: map[string]cachedNews{}}
}

// answer returns the list for search (already trimmed) in lang at time now.
func (c *newsCache) answer(ctx context.Context, search, lang string, now time.Time) (cachedNews, error) {
	key := lang + "\x00" + search
	commits := c.store.Commits()
	c.mu.Lock()
	fresh := time.Since(c.checked) < versionReadEvery && commits == c.commits
	c.mu.Unlock()
	if !fresh {
		version, err := c.store.NewsVersion(ctx)
		if err != nil {
			return cachedNews{}, err
		}
		c.mu.Lock()
		// The triggers only count up: an older read that lost the race
		// to a newer one changes nothing.
		if version > c.version {
			c.version, c.entries = version, map[string]cachedNews{}
		}
		c.checked, c.commits = time.Now(), commits
		c.mu.Unlock()
	}
	c.mu.Lock()
	version := c.version
	cached, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(cached.until) {
		return cached, nil
	}

	items, next, until, err := newsList(ctx, c.store, search, lang, newsCursor{}, newsListLimit, now)
	if err != nil {
		return cachedNews{}, err
	}
	body, err := json.Marshal(items)
	if err != nil {
		return cachedNews{}, err
	}
	body = append(body, '\n')
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(body)
	zw.Close()
	cached = cachedNews{json: body, gzip: gz.Bytes(), until: until}
	if next.id != 0 {
		q := url.Values{"before": {next.String()}}
		if lang != "" {
			q.Set("lang", lang)
		}
		if search != "" {
			q.Set("search", search)
		}
		cached.link = "</api/news?" + q.Encode() + `>; rel="next"`
	}

	c.mu.Lock()
	// Entries made from an older version are not kept: the list read may
	// predate a change committed meanwhile.
	if c.version == version {
		if len(c.entries) >= maxCachedSearches {
			c.entries = map[string]cachedNews{}
		}
		c.entries[key] = cached
	}
	c.mu.Unlock()
	return cached, nil
}

// write sends the answer, compressed when the client accepts gzip.
func (c cachedNews) write(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Add("Vary", "Accept-Encoding")
	if c.link != "" {
		h.Set("Link", c.link)
	}
	body := c.json
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = c.gzip
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// acceptsGzip reports whether Accept-Encoding lists gzip (or *) with a
// quality above zero.
func acceptsGzip(r *http.Request) bool {
	for part := range strings.SplitSeq(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(part, ";")
		if coding = strings.ToLower(strings.TrimSpace(coding)); coding != "gzip" && coding != "*" {
			continue
		}
		q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		if !ok {
			return true
		}
		f, err := strconv.ParseFloat(q, 64)
		return err == nil && f > 0
	}
	return false
}
