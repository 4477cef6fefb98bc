// Monogram shows a person's or company's initials in a brand tile, the
// picture of a member who has no logo. Decorative: the name is written
// beside it.
export function Monogram({ name, className }: { name: string; className?: string }) {
  return (
    <span className={className ? `monogram ${className}` : 'monogram'} aria-hidden="true">
      {initials(name)}
    </span>
  );
}

// initials are the first letters of the first and last words of a name.
function initials(name: string): string {
  const words = name.trim().split(/\s+/);
  const first = [...words[0]][0] ?? '';
  const last = words.length > 1 ? ([...words[words.length - 1]][0] ?? '') : '';
  return (first + last).toUpperCase();
}
