package generator

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"freightsite/data"
)

// The news archive: every item gets a page in every language
// (/news-feed/news/{id}), and the archive is split into pages of
// newsPageSize items numbered from the oldest (once there are more than
// /news-feed lists): /news-feed/page/1 holds the oldest 20, the highest-numbered page the newest (up to 20), each a
// folder with an index.html, so any static host serves them. A page keeps
// its number and its items as the archive grows: adding an item changes
// the newest page (and the one before it when a new page begins), not the
// others. /news-feed lists the newest 20 (the island of SPEC) and leads to
// the page of the older ones. They are many pages of few shapes. The
// server bundle renders each shape once per language with slots where an
// item's texts go (pages/server.tsx, newsShape), and the pages are filled
// here, with the escaping React uses, so the archive costs what writing
// its files costs and no runtime holds it; TestNewsPagesMatchAWholeRender
// holds them equal to whole renders.

// newsPageSize is how many items /news-feed and a page of the archive
// list (pages/screens/NewsFeed.tsx).
const newsPageSize = 20

// feedItems is how many of the newest items the RSS feed of each language
// lists.
const feedItems = 50

// propsContentLength caps the content of the items the feed's first page
// gives its island (the props in its HTML): enough for the preview, which
// is all the island shows until the API's answer replaces them, and little
// enough that a page of long items stays light.
const propsContentLength = 300

// NewsItem is one item of the archive: its English title and content, and
// those in other languages where it has them (Texts, by language code).
type NewsItem struct {
	ID               int64
	URL              string
	RedirectToSource bool
	PostedAt         time.Time
	Title, Content   string
	Texts            map[string]NewsText
}

// NewsText is an item's title and content in one language.
type NewsText struct {
	Title   string `json:"newsFeedTitle"`
	Content string `json:"content"`
}

// NewsArchive is the build's news, read as the build goes so that it
// never holds the whole archive: Count says how many items there are, and
// Each gives them one by one, newest first (latest PostedAt, then highest
// ID), stopping at the first error each returns.
type NewsArchive struct {
	Count func() (int, error)
	Each  func(each func(NewsItem) error) error
}

// seedArchive is the news of data/news.json in the source tree, which a
// database of the API starts with: the items get the ids the database
// gives them (1, 2, ... in the file's order).
func seedArchive(root string) (*NewsArchive, error) {
	raw, err := os.ReadFile(filepath.Join(root, "data", "news.json"))
	if err != nil {
		return nil, err
	}
	var seed []struct {
		NewsText
		URL              string              `json:"newsUrl"`
		RedirectToSource bool                `json:"redirectToSource"`
		PostedAt         time.Time           `json:"postedAt"`
		Translations     map[string]NewsText `json:"translations"`
	}
	if err := json.Unmarshal(raw, &seed); err != nil {
		return nil, fmt.Errorf("reading data/news.json: %w", err)
	}
	items := make([]NewsItem, len(seed))
	for i, s := range seed {
		items[i] = NewsItem{ID: int64(i + 1), URL: strings.TrimSpace(s.URL), RedirectToSource: s.RedirectToSource, PostedAt: s.PostedAt,
			Title: strings.TrimSpace(s.Title), Content: strings.TrimSpace(s.Content), Texts: map[string]NewsText{}}
		for lang, t := range s.Translations {
			items[i].Texts[lang] = NewsText{strings.TrimSpace(t.Title), strings.TrimSpace(t.Content)}
		}
	}
	slices.SortStableFunc(items, newestFirst)
	return &NewsArchive{
		Count: func() (int, error) { return len(items), nil },
		Each: func(each func(NewsItem) error) error {
			for _, it := range items {
				if err := each(it); err != nil {
					return err
				}
			}
			return nil
		},
	}, nil
}

// check says why the item cannot have its pages, naming it.
func (it NewsItem) check() error {
	switch {
	case it.ID <= 0:
		return fmt.Errorf("news item %q: id %d is not a positive whole number", it.Title, it.ID)
	case strings.TrimSpace(it.Title) == "" || strings.TrimSpace(it.Content) == "":
		return fmt.Errorf("news item %d: no title or no content", it.ID)
	case it.PostedAt.IsZero():
		return fmt.Errorf("news item %d: no time it was posted", it.ID)
	}
	for lang, t := range it.Texts {
		if (t.Title == "") != (t.Content == "") {
			return fmt.Errorf("news item %d: its %s text has a title or a content, not both", it.ID, lang)
		}
	}
	return nil
}

// newestFirst orders items as the archive gives them.
func newestFirst(a, b NewsItem) int {
	if c := b.PostedAt.Compare(a.PostedAt); c != 0 {
		return c
	}
	return int(b.ID - a.ID)
}

// newsEntry is an item as a page in one language shows it (the JSON of
// pages/lib/news.ts's NewsItem, in its key order).
type newsEntry struct {
	ID               int64
	Title, Content   string
	URL              string
	RedirectToSource bool
	PostedAt         string
	Lang             string
}

// entry is the item on a page in lang (def: the site's default language):
// its text in lang, or the English one where it has none.
func (it NewsItem) entry(lang, def string) newsEntry {
	e := newsEntry{ID: it.ID, Title: it.Title, Content: it.Content, URL: it.URL, RedirectToSource: it.RedirectToSource,
		PostedAt: it.PostedAt.UTC().Format(time.RFC3339Nano), Lang: def}
	if t, ok := it.Texts[lang]; ok && lang != def && t.Title != "" {
		e.Title, e.Content, e.Lang = t.Title, t.Content, lang
	}
	e.Title, e.Content, e.URL = strings.ToValidUTF8(e.Title, "\uFFFD"), strings.ToValidUTF8(e.Content, "\uFFFD"), strings.ToValidUTF8(e.URL, "\uFFFD")
	return e
}

// json is the entry as JSON.stringify writes it.
func (e newsEntry) json() string {
	var b strings.Builder
	b.WriteString(`{"id":`)
	b.WriteString(strconv.FormatInt(e.ID, 10))
	for _, f := range [][2]string{{"newsFeedTitle", e.Title}, {"content", e.Content}, {"newsUrl", e.URL}} {
		b.WriteString(`,"` + f[0] + `":`)
		jsStringify(&b, f[1])
	}
	b.WriteString(`,"redirectToSource":` + strconv.FormatBool(e.RedirectToSource) + `,"postedAt":`)
	jsStringify(&b, e.PostedAt)
	b.WriteString(`,"lang":`)
	jsStringify(&b, e.Lang)
	b.WriteString("}")
	return b.String()
}

// capped is the entry with its content cut to propsContentLength
// characters (see there).
func (e newsEntry) capped() newsEntry {
	if utf8.RuneCountInString(e.Content) > propsContentLength {
		e.Content = string([]rune(e.Content)[:propsContentLength]) + "…"
	}
	return e
}

// jsStringify writes s as JSON.stringify does: only the quote, the
// backslash and control characters escaped, lowercase hex.
func jsStringify(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// escapeText escapes text as React's escapeTextForBrowser does (text
// and attribute values alike).
func escapeText(s string) string {
	if !strings.ContainsAny(s, `"&'<>`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if e := htmlEntity(uint16(s[i])); e != "" {
			b.WriteString(e)
		} else {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// jsSpace reports whether JavaScript's \s (and String.prototype.trim)
// counts r as white space.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// descriptionLength and headlineLength are pages/screens/NewsFeed.tsx's
// and pages/lib/structuredData.ts's.
const (
	descriptionLength = 155
	headlineLength    = 110
	previewLength     = 50
)

// newsDescription is newsItemMeta's description: the content on one line,
// cut at a word before descriptionLength characters.
func newsDescription(content string) string {
	// content.replace(/\s+/g, ' ').trim()
	var b strings.Builder
	space := false
	for _, r := range content {
		if jsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	chars := []rune(b.String())
	if len(chars) <= descriptionLength {
		return string(chars)
	}
	cut := chars[:descriptionLength-1]
	// .replace(/\s+\S*$/, ''): the last white space and the word after it.
	end := len(cut)
	for end > 0 && !jsSpace(cut[end-1]) {
		end--
	}
	if end > 0 {
		for end > 0 && jsSpace(cut[end-1]) {
			end--
		}
		cut = cut[:end]
	}
	return string(cut) + "…"
}

// newsHeadline is newsArticle's headline: the title, cut to
// headlineLength characters.
func newsHeadline(title string) string {
	chars := []rune(title)
	if len(chars) > headlineLength {
		return string(chars[:headlineLength-1]) + "…"
	}
	return title
}

// newsPreview is NewsList's preview: the first previewLength characters,
// and whether that cut anything.
func newsPreview(content string) (string, bool) {
	chars := []rune(content)
	if len(chars) > previewLength {
		return string(chars[:previewLength]) + "…", true
	}
	return content, false
}

// newsParagraphs are NewsArticle's paragraphs: content.split(/\n\s*\n/)
// less those that are only white space.
func newsParagraphs(content string) []string {
	rs := []rune(content)
	var out []string
	start := 0
	add := func(p []rune) {
		for _, r := range p {
			if !jsSpace(r) {
				out = append(out, string(p))
				return
			}
		}
	}
	for i := 0; i < len(rs); i++ {
		if rs[i] != '\n' {
			continue
		}
		// \s* is greedy: the separator runs to the last line break of
		// the white space that follows.
		last := -1
		for j := i + 1; j < len(rs) && jsSpace(rs[j]); j++ {
			if rs[j] == '\n' {
				last = j
			}
		}
		if last < 0 {
			continue
		}
		add(rs[start:i])
		start = last + 1
		i = last
	}
	add(rs[start:])
	return out
}

// istOffset is India Standard Time's (pages/lib/news.ts).
const istOffset = 330 * time.Minute

// postedOn is pages/lib/news.ts's postedOn: the day in India, with the
// month's name in the page's language (months[0] is January).
func postedOn(iso string, months []string) string {
	t, err := time.Parse(time.RFC3339Nano, iso)
	if err != nil {
		return ""
	}
	t = t.UTC().Add(istOffset)
	return strconv.Itoa(t.Day()) + " " + months[t.Month()-1] + " " + strconv.Itoa(t.Year())
}

// langTexts are what the Go side takes of a language's texts, read once
// for each change of them (input.readTexts): for the news, the months'
// names (months[0] is January) and the RSS feed's title (channel, link)
// and description; the home page's title (tagline: the link preview's)
// and description; and the service worker's texts (offline, JSON).
type langTexts struct {
	months                     []string
	feed, channel, description string
	tagline, homeDescription   string
	offline                    json.RawMessage
}

// readLangTexts reads them from a language's texts (site: the site's name).
func readLangTexts(locales []byte, site string) (langTexts, error) {
	var texts struct {
		NewsFeed struct {
			Title       string            `json:"title"`
			Description string            `json:"description"`
			Feed        string            `json:"feed"`
			Month       map[string]string `json:"month"`
		} `json:"newsFeed"`
		Home struct {
			HeroTitle   string `json:"heroTitle"`
			Description string `json:"description"`
		} `json:"home"`
		Offline json.RawMessage `json:"offline"`
	}
	if err := json.Unmarshal(locales, &texts); err != nil {
		return langTexts{}, err
	}
	t := texts.NewsFeed
	n := langTexts{months: make([]string, 12), feed: strings.ReplaceAll(t.Feed, "{{name}}", site), channel: site + ": " + t.Title, description: t.Description,
		tagline: texts.Home.HeroTitle, homeDescription: texts.Home.Description, offline: texts.Offline}
	for i := range n.months {
		if n.months[i] = t.Month[strconv.Itoa(i+1)]; n.months[i] == "" {
			return langTexts{}, fmt.Errorf("no text newsFeed.month.%d", i+1)
		}
	}
	switch {
	case n.tagline == "":
		return langTexts{}, errors.New("no text home.heroTitle")
	case n.offline == nil:
		return langTexts{}, errors.New("no offline texts for the service worker")
	}
	return n, nil
}

// slotMark is slot(name) of pages/server.tsx.
func slotMark(name string) string { return "\uE000" + name + "\uE001" }

// shapeText is a text with slots: literal parts and slot names in turn
// (parts[0] literal, parts[1] a slot, ...).
type shapeText []string

func parseShape(s string) shapeText {
	var parts shapeText
	for {
		i := strings.Index(s, "\uE000")
		if i < 0 {
			return append(parts, s)
		}
		j := strings.Index(s[i:], "\uE001")
		if j < 0 {
			return append(parts, s)
		}
		parts = append(parts, s[:i], s[i+len("\uE000"):i+j])
		s = s[i+j+len("\uE001"):]
	}
}

// fill writes the text with each slot's value.
func (t shapeText) fill(b *strings.Builder, value func(slot string) string) {
	for i, part := range t {
		if i%2 == 0 {
			b.WriteString(part)
		} else {
			b.WriteString(value(part))
		}
	}
}

func (t shapeText) String(value func(slot string) string) string {
	var b strings.Builder
	t.fill(&b, value)
	return b.String()
}

// newsShape is a shape's page with its texts parsed.
type newsShape struct {
	page        page
	body        shapeText
	title       shapeText
	description shapeText
	data        shapeText // the structured data, as JSON (share.go writes it)
}

func newShape(p page) (*newsShape, error) {
	body := p.Body
	// An island's props are one slot, quotes and all; an item's
	// paragraphs are one slot, paragraph elements and all.
	for _, name := range []string{"item.json", "items.json"} {
		body = strings.ReplaceAll(body, "&quot;"+slotMark(name)+"&quot;", slotMark(name))
	}
	body = strings.ReplaceAll(body, "<p>"+slotMark("content")+"</p>", slotMark("paragraphs"))
	s := &newsShape{page: p, body: parseShape(body), title: parseShape(p.Title), description: parseShape(p.Description)}
	if len(p.StructuredData) > 0 {
		raw, err := json.Marshal(p.StructuredData)
		if err != nil {
			return nil, err
		}
		s.data = parseShape(string(raw))
	}
	return s, nil
}

// jsonText is s as the inside of a JSON string, as encoding/json writes it.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// fill is the shape's page with the slots' values: text gives a slot's
// text in the body (escaped as React escapes it) and the title; html the
// body's slots whose value is HTML already; meta a slot's text in the
// description and the structured data (JSON-escaped there), where an
// item's title stands for its headline and its content for its
// description.
func (s *newsShape) fill(text func(slot string) string, html func(slot string) (string, bool), meta func(slot string) string) (page, error) {
	p := s.page
	p.Body = s.body.String(func(slot string) string {
		if v, ok := html(slot); ok {
			return v
		}
		return escapeText(text(slot))
	})
	p.Title = s.title.String(text)
	p.Description = s.description.String(meta)
	if s.data != nil {
		var data []any
		if err := json.Unmarshal([]byte(s.data.String(func(slot string) string { return jsonText(meta(slot)) })), &data); err != nil {
			return page{}, fmt.Errorf("filling the structured data: %w", err)
		}
		p.StructuredData = data
	}
	return p, nil
}

// newsShapes renders the shapes a build needs, each once, through the
// pipeline (its render cache, its runtimes).
type newsShapes struct {
	p      *pipeline
	mu     sync.Mutex
	shapes map[string]*newsShape // by language and shape path
	keys   map[string]string     // their render cache keys
}

func newNewsShapes(p *pipeline) *newsShapes {
	return &newsShapes{p: p, shapes: map[string]*newsShape{}, keys: map[string]string{}}
}

// get is the shape of path in lang, rendered (or taken from the cache)
// the first time it is asked for, with its render cache key.
func (n *newsShapes) get(lang, path string) (*newsShape, string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	id := lang + " " + path
	if s, ok := n.shapes[id]; ok {
		return s, n.keys[id], nil
	}
	if err := n.renderLocked([]*job{n.job(lang, path)}); err != nil {
		return nil, "", err
	}
	return n.shapes[id], n.keys[id], nil
}

func (n *newsShapes) job(lang, path string) *job {
	return &job{route: path, lang: lang, year: n.p.in.opts.Year, key: n.p.inputs.key(path, lang)}
}

// renderLocked renders jobs, shapes, at once and keeps them.
func (n *newsShapes) renderLocked(jobs []*job) error {
	if _, err := n.p.render(jobs, nil); err != nil {
		return err
	}
	for _, j := range jobs {
		s, err := newShape(j.page)
		if err != nil {
			return fmt.Errorf("reading the news shape %s in %s: %w", j.route, j.lang, err)
		}
		id := j.lang + " " + j.route
		n.shapes[id], n.keys[id] = s, j.key
	}
	return nil
}

// prepare renders at once, on every runtime, the shapes a build of an
// archive of count items needs, rather than each when first asked for.
func (n *newsShapes) prepare(count int) error {
	pages := feedPages(count)
	paths := []string{feedShape(0, pages, min(count, newsPageSize))}
	for _, number := range []int{1, 2, pages - 1, pages} {
		if path := feedShape(number, pages, archivePageItems(number, pages, count)); number >= 1 && number <= pages && !slices.Contains(paths, path) {
			paths = append(paths, path)
		}
	}
	for _, marked := range []bool{false, true} {
		for _, source := range []bool{false, true} {
			paths = append(paths, "news:item?marked="+flag(marked)+"&source="+flag(source)+"&newer=1&older=1") // an archive's ends: when asked for
			for _, even := range []bool{false, true} {
				for _, v := range [][2]bool{{false, true}, {true, true}, {false, false}} { // long, island
					paths = append(paths, "news:li?even="+flag(even)+"&source="+flag(source)+"&marked="+flag(marked)+"&long="+flag(v[0])+"&island="+flag(v[1]))
				}
			}
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	var jobs []*job
	for i, l := range n.p.in.site.Languages {
		for _, path := range paths {
			if i == 0 && strings.Contains(path, "marked=1") {
				continue // no item is in another language on the default language's pages
			}
			if _, ok := n.shapes[l.Code+" "+path]; !ok && !slices.ContainsFunc(jobs, func(j *job) bool { return j.lang == l.Code && j.route == path }) {
				jobs = append(jobs, n.job(l.Code, path))
			}
		}
	}
	return n.renderLocked(jobs)
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// itemShape is the shape of the page in lang of item e, posted between
// newer and older (nil at either end of the archive).
func itemShape(lang string, e newsEntry, newer, older *newsEntry) string {
	return "news:item?marked=" + flag(e.Lang != lang) + "&source=" + flag(e.URL != "") + "&newer=" + flag(newer != nil) + "&older=" + flag(older != nil)
}

// itemPage is an item's page in lang, linking the items posted just
// after (newer) and before (older) it, and the key of what it was made of.
func (n *newsShapes) itemPage(lang string, e newsEntry, newer, older *newsEntry) (page, string, error) {
	s, key, err := n.get(lang, itemShape(lang, e, newer, older))
	if err != nil {
		return page{}, "", err
	}
	description := newsDescription(e.Content)
	htmlLang := func(code string) string {
		for _, l := range n.p.in.site.Languages {
			if l.Code == code {
				return l.HTMLLang
			}
		}
		return code
	}
	neighbour := func(x *newsEntry, field string) string {
		switch field {
		case "id":
			return strconv.FormatInt(x.ID, 10)
		case "title":
			return x.Title
		}
		return htmlLang(x.Lang)
	}
	text := func(slot string) string {
		switch slot {
		case "id":
			return strconv.FormatInt(e.ID, 10)
		case "title":
			return e.Title
		case "content":
			return e.Content
		case "url":
			return e.URL
		case "posted":
			return e.PostedAt
		case "date":
			return postedOn(e.PostedAt, n.p.in.texts[lang].months)
		}
		if name, field, ok := strings.Cut(slot, "."); ok && name == "newer" && newer != nil {
			return neighbour(newer, field)
		} else if ok && name == "older" && older != nil {
			return neighbour(older, field)
		}
		return slotMark(slot)
	}
	pg, err := s.fill(text, func(slot string) (string, bool) {
		switch slot {
		case "paragraphs":
			var b strings.Builder
			for _, p := range newsParagraphs(e.Content) {
				b.WriteString("<p>" + escapeText(p) + "</p>")
			}
			return b.String(), true
		case "item.json":
			return escapeText(e.json()), true
		}
		return "", false
	}, func(slot string) string {
		switch slot {
		case "title":
			return newsHeadline(e.Title)
		case "content":
			return description
		}
		return text(slot)
	})
	if err != nil {
		return page{}, "", fmt.Errorf("news item %d in %s: %w", e.ID, lang, err)
	}
	keys := []string{key, e.json()}
	for _, x := range []*newsEntry{newer, older} {
		if x != nil {
			keys = append(keys, x.json())
		} else {
			keys = append(keys, "")
		}
	}
	return pg, hash([]byte(strings.Join(keys, "\x00"))), nil
}

// feedPage is page number of the archive's pages in lang (0: /news-feed),
// listing entries, pages being how many the archive has.
func (n *newsShapes) feedPage(lang string, number, pages int, entries []newsEntry) (page, string, error) {
	later := number > 0
	s, key, err := n.get(lang, feedShape(number, pages, len(entries)))
	if err != nil {
		return page{}, "", err
	}
	var items strings.Builder
	keys := []string{key, strconv.Itoa(number)}
	if !later {
		keys = append(keys, strconv.Itoa(pages)) // it leads to page pages-1
	}
	for i, e := range entries {
		preview, long := newsPreview(e.Content)
		li := "news:li?even=" + flag(i%2 == 0) + "&source=" + flag(e.RedirectToSource) + "&marked=" + flag(e.Lang != lang) + "&long=" + flag(long && !later) + "&island=" + flag(!later)
		ls, lkey, err := n.get(lang, li)
		if err != nil {
			return page{}, "", err
		}
		date := postedOn(e.PostedAt, n.p.in.texts[lang].months)
		ls.body.fill(&items, func(slot string) string {
			switch slot {
			case "id":
				return strconv.FormatInt(e.ID, 10)
			case "title":
				return escapeText(e.Title)
			case "url":
				return escapeText(e.URL)
			case "posted":
				return escapeText(e.PostedAt)
			case "preview":
				return escapeText(preview)
			case "date":
				return escapeText(date)
			}
			return slotMark(slot)
		})
		keys = append(keys, lkey, e.json())
	}
	var props strings.Builder
	if !later {
		props.WriteByte('[')
		for i, e := range entries {
			if i > 0 {
				props.WriteByte(',')
			}
			props.WriteString(e.capped().json())
		}
		props.WriteByte(']')
	}
	text := func(slot string) string {
		switch slot {
		case "page":
			return strconv.Itoa(number)
		case "newer":
			return strconv.Itoa(number + 1)
		case "older":
			if !later {
				return strconv.Itoa(pages - 1)
			}
			return strconv.Itoa(number - 1)
		}
		return slotMark(slot)
	}
	pg, err := s.fill(text, func(slot string) (string, bool) {
		switch slot {
		case "items":
			return items.String(), true
		case "items.json":
			return escapeText(props.String()), true
		}
		return "", false
	}, text)
	if err != nil {
		if !later {
			return page{}, "", fmt.Errorf("the news feed in %s: %w", lang, err)
		}
		return page{}, "", fmt.Errorf("page %d of the news archive in %s: %w", number, lang, err)
	}
	return pg, hash([]byte(strings.Join(keys, "\x00"))), nil
}

// feedShape is the shape of page number of the archive's pages (0:
// /news-feed) listing items, pages being how many the archive has:
// /news-feed leads to page pages-1 (the newest page's items are on it), a
// page of the archive to the one after it (newer; /news-feed after the
// newest) and the one before it (older).
func feedShape(number, pages, items int) string {
	if number == 0 {
		return "news:feed?count=" + strconv.Itoa(items) + "&later=0&newest=0&older=" + flag(pages > 1)
	}
	return "news:feed?count=" + strconv.Itoa(items) + "&later=1&newest=" + flag(number == pages) + "&older=" + flag(number > 1)
}

// feedRoute is the news feed's route, and archiveRoute that of page
// number of the archive.
const feedRoute = "/news-feed"

func archiveRoute(number int) string { return "/news-feed/page/" + strconv.Itoa(number) }

// itemRoute is the route of an item's page.
func itemRoute(id int64) string { return "/news-feed/news/" + strconv.FormatInt(id, 10) }

// feedPages is how many pages the archive of count items has: none when
// /news-feed lists them all (a page 1 would be the same list again).
func feedPages(count int) int {
	if count <= newsPageSize {
		return 0
	}
	return (count + newsPageSize - 1) / newsPageSize
}

// archivePageItems is how many items page number of the pages of an
// archive of count items lists: the newest page what is left over.
func archivePageItems(number, pages, count int) int {
	if number == pages {
		return count - (pages-1)*newsPageSize
	}
	return newsPageSize
}

// newsJob is one page of the news archive, made when make is called: the
// page, filled from its shapes, and the key of what it was made of.
type newsJob struct {
	route, lang string
	make        func() (page, string, error)
}

// walkNews reads the archive once and gives out each of its pages in
// every language: an item's pages as the item comes, /news-feed once the
// newest newsPageSize items have come, a page of the archive once its
// items have (newest first: the newest page, which holds what is left
// over, comes first). newest gets each language's newest feedItems
// entries (the RSS feed), and the routes of the archive's pages are
// returned (the sitemap): /news-feed, the pages from the first, the items.
func (p *pipeline) walkNews(shapes *newsShapes, out func(newsJob) error, newest func(lang string, entries []newsEntry) error) ([]string, error) {
	langs := p.in.site.Languages
	def := langs[0].Code
	pages := feedPages(p.in.count)
	chunk, latest := map[string][]newsEntry{}, map[string][]newsEntry{}
	var items []string
	ids := map[int64]bool{}
	number, seen := pages, 0
	itemPages := neighbourWalk{out: func(lang string, e, newer, older *newsEntry) error {
		return out(newsJob{route: itemRoute(e.ID), lang: lang, make: func() (page, string, error) { return shapes.itemPage(lang, *e, newer, older) }})
	}}
	feed := func() error {
		for _, l := range langs {
			entries := latest[l.Code][:min(len(latest[l.Code]), newsPageSize)]
			if err := out(newsJob{route: feedRoute, lang: l.Code, make: func() (page, string, error) { return shapes.feedPage(l.Code, 0, pages, entries) }}); err != nil {
				return err
			}
		}
		return nil
	}
	flush := func() error {
		for _, l := range langs {
			entries, n := chunk[l.Code], number
			if err := out(newsJob{route: archiveRoute(n), lang: l.Code, make: func() (page, string, error) { return shapes.feedPage(l.Code, n, pages, entries) }}); err != nil {
				return err
			}
		}
		chunk = map[string][]newsEntry{}
		number--
		return nil
	}
	err := p.in.archive.Each(func(it NewsItem) error {
		if seen++; seen > p.in.count {
			return fmt.Errorf("the archive gave more than the %d items it counted: the news changed during the build; build again", p.in.count)
		}
		if err := it.check(); err != nil {
			return err
		}
		if ids[it.ID] {
			return fmt.Errorf("news item %d: the archive gives it twice", it.ID)
		}
		ids[it.ID] = true
		items = append(items, itemRoute(it.ID))
		for _, l := range langs {
			e := it.entry(l.Code, def)
			if err := itemPages.next(l.Code, &e); err != nil {
				return err
			}
			chunk[l.Code] = append(chunk[l.Code], e)
			if len(latest[l.Code]) < feedItems {
				latest[l.Code] = append(latest[l.Code], e)
			}
		}
		if seen == newsPageSize {
			if err := feed(); err != nil {
				return err
			}
		}
		if len(chunk[def]) == archivePageItems(number, pages, p.in.count) {
			return flush()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if seen != p.in.count {
		return nil, fmt.Errorf("the archive gave %d of the %d items it counted: the news changed during the build; build again", seen, p.in.count)
	}
	for _, l := range langs {
		if err := itemPages.next(l.Code, nil); err != nil {
			return nil, err
		}
	}
	if seen < newsPageSize {
		if err := feed(); err != nil {
			return nil, err
		}
	}
	for _, l := range langs {
		if err := newest(l.Code, latest[l.Code]); err != nil {
			return nil, err
		}
	}
	routes := make([]string, 0, 1+pages+len(items))
	routes = append(routes, feedRoute)
	for n := 1; n <= pages; n++ {
		routes = append(routes, archiveRoute(n))
	}
	return append(routes, items...), nil
}

// neighbourWalk gives out each item's page once the item after it (the
// older one) has come, with the item before it (the newer one): a page
// links both. next takes a language's next entry, nil at the end.
type neighbourWalk struct {
	out            func(lang string, e, newer, older *newsEntry) error
	newer, pending map[string]*newsEntry
}

func (w *neighbourWalk) next(lang string, e *newsEntry) error {
	if w.pending == nil {
		w.newer, w.pending = map[string]*newsEntry{}, map[string]*newsEntry{}
	}
	if p := w.pending[lang]; p != nil {
		if err := w.out(lang, p, w.newer[lang], e); err != nil {
			return err
		}
		w.newer[lang] = p
	}
	w.pending[lang] = e
	return nil
}

// rssFile is each language's RSS feed of the news, beside its feed.
const rssFile = "news-feed/feed.xml"

// rssFeed is the RSS 2.0 feed of language l: its newest items, each
// linking its own page.
func rssFeed(base, title, description string, l data.Language, entries []newsEntry) []byte {
	var b strings.Builder
	feedURL := base + localePath(l.Prefix, "/"+rssFile)
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">` + "\n<channel>\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<link>%s</link>\n<description>%s</description>\n<language>%s</language>\n", xmlEscape(title), xmlEscape(base+localePath(l.Prefix, "/news-feed")), xmlEscape(description), xmlEscape(l.HTMLLang))
	fmt.Fprintf(&b, "<atom:link href=\"%s\" rel=\"self\" type=\"application/rss+xml\"/>\n", xmlEscape(feedURL))
	for _, e := range entries {
		link := base + localePath(l.Prefix, itemRoute(e.ID))
		posted, _ := time.Parse(time.RFC3339Nano, e.PostedAt)
		fmt.Fprintf(&b, "<item>\n<title>%s</title>\n<link>%s</link>\n<guid isPermaLink=\"true\">%s</guid>\n<pubDate>%s</pubDate>\n<description>%s</description>\n</item>\n",
			xmlEscape(e.Title), xmlEscape(link), xmlEscape(link), posted.UTC().Format(time.RFC1123Z), xmlEscape(newsDescription(e.Content)))
	}
	b.WriteString("</channel>\n</rss>\n")
	return []byte(b.String())
}

// rss is the RSS feed of language code listing entries, and its file.
func (p *pipeline) rss(code string, entries []newsEntry) (string, []byte) {
	l := languageOf(p.in.site, code)
	t := p.in.texts[code]
	return path.Join(strings.TrimPrefix(l.Prefix, "/"), rssFile), rssFeed(p.in.base, t.channel, t.description, l, entries)
}

// newsWritten is what writeNews wrote.
type newsWritten struct {
	routes []string     // of the archive's pages (walkNews)
	pages  []PageWeight // their weights, still to be weighed
	filled []string     // the URL paths of the pages whose inputs changed since the last build
}

// writeNews fills every page of the news archive and hands it to out as
// it goes, so the build holds a few pages at a time and never the
// archive. The feed's first page of each language and the RSS feeds go
// through keep instead, with the site's other files (the service worker
// keeps them for offline use).
func (p *pipeline) writeNews(share shared, out *stream, keep func(name string, content []byte) error) (*newsWritten, error) {
	shapes := newNewsShapes(p)
	if err := shapes.prepare(p.in.count); err != nil {
		return nil, err
	}
	written := &newsWritten{}
	routes, err := p.walkNews(shapes, func(j newsJob) error {
		pg, key, err := j.make()
		if err != nil {
			return err
		}
		lang := languageOf(p.in.site, j.lang)
		if !p.cache.filled(key) {
			written.filled = append(written.filled, localePath(lang.Prefix, j.route))
		}
		html, weight, err := p.document(share, &job{route: j.route, lang: j.lang, year: p.in.opts.Year, page: pg})
		if err != nil {
			return err
		}
		written.pages = append(written.pages, weight)
		if j.route == feedRoute {
			return keep(weight.File, []byte(html))
		}
		return out.put(weight.File, []byte(html))
	}, func(code string, entries []newsEntry) error {
		return keep(p.rss(code, entries))
	})
	if err != nil {
		return nil, err
	}
	written.routes = routes
	return written, nil
}
