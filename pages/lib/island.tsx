import type { ComponentType } from 'react';
import { renderToString } from 'react-dom/server.browser';
import { I18nContext, useT } from './i18n';

// The islands used by the page being rendered, the lazy ones apart; the
// server entry clears them before each page and reports them, so the
// generator loads the client bundle (and React) only on pages that have an
// island, and checks that the client has the code of each.
export const renderedIslands = new Set<string>();
export const renderedLazyIslands = new Set<string>();
// Of renderedIslands, those that hydrate on interaction (onInteraction).
export const renderedOnInteraction = new Set<string>();

// The API calls whose answers are the main content of the page being
// rendered (Island's content prop); the server entry reports them too.
export const renderedContent = new Set<string>();

interface IslandProps<P> {
  // name is the island's file name under pages/islands/, which is how
  // pages/client.tsx finds the code to hydrate it (the build fails on a
  // name that has no file there).
  name: string;
  component: ComponentType<P>;
  props: P;
  // lazy islands do not make the page load the client: they hydrate only
  // when something else loads it (another island, or the boot script on a
  // tenant's host), so a page with only lazy islands ships no JavaScript.
  lazy?: boolean;
  // content is the API call whose answer is the page's main content (the
  // news list). Such a page shows nothing worth seeing until that answer,
  // the island's code and the translations are all there, so it asks for
  // them at once, at low priority, instead of after the first paint.
  content?: string;
  // onInteraction islands are not needed at load: their server-rendered
  // HTML works without JavaScript, so React and their code load only once
  // the visitor first moves the pointer, touches, scrolls or presses a key
  // on the page (client.tsx), and a page that only reads costs no script
  // work. atOnce (a RegExp source) names the paths where such an island
  // is needed at load after all.
  onInteraction?: { atOnce?: string };
}

// Island renders an interactive component for hydration. It renders the
// component on its own (so useId values and text match what the browser
// hydrates) inside an element naming the island and carrying its props.
// Only screens use it, so renderToString never reaches the client bundle.
export function Island<P extends object>({ name, component: Component, props, lazy, content, onInteraction }: IslandProps<P>) {
  const translator = useT();
  (lazy ? renderedLazyIslands : renderedIslands).add(name);
  if (onInteraction) renderedOnInteraction.add(name);
  if (content) renderedContent.add(content);
  const html = renderToString(
    <I18nContext.Provider value={translator}>
      <Component {...props} />
    </I18nContext.Provider>,
  );
  const marker = lazy ? { 'data-lazy-island': name } : { 'data-island': name };
  const deferred = onInteraction && { 'data-on-interaction': '', 'data-at-once': onInteraction.atOnce };
  return <div className="island" {...marker} {...deferred} data-props={JSON.stringify(props)} dangerouslySetInnerHTML={{ __html: html }} />;
}
