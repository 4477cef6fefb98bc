import { useEffect, useState } from 'react';
import { FeedbackButton } from '../components/FeedbackButton';
import { NewsArticle } from '../components/NewsArticle';
import { useT } from '../lib/i18n';
import { newsIdFromPath } from '../lib/news';

// NotFoundPage is the not-found screen (SPEC §2): heading, text and the
// 'Send feedback' button opening the feedback dialog with errorType 404.
// On a static host that cannot rewrite /news-feed/news/{id} to the news
// shell, that path lands here, and the item is shown instead.
export default function NotFoundPage() {
  const { t } = useT();
  const [news, setNews] = useState(false);
  useEffect(() => {
    setNews(newsIdFromPath(location.pathname) !== null);
  }, []);
  if (news) return <NewsArticle />;
  return (
    <>
      <h1>{t('notFound.heading')}</h1>
      <p className="lead">{t('notFound.text')}</p>
      <FeedbackButton errorType="404" />
    </>
  );
}
