// The server bundle's entry. The generator runs it in goja: routes() lists
// the pages to write and render() turns one of them into HTML.
import { renderToStaticMarkup, renderToString } from 'react-dom/server.browser';
import { LogoMark } from './components/Logo';
import { Layout } from './layout/Layout';
import i18next from 'i18next';
import { I18nContext, type Messages, type Translator } from './lib/i18n';
import { renderedContent, renderedIslands, renderedLazyIslands } from './lib/island';
import { settings, type Lang } from './lib/site';
import type { NewsItem } from './lib/news';
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
// (about 0.3 ms a call, most of a page's render time), so texts without a
// plural count come straight from its resource store and interpolator
// (the same output, a third of the cost), and every text is remembered:
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

// NEWS_SNAPSHOT is the build's snapshot of the news: per language, the
// items as GET /api/news?lang= answers them (JSON). The generator sets it
// before this bundle runs, or leaves it out.
declare const NEWS_SNAPSHOT: string | undefined;
const news: Partial<Record<Lang, NewsItem[]>> = typeof NEWS_SNAPSHOT === 'string' ? JSON.parse(NEWS_SNAPSHOT) : {};
const newsRoute = '/news-feed/news/:newsId';
const newsPrefix = newsRoute.slice(0, newsRoute.indexOf(':')); // an item's page is newsPrefix + id

export interface RouteInfo {
  path: string;
  canonical: string;
}

// routes lists the route table, and a page for each news item of the
// snapshot (the same items in every language).
export function routes(): RouteInfo[] {
  const items = new Set(Object.values(news).flatMap((list) => list.map((item) => item.id)));
  return [
    ...table.map((r) => ({ path: r.path, canonical: r.canonical ?? r.path })),
    ...[...items].map((id) => ({ path: newsPrefix + id, canonical: newsPrefix + id })),
  ];
}

// find is the route of a path as routes() lists it, with the news item's
// id on an item's page.
function find(path: string): { route: Route; newsId?: number } | undefined {
  if (path === notFound.path) return { route: notFound };
  const route = table.find((r) => r.path === path);
  if (route) return { route };
  const id = path.startsWith(newsPrefix) ? Number(path.slice(newsPrefix.length)) : NaN;
  const detail = table.find((r) => r.path === newsRoute);
  return detail && Number.isInteger(id) && id > 0 ? { route: detail, newsId: id } : undefined;
}

export interface Page {
  body: string;
  title: string;
  description: string;
  islands: string[];
  lazyIslands: string[];
  content: string[];
  // ogType is the page's Open Graph type: article for a news item's page.
  ogType: 'website' | 'article';
  structuredData: StructuredData[];
  // readsNews says whether the page read the news snapshot (see watched).
  readsNews: boolean;
}

// render returns the body of one page (the route path as in routes(), or
// "/404" for the not-found screen) in one language, with its title,
// description, the islands it needs and the API calls whose answers are its
// main content.
export function render(path: string, lang: Lang, year: number): Page {
  const found = find(path);
  if (!found) throw new Error(`no route ${path}`);
  const { route, newsId } = found;
  const translator = translators[lang];
  if (!translator) throw new Error(`no language ${lang}`);
  const Screen = route.screen;
  readNews = false;
  const list = news[lang];
  const props: ScreenProps = { lang, route: route.path, news: list ? watched(list) : null, newsId };
  renderedIslands.clear();
  renderedLazyIslands.clear();
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
  const own = route.meta?.(props);
  const meta = own ?? { title: translator.t(`${route.id}.title`, vars), description: translator.t(`${route.id}.description`, vars) };
  return {
    body,
    title: route.path === '/' ? `${settings.name} | ${meta.title}` : `${meta.title} | ${settings.name}`,
    description: meta.description,
    islands: [...renderedIslands].sort(),
    lazyIslands: [...renderedLazyIslands].sort(),
    content: [...renderedContent].sort(),
    ogType: route.article && own ? 'article' : 'website',
    structuredData: route.structuredData?.(props, translator.t) ?? [],
    readsNews: readNews,
  };
}

// readNews says whether the page being rendered read the news snapshot:
// the generator's render cache renders it again when the news changes, and
// no other page. watched notes every read of the list (and so of its
// items) through the proxy it returns.
let readNews = false;
function watched(list: NewsItem[]): NewsItem[] {
  return new Proxy(list, {
    get(target, key, receiver) {
      readNews = true;
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      readNews = true;
      return Reflect.has(target, key);
    },
    ownKeys(target) {
      readNews = true;
      return Reflect.ownKeys(target);
    },
    getOwnPropertyDescriptor(target, key) {
      readNews = true;
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
  });
}

// favicon is the logo mark as a file of its own (favicon.svg).
export function favicon(): string {
  return renderToStaticMarkup(<LogoMark />);
}
