import type { ReactNode } from 'react';
import { useT } from '../lib/i18n';
import type { Lang } from '../lib/site';
import { Footer } from './Footer';
import { Nav } from './Nav';

interface Props {
  lang: Lang;
  route: string;
  languageSelector: boolean;
  year: number;
  children: ReactNode;
}

// Layout is the common frame of SPEC §2 around every screen.
export function Layout({ lang, route, languageSelector, year, children }: Props) {
  const { t } = useT();
  return (
    <>
      <a className="skip-link" href="#main">
        {t('nav.skip')}
      </a>
      <Nav lang={lang} route={route} languageSelector={languageSelector} />
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <Footer lang={lang} year={year} />
    </>
  );
}
