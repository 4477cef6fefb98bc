import { NewsArticle } from '../components/NewsArticle';
import type { NewsItem } from '../lib/news';

// NewsDetail is a news item's page: the item as the build wrote it, or,
// on the shell page, the item named by the address, loaded from the API.
export default function NewsDetail({ item }: { item: NewsItem | null }) {
  return <NewsArticle item={item} />;
}
