// The client bundle's entry, loaded only by pages that contain an island
// (and by the boot script on a tenant's host). It fetches the page
// language's translations (SPEC §7), then hydrates each [data-island] and
// [data-lazy-island] element with the component of the same name.
import { createElement, useEffect, type ComponentType, type ReactNode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { createTranslator, I18nContext, type Messages } from './lib/i18n';
import { language, type Lang } from './lib/site';

// Hydrated marks its island once React has hydrated and committed it, so
// tests (and anyone curious) can tell a live island from static HTML.
function Hydrated({ el, children }: { el: HTMLElement; children: ReactNode }) {
  useEffect(() => {
    el.dataset.hydrated = 'true';
  }, [el]);
  return children;
}

async function start() {
  const elements = [...document.querySelectorAll<HTMLElement>('[data-island], [data-lazy-island]')];
  if (elements.length === 0) return;
  const lang = (document.documentElement.dataset.lang ?? 'en') as Lang;
  const messages = fetch(`/assets/i18n/${lang}.json`).then((r) => {
    if (!r.ok) throw new Error(`loading translations for ${lang}: HTTP ${r.status}`);
    return r.json() as Promise<Messages>;
  });
  const modules = elements.map((el) => import(`./islands/${el.dataset.island ?? el.dataset.lazyIsland}.tsx`) as Promise<{ default: ComponentType<object> }>);
  const translator = createTranslator(lang, await messages, language(lang).htmlLang);
  await Promise.all(
    elements.map(async (el, i) => {
      const { default: Component } = await modules[i];
      const props = JSON.parse(el.dataset.props ?? '{}') as object;
      hydrateRoot(el, createElement(I18nContext.Provider, { value: translator }, createElement(Hydrated, { el }, createElement(Component, props))));
    }),
  );
}

start().catch((err) => console.error('starting islands:', err));
