// News items as GET /api/news and GET /api/news/{id} answer them (SPEC §3).
import { languages } from './site';

export interface NewsItem {
  id: number;
  newsFeedTitle: string;
  content: string;
  newsUrl: string;
  redirectToSource: boolean;
  timeAgo: string; // English, from the server; islands show postedAt in the page's language
  postedAt: string; // RFC 3339
}

const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

// Making a RelativeTimeFormat loads its language's data: a list of news
// made one per item and spent most of its render doing so on a slow phone.
const formats = new Map<string, Intl.RelativeTimeFormat>();

// timeAgo says how long ago a date was in the page's language ("3 days
// ago", "3 दिन पहले"). Only call it in effects or event handlers: it reads
// the clock, which would break hydration during render.
export function timeAgo(iso: string, htmlLang: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  let format = formats.get(htmlLang);
  if (!format) formats.set(htmlLang, (format = new Intl.RelativeTimeFormat(htmlLang, { numeric: 'auto' })));
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  }
  return format.format(0, 'minute');
}

// newsIdFromPath finds the news id in /news-feed/news/{id} in any
// language, or returns null: the not-found page of a host without rewrites
// uses it to show the item anyway.
export function newsIdFromPath(path: string): string | null {
  for (const { prefix } of languages) {
    const rest = path.startsWith(prefix + '/news-feed/news/') ? path.slice((prefix + '/news-feed/news/').length) : '';
    if (rest && !rest.includes('/')) return decodeURIComponent(rest);
  }
  return null;
}
