import { createContext, useContext } from 'react';
import type { Lang } from './site';

// Messages are one language's texts: locales/{lang}.json, served to the
// browser as /assets/i18n/{lang}.json (SPEC §7).
export type Messages = { [key: string]: string | Messages | Messages[] | string[] };

export type Vars = Record<string, string | number>;

// Translator turns an i18next key ("home.heroTitle") into the text of the
// page's language, filling {{name}} placeholders from vars.
export interface Translator {
  lang: Lang;
  t(key: string, vars?: Vars): string;
}

export const I18nContext = createContext<Translator | null>(null);

// useT returns the translator of the page being rendered or hydrated.
export function useT(): Translator {
  const translator = useContext(I18nContext);
  if (!translator) throw new Error('useT outside an I18nContext provider');
  return translator;
}

// createTranslator reads i18next's resource format (nested keys, {{name}}
// interpolation, key_one/key_other plurals chosen by count) without the
// i18next runtime. The server renders with i18next itself (pages/server.tsx);
// islands use this in the browser because i18next would add 16 KB gzip to
// every island page and push React pages past their 80 KB budget. A
// generator test checks both give the same text for every key.
export function createTranslator(lang: Lang, messages: Messages, pluralLocale: string): Translator {
  let rules: Intl.PluralRules | undefined;
  const lookup = (key: string): unknown =>
    key.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Messages)[part] : undefined), messages);
  return {
    lang,
    t(key, vars) {
      let text = lookup(key);
      if (vars && typeof vars.count === 'number') {
        rules ??= new Intl.PluralRules(pluralLocale);
        const plural = lookup(`${key}_${rules.select(vars.count)}`) ?? lookup(`${key}_other`);
        if (typeof plural === 'string') text = plural;
      }
      if (typeof text !== 'string') return key;
      return text.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (whole, name: string) => (vars && name in vars ? String(vars[name]) : whole));
    },
  };
}
