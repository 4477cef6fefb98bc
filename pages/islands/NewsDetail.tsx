import { NewsArticle } from '../components/NewsArticle';
import type { NewsItem } from '../lib/news';

// NewsDetail is a news item's page: the item as the build wrote it (with
// the day it was posted, as the build wrote it), or, on the shell page,
// the item named by the address, loaded from the API.
export default function NewsDetail({ item, posted }: { item: NewsItem | null; posted?: string }) {
  return <NewsArticle item={item} posted={posted} />;
}
