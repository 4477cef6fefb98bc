import Newspaper from 'lucide-react/icons/newspaper';
import NewsDetail from '../islands/NewsDetail';
import NewsList from '../islands/NewsList';
import { PageHead } from '../components/PageHead';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';
import { newsArticle } from '../lib/structuredData';
import type { ScreenProps } from '../routes';

// NewsFeed is the /news-feed route: heading 'News Feed' and the list,
// written from the build's snapshot of the news when it has one (the
// island refreshes it from the API), loaded by the island otherwise.
export function NewsFeed({ lang, news }: ScreenProps) {
  const { t } = useT();
  return (
    <>
      <PageHead title={t('newsFeed.title')} lead={t('newsFeed.intro')} icon={Newspaper} />
      <section aria-label={t('newsFeed.title')}>
        <Island name="NewsList" component={NewsList} props={{ items: news }} content={news ? undefined : `/api/news?lang=${lang}`} />
      </section>
    </>
  );
}

// NewsDetailPage is a news item's page: written for each item of the
// build's snapshot, and once as the /news-feed/news/:newsId shell whose
// island reads the id from the address and loads the item.
export function NewsDetailPage({ news, newsId }: ScreenProps) {
  const item = news?.find((i) => i.id === newsId) ?? null;
  return (
    <section className="news-detail">
      <Island name="NewsDetail" component={NewsDetail} props={{ item }} />
    </section>
  );
}

// descriptionLength is about what search engines show of a description.
const descriptionLength = 155;

// newsItemMeta gives an item's page its own title and description: the
// item's title and the start of its content.
export function newsItemMeta({ news, newsId }: ScreenProps): { title: string; description: string } | undefined {
  const item = news?.find((i) => i.id === newsId);
  if (!item) return undefined;
  const text = item.content.replace(/\s+/g, ' ').trim();
  const chars = [...text];
  const description = chars.length > descriptionLength ? chars.slice(0, descriptionLength - 1).join('').replace(/\s+\S*$/, '') + '…' : text;
  return { title: item.newsFeedTitle, description };
}

// newsItemData is an item's page's article, on the item's own address.
export function newsItemData(props: ScreenProps) {
  const item = props.news?.find((i) => i.id === props.newsId);
  const meta = newsItemMeta(props);
  return item && meta ? [newsArticle(props.lang, `/news-feed/news/${item.id}`, item, meta.description)] : [];
}
