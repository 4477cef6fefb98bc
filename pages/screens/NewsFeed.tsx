import ArrowLeft from 'lucide-react/icons/arrow-left';
import ArrowRight from 'lucide-react/icons/arrow-right';
import Newspaper from 'lucide-react/icons/newspaper';
import NewsDetail from '../islands/NewsDetail';
import NewsList, { NewsListItem, preview } from '../islands/NewsList';
import { PageHead } from '../components/PageHead';
import { useT, type Translator } from '../lib/i18n';
import { Island } from '../lib/island';
import { postedOn, type NewsItem } from '../lib/news';
import { languages, localePath } from '../lib/site';
import { newsArticle } from '../lib/structuredData';
import type { Neighbours, ScreenProps } from '../routes';

// FeedPage is where a page of the news feed stands. /news-feed lists the
// newest newsPageSize items (page null); the archive is split into pages
// of newsPageSize items numbered from the oldest, at /news-feed/page/{page}
// (a folder with an index.html on any static host), so a page keeps its
// number and items as the archive grows. newer and older are the routes of
// the pages with the items posted after and before this page's, null at
// either end.
export interface FeedPage {
  page: string | null;
  newer: string | null;
  older: string | null;
}

// newsPageSize is how many items /news-feed and a page of the archive list.
export const newsPageSize = 20;

// NewsFeed is the /news-feed route: heading 'News Feed' and the list.
// /news-feed is the island of SPEC (search, Read More), written with the
// build's newest items and refreshed from the API; the archive's pages are
// plain HTML. Each links the pages beside it, so every item of the
// archive is reached by links without JavaScript. Without items (news
// null) the island loads them.
export function NewsFeed({ lang, news, feed }: ScreenProps) {
  const { t } = useT();
  const page = feed?.page ?? null;
  return (
    <>
      <PageHead title={page === null ? t('newsFeed.title') : t('newsFeed.pageTitle', { page })} lead={t('newsFeed.intro')} icon={Newspaper} />
      <section aria-label={t('newsFeed.title')}>
        {page === null ? (
          <Island name="NewsList" component={NewsList} props={{ items: news }} content={news ? undefined : `/api/news?lang=${lang}`} />
        ) : (
          <NewsArchive items={news ?? []} />
        )}
      </section>
      {feed && (feed.newer !== null || feed.older !== null) && <FeedNav feed={feed} />}
    </>
  );
}

// NewsArchive is a page of the archive's list: the items as the island shows them,
// without the controls that need JavaScript.
function NewsArchive({ items }: { items: NewsItem[] }) {
  const { t } = useT();
  return (
    <div className="news-feed">
      <ul className="news-list">
        {items.map((item, i) => (
          <NewsListItem key={item.id} item={item} even={i % 2 === 0} preview={preview(item.content)} posted={postedOn(item.postedAt, t)} />
        ))}
      </ul>
    </div>
  );
}

// FeedNav links the pages before and after this one.
function FeedNav({ feed }: { feed: FeedPage }) {
  const { t, lang } = useT();
  return (
    <nav className="news-pages" aria-label={t('newsFeed.pages')}>
      {feed.newer !== null && (
        <a href={localePath(lang, feed.newer)} rel="prev">
          {t('newsFeed.newer')}
        </a>
      )}
      {feed.older !== null && (
        <a href={localePath(lang, feed.older)} rel="next">
          {t('newsFeed.older')}
        </a>
      )}
    </nav>
  );
}

// NewsDetailPage is a news item's page: written for each item of the
// archive, and once as the /news-feed/news/:newsId shell whose island
// reads the id from the address and loads the item. A way back to the
// feed above it; an archive's item links the items posted just after and
// before it below (the shell knows none). posted is the item's day, a
// slot in the shape the build fills (pages/server.tsx).
export function NewsDetailPage({ lang, newsItem, neighbours, posted }: ScreenProps) {
  const { t } = useT();
  return (
    <section className="news-detail">
      <p className="news-back">
        <a className="back-link" href={localePath(lang, '/news-feed')}>
          <ArrowLeft className="icon" />
          {t('newsDetail.back')}
        </a>
      </p>
      <Island name="NewsDetail" component={NewsDetail} props={newsItem ? { item: newsItem, posted: posted ?? postedOn(newsItem.postedAt, t) } : { item: null }} />
      {neighbours && (neighbours.newer || neighbours.older) && <NeighbourLinks neighbours={neighbours} />}
    </section>
  );
}

// htmlLang is the tag of a text in language code (a slot of a shape, which
// the build fills with the tag, stays itself).
const htmlLang = (code: string) => languages.find((l) => l.code === code)?.htmlLang ?? code;

// NeighbourLinks leads to the items posted just after and before this
// one, each by its title (in the language it is written in).
function NeighbourLinks({ neighbours: { newer, older } }: { neighbours: Neighbours }) {
  const { t, lang } = useT();
  const link = (item: NewsItem, rel: 'prev' | 'next') => (
    <a className={`news-neighbour ${rel}`} href={localePath(lang, `/news-feed/news/${item.id}`)} rel={rel}>
      <span className="news-neighbour-label">
        {rel === 'prev' && <ArrowLeft className="icon" />}
        {t(rel === 'prev' ? 'newsDetail.newer' : 'newsDetail.older')}
        {rel === 'next' && <ArrowRight className="icon" />}
      </span>
      <span className="news-neighbour-title" lang={htmlLang(item.lang)}>
        {item.newsFeedTitle}
      </span>
    </a>
  );
  return (
    <nav className="news-neighbours" aria-label={t('newsDetail.more')}>
      {newer && link(newer, 'prev')}
      {older && link(older, 'next')}
    </nav>
  );
}

// descriptionLength is about what search engines show of a description.
const descriptionLength = 155;

// newsItemMeta gives an item's page its own title and description: the
// item's title and the start of its content.
export function newsItemMeta({ newsItem: item }: ScreenProps): { title: string; description: string } | undefined {
  if (!item) return undefined;
  const text = item.content.replace(/\s+/g, ' ').trim();
  const chars = [...text];
  const description = chars.length > descriptionLength ? chars.slice(0, descriptionLength - 1).join('').replace(/\s+\S*$/, '') + '…' : text;
  return { title: item.newsFeedTitle, description };
}

// newsFeedMeta names the archive's pages by their number.
export function newsFeedMeta({ feed }: ScreenProps, t: Translator['t']): { title: string; description: string } | undefined {
  if (!feed || feed.page === null) return undefined;
  return { title: t('newsFeed.pageTitle', { page: feed.page }), description: t('newsFeed.description') };
}

// newsItemData is an item's page's article, on the item's own address.
export function newsItemData(props: ScreenProps) {
  const item = props.newsItem;
  const meta = newsItemMeta(props);
  return item && meta ? [newsArticle(props.lang, `/news-feed/news/${item.id}`, item, meta.description)] : [];
}
