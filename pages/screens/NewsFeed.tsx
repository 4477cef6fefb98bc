import Newspaper from 'lucide-react/icons/newspaper';
import NewsDetail from '../islands/NewsDetail';
import NewsList from '../islands/NewsList';
import { PageHead } from '../components/PageHead';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';

// NewsFeed is the /news-feed route: heading 'News Feed' and the list.
export function NewsFeed() {
  const { t } = useT();
  return (
    <>
      <PageHead title={t('newsFeed.title')} lead={t('newsFeed.intro')} icon={Newspaper} />
      <section aria-label={t('newsFeed.title')}>
        <Island name="NewsList" component={NewsList} props={{}} content="/api/news" />
      </section>
    </>
  );
}

// NewsDetailPage is the /news-feed/news/:newsId shell: its island reads
// the id from the address and shows the item.
export function NewsDetailPage() {
  return (
    <section className="news-detail">
      <Island name="NewsDetail" component={NewsDetail} props={{}} />
    </section>
  );
}
