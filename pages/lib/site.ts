// Site settings and the language list, read from data/site.json: the one
// source shared with the Go side (generator and API).
import site from '../../data/site.json';

export type Lang = 'en' | 'hi' | 'ma';

export interface Language {
  code: Lang;
  htmlLang: string;
  prefix: string;
  label: string;
  locale: string;
}

export const settings = site;
export const languages = site.languages as Language[];

export function language(code: Lang): Language {
  return languages.find((l) => l.code === code) ?? languages[0];
}

// localePath turns a route of SPEC §2 ("/", "/faq") into its URL in lang:
// English is unprefixed, Hindi lives under /hi and Marathi under /ma.
// postTo is a form's method and action: every form of the site is a POST
// to a page of its language (formapi/formposts.go), so what a visitor
// types never lands in an address, even before the page's script runs.
export function postTo(lang: Lang, route: string) {
  return { method: 'post', action: localePath(lang, route) } as const;
}

export function localePath(lang: Lang, route: string): string {
  const prefix = language(lang).prefix;
  if (route === '/' || route === '') return prefix || '/';
  return prefix + route;
}

// Records of data/ (members, the provider) carry their Hindi and Marathi
// texts, such as names and addresses in Devanagari, under translations.
// inLanguage is the record as a page in lang shows it: each translated
// text in place of the English one, the rest as it is.
export function inLanguage<T extends { translations?: object }>(record: T, lang: Lang): Omit<T, 'translations'> {
  const { translations, ...texts } = record;
  return { ...texts, ...(translations as Partial<Record<Lang, object>> | undefined)?.[lang] };
}
