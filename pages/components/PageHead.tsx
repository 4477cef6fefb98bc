import type { ComponentType, ReactNode } from 'react';

interface Props {
  title: string;
  lead?: string;
  // icon is a lucide icon standing for the page (rendered at build time).
  icon?: ComponentType<{ className?: string }>;
  children?: ReactNode;
}

// PageHead is the title band that opens every screen but the home page:
// the page's icon, its heading and its opening paragraph, full width.
export function PageHead({ title, lead, icon: Icon, children }: Props) {
  return (
    <header className="page-head">
      {Icon && (
        <span className="page-head-icon">
          <Icon className="icon" />
        </span>
      )}
      <h1>{title}</h1>
      {lead && <p className="lead">{lead}</p>}
      {children}
    </header>
  );
}
