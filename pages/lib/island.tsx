import type { ComponentType } from 'react';
import { renderToString } from 'react-dom/server.browser';
import { I18nContext, useT } from './i18n';

// The islands used by the page being rendered; the server entry clears it
// before each page and reports it, so the generator loads the client bundle
// (and React) only on pages that have an island.
export const renderedIslands = new Set<string>();

interface IslandProps<P> {
  // name is the island's file name under pages/islands/, which is how
  // pages/client.tsx finds the code to hydrate it.
  name: string;
  component: ComponentType<P>;
  props: P;
}

// Island renders an interactive component for hydration. It renders the
// component on its own (so useId values and text match what the browser
// hydrates) inside an element naming the island and carrying its props.
// Only screens use it, so renderToString never reaches the client bundle.
export function Island<P extends object>({ name, component: Component, props }: IslandProps<P>) {
  const translator = useT();
  renderedIslands.add(name);
  const html = renderToString(
    <I18nContext.Provider value={translator}>
      <Component {...props} />
    </I18nContext.Provider>,
  );
  return <div className="island" data-island={name} data-props={JSON.stringify(props)} dangerouslySetInnerHTML={{ __html: html }} />;
}
