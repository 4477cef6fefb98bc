// News items as GET /api/news?lang= and GET /api/news/{id}?lang= answer
// them (SPEC §3; formapi.NewsAnswer), and as the build's snapshot keeps
// them.
import type { Translator } from './i18n';
import { language, languages, type Lang } from './site';

export interface NewsItem {
  id: number;
  newsFeedTitle: string;
  content: string;
  newsUrl: string;
  redirectToSource: boolean;
  postedAt: string; // RFC 3339
  lang: Lang; // the language of title and content: the page's, or en where the item has no translation
  timeAgo?: string; // in the language asked for, with the API's rounding (the build's items have none)
}

// textLang is the lang attribute an item's title and content need on a
// page in pageLang: none when they are in the page's language, the
// language's tag (en) when the item is shown in English instead.
export function textLang(item: NewsItem, pageLang: Lang): string | undefined {
  return item.lang === pageLang ? undefined : language(item.lang).htmlLang;
}

// istOffset puts dates in India Standard Time (UTC+05:30) whatever the
// clock of the machine rendering them, so the build and the browser write
// the same date.
const istOffset = 330 * 60 * 1000;

// postedOn is the day an item was posted, in the page's language ("18
// November 2026", "18 नवंबर 2026"): the build's snapshot shows it, since a
// "3 days ago" written at build time would be wrong a week later.
export function postedOn(iso: string, t: Translator['t']): string {
  const d = new Date(Date.parse(iso) + istOffset);
  return `${d.getUTCDate()} ${t(`newsFeed.month.${d.getUTCMonth() + 1}`)} ${d.getUTCFullYear()}`;
}

// newsIdFromPath finds the news id in /news-feed/news/{id} in any
// language, or returns null: the not-found page of a host without rewrites
// uses it to show the item anyway (and newsPathPattern, the same paths as
// a RegExp source, to hydrate at once there).
export function newsIdFromPath(path: string): string | null {
  for (const { prefix } of languages) {
    const rest = path.startsWith(prefix + '/news-feed/news/') ? path.slice((prefix + '/news-feed/news/').length) : '';
    if (rest && !rest.includes('/')) return decodeURIComponent(rest);
  }
  return null;
}

export const newsPathPattern = `^(${languages.map((l) => l.prefix).join('|')})/news-feed/news/[^/]+$`;
