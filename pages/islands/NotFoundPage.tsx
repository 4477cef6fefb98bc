import { useEffect, useState } from 'react';
import { FeedbackButton } from '../components/FeedbackButton';
import { useT } from '../lib/i18n';
import { newsIdFromPath } from '../lib/news';

type Article = typeof import('../components/NewsArticle').NewsArticle;

// NotFoundPage is the not-found screen (SPEC §2): heading, text and the
// 'Send feedback' control opening the feedback dialog with errorType 404.
// On a static host that cannot rewrite /news-feed/news/{id} to the news
// shell, that path lands here, and the item is shown instead; only then
// is the news code loaded, so every other not-found page stays lighter.
export default function NotFoundPage() {
  const { t } = useT();
  const [Article, setArticle] = useState<Article | null>(null);
  useEffect(() => {
    if (newsIdFromPath(location.pathname) !== null) void import('../components/NewsArticle').then((m) => setArticle(() => m.NewsArticle));
  }, []);
  if (Article) return <Article />;
  return (
    <>
      <h1>{t('notFound.heading')}</h1>
      <p className="lead">{t('notFound.text')}</p>
      <FeedbackButton errorType="404" />
    </>
  );
}
