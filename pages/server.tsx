// The server bundle's entry. The generator runs it in goja: routes() lists
// the pages to write and render() turns one of them into HTML.
import { renderToStaticMarkup, renderToString } from 'react-dom/server.browser';
import { LogoMark } from './components/Logo';
import { Layout } from './layout/Layout';
import i18next from 'i18next';
import { I18nContext, type Messages, type Translator } from './lib/i18n';
import { renderedContent, renderedIslands, renderedLazyIslands, renderedOnInteraction } from './lib/island';
import { forgetPrerendered } from './lib/prerendered';
import { settings, type Lang } from './lib/site';
import type { NewsItem } from './lib/news';
import { readFigures } from './lib/figures';
import { NewsListItem } from './islands/NewsList';
import type { FeedPage } from './screens/NewsFeed';
import { notFound, routes as table, type Route, type ScreenProps } from './routes';
import type { StructuredData } from './lib/structuredData';

// LOCALES holds the texts of every language, locales/{lang}.json, by code:
// the generator sets it (JSON) before this bundle runs, so the texts are
// parsed as JSON rather than compiled as code, and a change of one
// language's texts leaves the bundle as it was (the render cache keeps the
// pages of the other languages).
declare const LOCALES: string;
const locales: Record<Lang, Messages> = JSON.parse(LOCALES);

// One i18next instance holds all three languages; each page renders with
// the translator of its language.
const i18n = i18next.createInstance();
i18n.init({
  resources: Object.fromEntries(Object.entries(locales).map(([code, messages]) => [code, { translation: messages }])),
  lng: 'en',
  fallbackLng: false,
  initAsync: false,
  interpolation: { escapeValue: false },
});
// serverTranslator renders with i18next. i18next's t() is slow in goja
// (most of a page's render time), so texts without a plural count come
// straight from its resource store and interpolator (the same output, for
// less), and every text is remembered:
// the navigation and footer come back on every page.
function serverTranslator(lang: Lang): Translator {
  const fixed = i18n.getFixedT(lang);
  const interpolator = i18n.services.interpolator;
  const cache = new Map<string, string>();
  return {
    lang,
    t(key, vars) {
      const id = vars ? key + '\u0000' + JSON.stringify(vars) : key;
      let text = cache.get(id);
      if (text === undefined) {
        const raw: unknown = vars?.count === undefined ? i18n.getResource(lang, 'translation', key) : undefined;
        // A text without a {{placeholder}} is what the interpolator
        // gives back, and its regular expressions are slow in goja.
        if (typeof raw === 'string') text = raw.includes('{{') ? interpolator.interpolate(raw, vars ?? {}, lang, {}) : raw;
        else text = fixed(key, vars);
        cache.set(id, text);
      }
      return text;
    },
  };
}
const translators: Record<Lang, Translator> = { en: serverTranslator('en'), hi: serverTranslator('hi'), ma: serverTranslator('ma') };

// setTexts replaces the texts of the running bundle (LOCALES's JSON):
// freightsite dev gives it a saved translation instead of running the
// whole bundle again, which takes longer than rendering the page.
export function setTexts(json: string) {
  const next: Record<Lang, Messages> = JSON.parse(json);
  for (const [code, messages] of Object.entries(next) as [Lang, Messages][]) {
    i18n.removeResourceBundle(code, 'translation');
    i18n.addResourceBundle(code, 'translation', messages);
    translators[code] = serverTranslator(code);
  }
  forgetPrerendered();
}

const newsRoute = '/news-feed/news/:newsId';
const feedRoute = '/news-feed';

export interface RouteInfo {
  path: string;
  canonical: string;
}

// routes lists the route table.
export function routes(): RouteInfo[] {
  return table.map((r) => ({ path: r.path, canonical: r.canonical ?? r.path }));
}

export interface Page {
  body: string;
  title: string;
  description: string;
  islands: string[];
  lazyIslands: string[];
  onInteraction: string[];
  content: string[];
  // ogType is the page's Open Graph type: article for a news item's page.
  ogType: 'website' | 'article';
  structuredData: StructuredData[];
  // reads names the build's figures the page read (lib/figures.ts): the
  // generator's render cache renders it again when they change.
  reads: string[];
}

// render returns the body of one page (the route path as in routes(), or
// "/404" for the not-found screen) in one language, with its title,
// description, the islands it needs and the API calls whose answers are its
// main content. A path "news:KIND?..." is a shape of the news archive's
// pages (newsShape).
export function render(path: string, lang: Lang, year: number): Page {
  if (path.startsWith('news:')) return newsShape(path, lang, year);
  const route = path === notFound.path ? notFound : table.find((r) => r.path === path);
  if (!route) throw new Error(`no route ${path}`);
  return renderRoute(route, path, lang, year, { lang, route: route.path, news: null });
}

function renderRoute(route: Route, path: string, lang: Lang, year: number, props: ScreenProps): Page {
  const translator = translators[lang];
  if (!translator) throw new Error(`no language ${lang}`);
  const Screen = route.screen;
  readFigures.clear();
  renderedIslands.clear();
  renderedLazyIslands.clear();
  renderedOnInteraction.clear();
  renderedContent.clear();
  const body = renderToString(
    <I18nContext.Provider value={translator}>
      <Layout lang={lang} route={path} languageSelector={route.languageSelector ?? true} year={year}>
        <Screen {...props} />
      </Layout>
    </I18nContext.Provider>,
  );
  const params = route.params?.(lang);
  const vars = { ...params, name: params?.name ?? settings.name };
  const own = route.meta?.(props, translator.t);
  const meta = own ?? { title: translator.t(`${route.id}.title`, vars), description: translator.t(`${route.id}.description`, vars) };
  return {
    body,
    title: route.path === '/' ? `${settings.name} | ${meta.title}` : `${meta.title} | ${settings.name}`,
    description: meta.description,
    islands: [...renderedIslands].sort(),
    lazyIslands: [...renderedLazyIslands].sort(),
    onInteraction: [...renderedOnInteraction].sort(),
    content: [...renderedContent].sort(),
    ogType: route.article && own ? 'article' : 'website',
    structuredData: route.structuredData?.(props, translator.t) ?? [],
    reads: [...readFigures].sort(),
  };
}

// The news archive's pages are many pages of few shapes: an item's page,
// a page of the feed, an item of the feed's list. The generator asks for
// each shape once per language (render("news:...")), rendered with slots
// in place of the item's texts: slot(name), a name between two characters
// of Unicode's private use area, which React writes as they are. It then
// fills the slots of each page in Go with the texts of its items, escaped
// as React escapes them (generator/news.go), and a test holds the pages so
// made equal to the same pages rendered here whole (renderNews).
const slot = (name: string) => `\uE000${name}\uE001`;

// slotItem is an item whose texts are slots; its JSON (an island's props)
// is one slot too.
function slotItem(lang: Lang, marked: boolean, source: boolean): NewsItem {
  const item = { id: slot('id'), newsFeedTitle: slot('title'), content: slot('content'), newsUrl: source ? slot('url') : '', redirectToSource: source, postedAt: slot('posted'), lang: marked ? 'en' : lang };
  return Object.assign(item, { toJSON: () => slot('item.json') }) as unknown as NewsItem;
}

// slotList is a list of count items whose items are one slot in the HTML
// (what its map() gives) and in JSON.
function slotList(count: number): NewsItem[] {
  const list: NewsItem[] = [];
  list.length = count;
  return Object.assign(list, { map: () => slot('items'), toJSON: () => slot('items.json') });
}

// newsShape renders the shape a "news:KIND?a=1&b=0" path names:
//   news:item?marked=M&source=S&newer=N&older=O
//                                 an item's page; M: its text is in English
//                                 on a page in another language, S: it has
//                                 a source URL, N and O: an item was posted
//                                 after it, before it (their links)
//   news:feed?count=N&later=L&newest=W&older=O
//                                 /news-feed or, L, a page of the archive,
//                                 listing N items; W: the archive's newest
//                                 page (newer than it is /news-feed), O: a
//                                 page of older items follows it
//   news:li?even=E&source=S&marked=M&long=G&island=I
//                                 one item of a feed's list; S: it opens
//                                 its source, G: its content is longer than
//                                 the preview, I: in the island
function newsShape(path: string, lang: Lang, year: number): Page {
  const [kind, query = ''] = path.slice('news:'.length).split('?');
  const flags: Record<string, string> = {};
  for (const part of query.split('&')) {
    const [k, v = ''] = part.split('=');
    if (k) flags[k] = v;
  }
  const on = (name: string) => flags[name] === '1';
  const route = (p: string) => table.find((r) => r.path === p)!;
  switch (kind) {
    case 'item': {
      const neighbour = (name: string) => {
        const item = { id: slot(`${name}.id`), newsFeedTitle: slot(`${name}.title`), lang: slot(`${name}.lang`) };
        return on(name) ? (item as unknown as NewsItem) : null;
      };
      return renderRoute(route(newsRoute), `/news-feed/news/${slot('id')}`, lang, year, {
        lang,
        route: newsRoute,
        news: null,
        newsItem: slotItem(lang, on('marked'), on('source')),
        neighbours: { newer: neighbour('newer'), older: neighbour('older') },
        posted: slot('date'),
      });
    }
    case 'feed': {
      const later = on('later');
      const feed: FeedPage = {
        page: later ? slot('page') : null,
        newer: !later ? null : on('newest') ? feedRoute : `/news-feed/page/${slot('newer')}`,
        older: on('older') ? `/news-feed/page/${slot('older')}` : null,
      };
      const path = later ? `/news-feed/page/${slot('page')}` : feedRoute;
      return renderRoute(route(feedRoute), path, lang, year, { lang, route: feedRoute, news: slotList(Number(flags.count)), feed });
    }
    case 'li': {
      const item = slotItem(lang, on('marked'), on('source'));
      const body = renderToString(
        <I18nContext.Provider value={translators[lang]}>
          <NewsListItem item={item} even={on('even')} preview={{ text: slot('preview'), long: on('long') }} posted={slot('date')} onToggle={on('island') ? () => undefined : undefined} />
        </I18nContext.Provider>,
      );
      return { body, title: '', description: '', islands: [], lazyIslands: [], onInteraction: [], content: [], ogType: 'website', structuredData: [], reads: [] };
    }
  }
  throw new Error(`no news shape ${path}`);
}

// renderNews renders a page of the news archive whole, with its items
// (JSON): what a test compares the pages filled from shapes with. path is
// an item's page (/news-feed/news/ID, items its item, then the newer and
// the older one or null) or a page of the
// feed (/news-feed, /news-feed/page/N: items its items, of pages of the
// archive).
export function renderNews(path: string, lang: Lang, year: number, itemsJSON: string, pages: number): Page {
  const items: NewsItem[] = JSON.parse(itemsJSON);
  if (path.startsWith('/news-feed/news/')) {
    const [newsItem, newer, older] = items;
    return renderRoute(table.find((r) => r.path === newsRoute)!, path, lang, year, { lang, route: newsRoute, news: null, newsItem, neighbours: { newer, older } });
  }
  const page = path === feedRoute ? 0 : Number(path.slice('/news-feed/page/'.length));
  const archive = (n: number) => (n >= 1 ? `/news-feed/page/${n}` : null);
  const feed: FeedPage = {
    page: page === 0 ? null : String(page),
    newer: page === 0 ? null : page === pages ? feedRoute : archive(page + 1),
    older: archive(page === 0 ? pages - 1 : page - 1),
  };
  return renderRoute(table.find((r) => r.path === feedRoute)!, path, lang, year, { lang, route: feedRoute, news: items, feed });
}

// favicon is the logo mark as a file of its own (favicon.svg).
export function favicon(): string {
  return renderToStaticMarkup(<LogoMark />);
}
