import { useEffect, useRef, useState } from 'react';
import { ApiError, request } from '../lib/api';
import { useT } from '../lib/i18n';
import { newsIdFromPath, type NewsItem } from '../lib/news';
import { localePath, settings } from '../lib/site';

type State = { kind: 'loading' } | { kind: 'shown'; item: NewsItem } | { kind: 'notFound' } | { kind: 'failed' };

// NewsArticle shows the news item named by the page's path: its title and
// full content (SPEC §2). The server renders the loading state; the item
// is fetched once the page runs, so one shell page serves every id.
export function NewsArticle() {
  const { t, lang } = useT();
  const [state, setState] = useState<State>({ kind: 'loading' });
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const id = newsIdFromPath(location.pathname);
    if (!id) {
      setState({ kind: 'notFound' });
      return;
    }
    const abort = new AbortController();
    request<NewsItem>(`/api/news/${encodeURIComponent(id)}`, { signal: abort.signal })
      .then((item) => {
        if (abort.signal.aborted) return;
        setState({ kind: 'shown', item });
        document.title = `${item.newsFeedTitle} | ${settings.name}`;
      })
      .catch((err: unknown) => {
        if (abort.signal.aborted) return;
        setState(err instanceof ApiError && (err.status === 404 || err.status === 400) ? { kind: 'notFound' } : { kind: 'failed' });
      });
    return () => abort.abort();
  }, []);
  useEffect(() => {
    if (state.kind !== 'loading') heading.current?.focus();
  }, [state.kind]);

  return (
    <article className="news-article" aria-busy={state.kind === 'loading'}>
      <h1 ref={heading} tabIndex={-1}>
        {state.kind === 'shown' ? state.item.newsFeedTitle : t('newsDetail.title')}
      </h1>
      {state.kind === 'loading' && <p className="lead">{t('newsDetail.loading')}</p>}
      {state.kind === 'notFound' && <p className="notice bad">{t('newsDetail.notFound')}</p>}
      {state.kind === 'failed' && (
        <p className="notice bad" role="alert">
          {t('newsDetail.failed')}
        </p>
      )}
      {state.kind === 'shown' &&
        state.item.content
          .split(/\n\s*\n/)
          .filter((p) => p.trim())
          .map((p, i) => <p key={i}>{p}</p>)}
      {state.kind === 'shown' && state.item.newsUrl && (
        <p>
          <a href={state.item.newsUrl} target="_blank" rel="noopener noreferrer">
            {t('newsDetail.source')} <span className="visually-hidden">{t('newsFeed.newTab')}</span>
          </a>
        </p>
      )}
      <p>
        <a href={localePath(lang, '/news-feed')}>{t('newsDetail.back')}</a>
      </p>
    </article>
  );
}
