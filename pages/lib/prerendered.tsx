import type { ReactNode } from 'react';
import { renderToString } from 'react-dom/server.browser';
import { I18nContext, useT } from './i18n';
import { renderedContent, renderedIslands, renderedLazyIslands, renderedOnInteraction } from './island';

// PRERENDER_OFF, when the generator sets it, renders every Prerendered
// part in place: what a test compares the reused parts against.
declare const PRERENDER_OFF: string | undefined;
const off = typeof PRERENDER_OFF !== 'undefined';

// What a render reports besides its HTML (island.tsx): a reused part adds
// what it reported the first time to each on every page that shows it.
const reports = [renderedIslands, renderedLazyIslands, renderedOnInteraction, renderedContent];

interface Rendered {
  html: string;
  reported: string[][]; // by reports' order
}
const rendered = new Map<string, Rendered>();

// forgetPrerendered drops the parts rendered so far: the texts changed
// (pages/server.tsx, setTexts).
export function forgetPrerendered() {
  rendered.clear();
}

interface Props {
  // as is the element around the part, with its className.
  as: 'div' | 'ul' | 'footer';
  className: string;
  // id names everything the children depend on besides the language of
  // the page (the translator's), such as the year or the current route:
  // parts with the same id and language are the same HTML.
  id: string;
  children: ReactNode;
}

// Prerendered is a part of the layout that is the same on many pages (the
// footer, the navigation links): the server renders its children once per
// id and language and reuses the HTML, which would otherwise be about half
// of each page's render. The islands inside are reported on every page
// that shows them. Only the server renders the layout, so this never
// reaches the client bundle.
export function Prerendered({ as: Tag, className, id, children }: Props) {
  const translator = useT();
  if (off) return <Tag className={className}>{children}</Tag>;
  const key = `${translator.lang} ${Tag} ${id}`;
  let part = rendered.get(key);
  if (!part) {
    const before = reports.map((report) => [...report]);
    reports.forEach((report) => report.clear());
    const html = renderToString(<I18nContext.Provider value={translator}>{children}</I18nContext.Provider>);
    part = { html, reported: reports.map((report) => [...report]) };
    rendered.set(key, part);
    before.forEach((items, i) => items.forEach((item) => reports[i].add(item)));
  }
  part.reported.forEach((items, i) => items.forEach((item) => reports[i].add(item)));
  return <Tag className={className} dangerouslySetInnerHTML={{ __html: part.html }} />;
}
