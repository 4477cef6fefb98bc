// The network's key figures, which the generator reads at build time
// (generator/figures.go): member accounts, member profiles, news items and
// languages; a count the build could not read is left out. KEY_FIGURES
// holds them (JSON): a global the generator sets before the server bundle
// runs, not a constant compiled into it, so a new news item changes the
// pages that show the figures and no other.
declare const KEY_FIGURES: string;

export type Figures = Partial<Record<'members' | 'memberProfiles' | 'newsItems' | 'languages', number>>;

// readFigures notes that the page being rendered read the figures (the
// server entry clears it before each page and reports it).
export const readFigures = new Set<string>();

let figures: Figures | undefined;

export function keyFigures(): Figures {
  readFigures.add('figures');
  figures ??= JSON.parse(KEY_FIGURES) as Figures;
  return figures;
}
