import NewsDetail from '../islands/NewsDetail';
import NewsList from '../islands/NewsList';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';

// NewsFeed is the /news-feed route: heading 'News Feed' and the list.
export function NewsFeed() {
  const { t } = useT();
  return (
    <section className="page">
      <h1>{t('newsFeed.title')}</h1>
      <p className="lead">{t('newsFeed.intro')}</p>
      <Island name="NewsList" component={NewsList} props={{}} content="/api/news" />
    </section>
  );
}

// NewsDetailPage is the /news-feed/news/:newsId shell: its island reads
// the id from the address and shows the item.
export function NewsDetailPage() {
  return (
    <section className="page">
      <Island name="NewsDetail" component={NewsDetail} props={{}} />
    </section>
  );
}
