import type { ReactNode } from 'react';
import type { Icon } from './IconCards';

// Facts is a list of labelled facts (a member's details, the provider's
// address), each label with its icon.
export function Facts({ rows }: { rows: ReadonlyArray<readonly [icon: Icon, label: string, value: ReactNode]> }) {
  return (
    <dl className="facts">
      {rows.map(([Icon, label, value]) => (
        <FactRow key={label} icon={Icon} label={label} value={value} />
      ))}
    </dl>
  );
}

function FactRow({ icon: Icon, label, value }: { icon: Icon; label: string; value: ReactNode }) {
  return (
    <>
      <dt>
        <Icon className="icon" />
        {label}
      </dt>
      <dd>{value}</dd>
    </>
  );
}
