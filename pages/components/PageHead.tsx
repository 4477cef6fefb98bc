import type { ComponentType, ReactNode } from 'react';

interface Props {
  title: string;
  lead?: string;
  // icon is a lucide icon standing for the page (rendered at build time).
  icon?: ComponentType<{ className?: string }>;
  // kind sets the band's look: a content page's band is tall, with the
  // page's own picture (its icon, drawn large in rings) beside the text on
  // wide screens; a compact band (forms, legal texts, the import format)
  // puts the icon beside a smaller heading, so the form or text starts
  // high on the screen.
  kind?: 'content' | 'compact';
  children?: ReactNode;
}

// PageHead is the title band that opens every screen but the home page:
// the page's icon, its heading and its opening paragraph, full width.
export function PageHead({ title, lead, icon: Icon, kind = 'content', children }: Props) {
  return (
    <header className={`page-head ${kind}`}>
      <div className="page-head-text">
        {Icon && (
          <span className="page-head-icon">
            <Icon className="icon" />
          </span>
        )}
        <h1>{title}</h1>
        {lead && <p className="lead">{lead}</p>}
        {children}
      </div>
      {kind === 'content' && Icon && (
        <span className="page-head-art" aria-hidden="true">
          <Icon className="icon" />
        </span>
      )}
    </header>
  );
}
