// React's part of the client (client.tsx loads it once the page has
// painted): hydrates each island element with its component, inside the
// translator of the page's language.
import { createElement, startTransition, useEffect, type ComponentType, type ReactNode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { createTranslator, I18nContext, type Messages } from './lib/i18n';
import { language, type Lang } from './lib/site';

// Hydrated marks its island once React has hydrated and committed it, so
// tests (and anyone curious) can tell a live island from static HTML.
function Hydrated({ el, children }: { el: HTMLElement; children?: ReactNode }) {
  useEffect(() => {
    el.dataset.hydrated = 'true';
  }, [el]);
  return children;
}

// hydrateIslands hydrates elements[i] with the default export of
// islands[i], each as soon as its code is there.
export async function hydrateIslands(lang: Lang, messages: Promise<Messages>, elements: HTMLElement[], islands: Promise<{ default: ComponentType<object> }>[]) {
  const translator = createTranslator(lang, await messages, language(lang).htmlLang);
  await Promise.all(
    elements.map(async (el, i) => {
      const { default: Component } = await islands[i];
      const props = JSON.parse(el.dataset.props ?? '{}') as object;
      // In a transition React hydrates in slices of a few milliseconds,
      // yielding to the browser in between, so a slow phone never sees one
      // long task; input that arrives meanwhile hydrates its island first.
      startTransition(() => {
        hydrateRoot(el, createElement(I18nContext.Provider, { value: translator }, createElement(Hydrated, { el }, createElement(Component, props))));
      });
    }),
  );
}
