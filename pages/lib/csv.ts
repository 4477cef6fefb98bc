// CSV for spreadsheets, written in the browser (the import check's error
// list). formulaSafe follows OWASP's advice on CSV injection exactly as
// internal/csvsafe does for the files the server and the commands write
// (a Go test runs both on one table): a cell that starts, after any
// spaces, tabs or line breaks, with =, +, - or @, or that starts with a
// tab or a carriage return, gets a single quote first, so a spreadsheet
// shows it instead of running it; a plain number such as -250.75 stays.

const plainNumber = /^[+-]?[0-9][0-9,]*(?:\.[0-9]+)?$/;

// formulaSafe is v, or v after a single quote where a spreadsheet would
// read v as a formula.
export function formulaSafe(v: string): string {
  const start = v.replace(/^[ \t\r\n]+/, '');
  const formula = v.startsWith('\t') || v.startsWith('\r') || (start !== '' && '=+-@'.includes(start[0]));
  return formula && !plainNumber.test(start) ? `'${v}` : v;
}

// csvCell is v as one CSV cell: formula-safe, and quoted where it holds a
// quote, a comma or a line break.
export function csvCell(v: string): string {
  const safe = formulaSafe(v);
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
