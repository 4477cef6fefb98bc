import { useEffect, useRef, useState } from 'react';
import { ApiError, request } from '../lib/api';
import { useT } from '../lib/i18n';
import { newsIdFromPath, postedOn, textLang, type NewsItem } from '../lib/news';
import { settings } from '../lib/site';

type State = { kind: 'loading' } | { kind: 'shown'; item: NewsItem } | { kind: 'notFound' } | { kind: 'failed' };

// NewsArticle shows a news item, title, the day it was posted, its source
// where it has one, and its full content (SPEC §2), in the
// page's language or, where the item has none, in English marked as
// such. An item the build wrote into the page shows at once and is then
// refreshed from the API (it may have been translated since); otherwise
// (the shell page, the not-found page of a host without rewrites) the
// server renders the loading state and the item named by the address is
// fetched once the page runs, so one page serves every id.
// posted is the item's day as the build wrote it (postedOn).
export function NewsArticle({ item, posted }: { item?: NewsItem | null; posted?: string }) {
  const { t, lang } = useT();
  const [state, setState] = useState<State>(item ? { kind: 'shown', item } : { kind: 'loading' });
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const id = item ? String(item.id) : newsIdFromPath(location.pathname);
    if (!id) {
      setState({ kind: 'notFound' });
      return;
    }
    const abort = new AbortController();
    request<NewsItem>(`/api/news/${encodeURIComponent(id)}?lang=${lang}`, { signal: abort.signal })
      .then((found) => {
        if (abort.signal.aborted) return;
        setState({ kind: 'shown', item: found });
        document.title = `${found.newsFeedTitle} | ${settings.name}`;
      })
      .catch((err: unknown) => {
        // The build's text stays when the refresh fails.
        if (abort.signal.aborted || item) return;
        setState(err instanceof ApiError && (err.status === 404 || err.status === 400) ? { kind: 'notFound' } : { kind: 'failed' });
      });
    return () => abort.abort();
  }, [item, lang]);
  // What arrives later takes the focus, so screen readers read it.
  useEffect(() => {
    if (!item && state.kind !== 'loading') heading.current?.focus();
  }, [item, state.kind]);

  const shown = state.kind === 'shown' ? state.item : null;
  const itemLang = shown ? textLang(shown, lang) : undefined;
  return (
    <article className="news-article" aria-busy={state.kind === 'loading'}>
      <h1 ref={heading} tabIndex={-1} lang={itemLang}>
        {shown ? shown.newsFeedTitle : t('newsDetail.title')}
      </h1>
      {state.kind === 'loading' && <p className="lead">{t('newsDetail.loading')}</p>}
      {state.kind === 'notFound' && <p className="notice bad">{t('newsDetail.notFound')}</p>}
      {state.kind === 'failed' && (
        <p className="notice bad" role="alert">
          {t('newsDetail.failed')}
        </p>
      )}
      {shown && (
        <p className="news-dateline">
          <time dateTime={shown.postedAt}>{shown === item && posted !== undefined ? posted : postedOn(shown.postedAt, t)}</time>
          {shown.newsUrl && (
            <a href={shown.newsUrl} target="_blank" rel="noopener noreferrer" className="external">
              {t('newsDetail.source')} <span className="visually-hidden">{t('newsFeed.newTab')}</span>
            </a>
          )}
        </p>
      )}
      {shown && (
        <div className="news-body" lang={itemLang}>
          {shown.content
            .split(/\n\s*\n/)
            .filter((p) => p.trim())
            .map((p, i) => (
              <p key={i}>{p}</p>
            ))}
        </div>
      )}
    </article>
  );
}
