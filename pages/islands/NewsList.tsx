import { useEffect, useId, useState } from 'react';
import { request } from '../lib/api';
import { useT } from '../lib/i18n';
import { postedOn, textLang, type NewsItem } from '../lib/news';
import { language, localePath } from '../lib/site';

// SPEC §9: the preview shows the first 50 characters of the content.
const previewLength = 50;

// newsURL is the list in the page's language (the search, if any, matches
// the text the page shows).
const newsURL = (lang: string, search = '') => `/api/news?lang=${lang}${search ? `&search=${encodeURIComponent(search)}` : ''}`;

// The unfiltered list is the page's main content: the browser asks for it
// as soon as this code runs, while React is still loading, instead of after
// hydration. (The server render has no document and asks for nothing.)
let firstList: Promise<NewsItem[]> | null = typeof document === 'undefined' ? null : request<NewsItem[]>(newsURL(document.documentElement.dataset.lang ?? 'en'));
firstList?.catch(() => undefined); // handled where it is used

// The list shows the build's items until the API's answer replaces them
// (then with timeAgo), or, without them, loads. next is the cursor of the
// items after those shown (null: none), which 'More news' asks for.
type State = { kind: 'loading' } | { kind: 'snapshot'; items: NewsItem[] } | { kind: 'shown'; items: NewsItem[]; next: string | null } | { kind: 'failed' };

// listLimit is how many items GET /api/news answers at most; a full answer
// may have more after it.
const listLimit = 200;

// cursorOf is GET /api/news's cursor of an item: its postedAt in
// milliseconds, a dot and its id.
const cursorOf = (item: NewsItem) => `${Date.parse(item.postedAt)}.${item.id}`;

// Preview is what an item shows of its content while collapsed: text, the
// first 50 characters, and long, whether that cut anything.
export interface Preview {
  text: string;
  long: boolean;
}

export function preview(content: string): Preview {
  const chars = [...content];
  return chars.length > previewLength ? { text: chars.slice(0, previewLength).join('') + '…', long: true } : { text: content, long: false };
}

// NewsList is the news feed of SPEC §2: a search box that queries on each
// keystroke (a newer query cancels the one in flight), items with a
// 50-character preview that 'Read More' expands, alternate rows styled,
// links to the source (new tab) or to the item's page, and when each was
// posted. Items are in the page's language where they have it, in English
// marked as such otherwise. items is the build's snapshot (null: none),
// which the server renders so the feed reads without JavaScript.
export default function NewsList({ items: snapshot }: { items: NewsItem[] | null }) {
  const { t, lang } = useT();
  const searchId = useId();
  const [search, setSearch] = useState('');
  const [state, setState] = useState<State>(snapshot ? { kind: 'snapshot', items: snapshot } : { kind: 'loading' });
  // readMore (SPEC §4) per item: false until its 'Read More' is pressed.
  // SPEC's second flag, isReadMore, "starts true and limits text height":
  // it is always the opposite of readMore, so it is derived, not stored,
  // as the class that caps the preview's height.
  const [readMore, setReadMore] = useState<Record<number, boolean>>({});

  useEffect(() => {
    const abort = new AbortController();
    const query = search.trim();
    const list = !query && firstList ? firstList : request<NewsItem[]>(newsURL(lang, query), { signal: abort.signal });
    firstList = null;
    list
      .then((items) => {
        // A response that arrives after a newer keystroke is stale.
        if (!abort.signal.aborted) setState({ kind: 'shown', items, next: items.length >= listLimit ? cursorOf(items[items.length - 1]) : null });
      })
      .catch(() => {
        // The snapshot stays when the refresh fails; a search that fails
        // says so.
        if (!abort.signal.aborted) setState((s) => (s.kind === 'snapshot' && !query ? s : { kind: 'failed' }));
      });
    return () => abort.abort();
  }, [search, lang]);

  // More news: the page after those shown, for the same search.
  const more = (shown: { items: NewsItem[]; next: string | null }) => {
    if (!shown.next) return;
    request<{ items: NewsItem[]; next: string | null }>(`${newsURL(lang, search.trim())}&before=${encodeURIComponent(shown.next)}`)
      .then((page) => setState((s) => (s.kind === 'shown' && s.next === shown.next ? { kind: 'shown', items: [...s.items, ...page.items], next: page.next } : s)))
      .catch(() => setState({ kind: 'failed' }));
  };

  const items = state.kind === 'snapshot' || state.kind === 'shown' ? state.items : null;
  return (
    <div className="news-feed">
      <div className="field news-search">
        <label htmlFor={searchId}>{t('newsFeed.search')}</label>
        <input id={searchId} type="search" placeholder={t('newsFeed.searchPlaceholder')} value={search} maxLength={100} onChange={(e) => setSearch(e.target.value)} />
      </div>
      <p className="news-status" role="status">
        {state.kind === 'loading' && t('newsFeed.loading')}
        {items && (items.length ? t('newsFeed.count', { count: items.length }) : t('newsFeed.empty'))}
      </p>
      {state.kind === 'failed' && (
        <p className="notice bad" role="alert">
          {t('newsFeed.failed')}
        </p>
      )}
      {items && items.length > 0 && (
        <ul className="news-list">
          {items.map((item, i) => (
            <NewsListItem
              key={item.id}
              item={item}
              even={i % 2 === 0}
              expanded={readMore[item.id] ?? false}
              onToggle={() => setReadMore((r) => ({ ...r, [item.id]: !(r[item.id] ?? false) }))}
              preview={preview(item.content)}
              posted={state.kind === 'shown' && item.timeAgo !== undefined ? item.timeAgo : postedOn(item.postedAt, t)}
            />
          ))}
        </ul>
      )}
      {state.kind === 'shown' && state.next && (
        <button type="button" className="link-button news-more" onClick={() => more(state)}>
          {t('newsFeed.more')}
        </button>
      )}
    </div>
  );
}

interface ItemProps {
  item: NewsItem;
  // even marks SPEC's even-indexed rows.
  even: boolean;
  preview: Preview;
  // expanded is SPEC's readMore; onToggle presses 'Read More' (or 'Read
  // Less'). Without it the item is static HTML (the feed's later pages):
  // no button, the preview only, the title links to the whole item.
  expanded?: boolean;
  onToggle?: () => void;
  // posted says when: the API's timeAgo, or the day it was posted.
  posted: string;
}

// NewsListItem is one item of the news feed. The generator renders it on
// its own for each kind of item (pages/server.tsx, newsShapes) and fills
// in each item's texts, so it depends on its props and the translator
// only.
export function NewsListItem({ item, even, preview, expanded = false, onToggle, posted }: ItemProps) {
  const { t, lang } = useT();
  const long = onToggle !== undefined && preview.long;
  const itemLang = textLang(item, lang);
  return (
    <li className={even ? 'news-item even' : 'news-item'}>
      <h2 className="news-title" lang={itemLang}>
        {item.redirectToSource ? (
          <a href={item.newsUrl} target="_blank" rel="noopener noreferrer">
            {item.newsFeedTitle} <span className="visually-hidden" lang={itemLang && language(lang).htmlLang}>{t('newsFeed.newTab')}</span>
          </a>
        ) : (
          <a href={localePath(lang, `/news-feed/news/${item.id}`)}>{item.newsFeedTitle}</a>
        )}
      </h2>
      <p className={expanded ? 'news-content' : 'news-content limited'} lang={itemLang}>
        {expanded ? item.content : preview.text}
      </p>
      {long && (
        <button type="button" className="link-button" aria-expanded={expanded} onClick={onToggle}>
          {expanded ? t('newsFeed.readLess') : t('newsFeed.readMore')}
        </button>
      )}
      <p className="news-meta">
        {t('newsFeed.postedBy')} <time dateTime={item.postedAt}>{posted}</time>
      </p>
    </li>
  );
}
