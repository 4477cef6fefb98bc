// The network's key figures, which the generator reads at build time
// (generator/figures.go): registered members (build --db), the states and
// cities the members serve, their routes and the years since 2011; a
// figure below its minimum in data/site.json (keyFigures) is left out.
// KEY_FIGURES holds them (JSON): a global the generator sets before the
// server bundle runs, not a constant compiled into it, so a new member
// changes the pages that show the figures and no other.
declare const KEY_FIGURES: string;

export type FigureKey = 'members' | 'states' | 'cities' | 'routes' | 'years';
export type Figures = Partial<Record<FigureKey, number>>;

// readFigures notes that the page being rendered read the figures (the
// server entry clears it before each page and reports it).
export const readFigures = new Set<string>();

let figures: Figures | undefined;

export function keyFigures(): Figures {
  readFigures.add('figures');
  figures ??= JSON.parse(KEY_FIGURES) as Figures;
  return figures;
}
