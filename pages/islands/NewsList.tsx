import { useEffect, useId, useState } from 'react';
import { request } from '../lib/api';
import { useT } from '../lib/i18n';
import { timeAgo, type NewsItem } from '../lib/news';
import { language, localePath } from '../lib/site';

// SPEC §9: the preview shows the first 50 characters of the content.
const previewLength = 50;

// The unfiltered list is the page's main content: the browser asks for it
// as soon as this code runs, while React is still loading, instead of after
// hydration. (The server render has no document and asks for nothing.)
let firstList: Promise<NewsItem[]> | null = typeof document === 'undefined' ? null : request<NewsItem[]>('/api/news');
firstList?.catch(() => undefined); // handled where it is used

type State = { kind: 'loading' } | { kind: 'shown'; items: NewsItem[]; now: number } | { kind: 'failed' };

function preview(content: string): string {
  const chars = [...content];
  return chars.length > previewLength ? chars.slice(0, previewLength).join('') + '…' : content;
}

// NewsList is the news feed of SPEC §2: a search box that queries on each
// keystroke (a newer query cancels the one in flight), items with a
// 50-character preview that 'Read More' expands, alternate rows styled,
// links to the source (new tab) or to the item's page, and when each was
// posted, in the page's language.
export default function NewsList() {
  const { t, lang } = useT();
  const searchId = useId();
  const [search, setSearch] = useState('');
  const [state, setState] = useState<State>({ kind: 'loading' });
  // readMore (SPEC §4) per item: false until its 'Read More' is pressed.
  // SPEC's second flag, isReadMore, "starts true and limits text height":
  // it is always the opposite of readMore, so it is derived, not stored,
  // as the class that caps the preview's height.
  const [readMore, setReadMore] = useState<Record<number, boolean>>({});

  useEffect(() => {
    const abort = new AbortController();
    const query = search.trim() ? `?search=${encodeURIComponent(search.trim())}` : '';
    const list = !query && firstList ? firstList : request<NewsItem[]>(`/api/news${query}`, { signal: abort.signal });
    firstList = null;
    list
      .then((items) => {
        // A response that arrives after a newer keystroke is stale.
        if (!abort.signal.aborted) setState({ kind: 'shown', items, now: Date.now() });
      })
      .catch(() => {
        if (!abort.signal.aborted) setState({ kind: 'failed' });
      });
    return () => abort.abort();
  }, [search]);

  const htmlLang = language(lang).htmlLang;
  return (
    <div className="news-feed">
      <div className="field news-search">
        <label htmlFor={searchId}>{t('newsFeed.search')}</label>
        <input id={searchId} type="search" placeholder={t('newsFeed.searchPlaceholder')} value={search} maxLength={100} onChange={(e) => setSearch(e.target.value)} />
      </div>
      <p className="news-status" role="status">
        {state.kind === 'loading' && t('newsFeed.loading')}
        {state.kind === 'shown' && (state.items.length ? t('newsFeed.count', { count: state.items.length }) : t('newsFeed.empty'))}
      </p>
      {state.kind === 'failed' && (
        <p className="notice bad" role="alert">
          {t('newsFeed.failed')}
        </p>
      )}
      {state.kind === 'shown' && state.items.length > 0 && (
        <ul className="news-list">
          {state.items.map((item, i) => {
            const expanded = readMore[item.id] ?? false;
            const long = [...item.content].length > previewLength;
            return (
              <li key={item.id} className={i % 2 === 0 ? 'news-item even' : 'news-item'}>
                <h2 className="news-title">
                  {item.redirectToSource ? (
                    <a href={item.newsUrl} target="_blank" rel="noopener noreferrer">
                      {item.newsFeedTitle} <span className="visually-hidden">{t('newsFeed.newTab')}</span>
                    </a>
                  ) : (
                    <a href={localePath(lang, `/news-feed/news/${item.id}`)}>{item.newsFeedTitle}</a>
                  )}
                </h2>
                <p className={expanded ? 'news-content' : 'news-content limited'}>{expanded ? item.content : preview(item.content)}</p>
                {long && (
                  <button type="button" className="link-button" aria-expanded={expanded} onClick={() => setReadMore((r) => ({ ...r, [item.id]: !expanded }))}>
                    {expanded ? t('newsFeed.readLess') : t('newsFeed.readMore')}
                  </button>
                )}
                <p className="news-meta">
                  {t('newsFeed.postedBy')} <time dateTime={item.postedAt}>{timeAgo(item.postedAt, htmlLang, state.now)}</time>
                </p>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
