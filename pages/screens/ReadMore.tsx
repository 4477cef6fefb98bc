import type { ReactNode } from 'react';
import { useT } from '../lib/i18n';

// ReadMore is text collapsed behind a Read more / Read less toggle (SPEC §2
// About us and Testimonials). It is a native <details>, so it works with no
// JavaScript and screen readers announce its state; CSS shows the label
// that fits the state.
export function ReadMore({ children }: { children: ReactNode }) {
  const { t } = useT();
  return (
    <details className="read-more">
      <summary>
        <span className="read-more-closed">{t('readMore.more')}</span>
        <span className="read-more-open">{t('readMore.less')}</span>
      </summary>
      <div className="read-more-text">{children}</div>
    </details>
  );
}
