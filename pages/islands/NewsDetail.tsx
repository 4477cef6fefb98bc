import { NewsArticle } from '../components/NewsArticle';

// NewsDetail fills the /news-feed/news/:newsId shell page with the item.
export default function NewsDetail() {
  return <NewsArticle />;
}
