import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { FilePicker } from '../components/FilePicker';
import { ApiError, request } from '../lib/api';
import { csvCell } from '../lib/csv';
import { useT, type Translator } from '../lib/i18n';
import { language, postTo } from '../lib/site';

// Problem, Group and Report are the JSON of receivables.Problem,
// receivables.Group and receivables.Report, as POST /api/import/validate
// answers them.
interface Column {
  column: number;
  letter: string;
  id: string;
}

interface Problem {
  line: number;
  row?: number;
  lastRow?: number;
  column?: number;
  columnLetter?: string;
  columnId?: string;
  value?: string;
  rule: string;
  also?: string[];
  limit?: number;
  found?: number;
  count?: number;
  suggestion?: string;
  char?: string;
  charAt?: number;
  charPlace?: string;
  parts?: string[];
  sameAs?: number;
  columns?: Column[];
  fix?: boolean;
  inCause?: boolean;
}

interface Group {
  rule: string;
  columns?: { letter: string; id: string }[];
  limit?: number;
  count: number;
  rows: number[];
}

interface Report {
  file: string;
  valid: boolean;
  rows: number;
  causes: Problem[];
  errorCount: number;
  errors: Problem[];
  omittedErrors: number;
  errorsInCauses: number;
  fixable: number;
  warningCount: number;
  warnings: Problem[];
  summary?: Group[];
}

type State =
  | { step: 'idle'; note?: string }
  | { step: 'sending'; sent: number; abort: AbortController }
  | { step: 'checked'; report: Report; file: File }
  | { step: 'failed'; message: string };

interface Props {
  maxFileBytes: number;
}

// tableRows is how many errors the page lists; the download has them all.
const tableRows = 100;

// ImportCheck uploads the clerk's CSV file to the same validator as
// `freightsite csv validate`, showing the upload's progress with a way to
// cancel it, then the report: the file's causes first, a summary per
// column when there are many errors, the errors with their Excel row and
// cell, the warnings, the whole list as a CSV file to open next to the
// file, and a corrected copy of the file when there is something to
// correct for certain (the same corrections as `freightsite csv fix`).
export default function ImportCheck({ maxFileBytes }: Props) {
  const { t, lang } = useT();
  const [state, setState] = useState<State>({ step: 'idle' });
  const submit = useRef<HTMLButtonElement>(null);
  // After a cancelled upload the Cancel button is gone: the focus goes
  // back to the button that starts a check.
  const cancelled = state.step === 'idle' && state.note !== undefined;
  useEffect(() => {
    if (cancelled) submit.current?.focus();
  }, [cancelled]);

  async function check(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const file = (event.currentTarget.elements.namedItem('file') as HTMLInputElement).files?.[0];
    if (!file) return setState({ step: 'failed', message: t('importFormat.check.noFile') });
    if (file.size > maxFileBytes) return setState({ step: 'failed', message: t('importFormat.check.tooLarge') });
    const abort = new AbortController();
    setState({ step: 'sending', sent: 0, abort });
    const body = new FormData();
    body.append('file', file);
    try {
      const report = await request<Report>('/api/import/validate', {
        body,
        signal: abort.signal,
        onUploadProgress: (sent, total) => setState({ step: 'sending', sent: sent / (total || file.size), abort }),
      });
      setState({ step: 'checked', report, file });
    } catch (err) {
      if (abort.signal.aborted) return setState({ step: 'idle', note: t('importFormat.check.cancelled') });
      const status = err instanceof ApiError ? err.status : 0;
      const key = status === 413 ? 'tooLarge' : status === 429 ? 'tooMany' : status === 503 ? 'busy' : 'failed';
      setState({ step: 'failed', message: t(`importFormat.check.${key}`) });
    }
  }

  const sending = state.step === 'sending';
  return (
    <div className="import-check">
      <form {...postTo(lang, '/standard-15-day-format')} onSubmit={check}>
        <FilePicker label={t('importFormat.check.file')} name="file" accept=".csv,text/csv" />
        <button ref={submit} type="submit" className="button" disabled={sending}>
          {t('importFormat.check.submit')}
        </button>
      </form>
      <div role="status" className="import-status">
        {sending && <p>{t(state.sent < 1 ? 'importFormat.check.sending' : 'importFormat.check.checking')}</p>}
        {state.step === 'idle' && state.note && <p>{state.note}</p>}
      </div>
      {sending && (
        // The share sent is shown beside the bar, not in the status above:
        // a screen reader would read out every change of a live region.
        <div className="import-progress">
          <progress max={1} value={state.sent} aria-label={t('importFormat.check.progress', { percent: percent(lang, state.sent) })} />
          <span className="import-percent">{percent(lang, state.sent)}</span>
          <button type="button" className="button secondary" onClick={() => state.abort.abort()}>
            {t('importFormat.check.cancel')}
          </button>
        </div>
      )}
      {state.step === 'failed' && (
        <p className="import-failed" role="alert">
          {state.message}
        </p>
      )}
      {state.step === 'checked' && <Outcome report={state.report} file={state.file} />}
    </div>
  );
}

// locale is the page language's number format: Indian grouping of digits
// (13,48,942) in all three languages, with the digits 0-9 that Excel
// shows (Marathi's own default is Devanagari digits). Counts are grouped;
// row numbers are not (Excel shows 186574, and Go To wants V186574).
function locale(lang: Translator['lang']): string {
  return `${language(lang).htmlLang}-IN-u-nu-latn`;
}

function percent(lang: Translator['lang'], share: number): string {
  return new Intl.NumberFormat(locale(lang), { style: 'percent' }).format(Math.min(share, 1));
}

// columnLetter is the letter Excel shows above column n (1 is A, 27 AA).
function columnLetter(n: number): string {
  let s = '';
  for (; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

// texts turns a report's problems into the page language's words.
function texts(t: Translator['t'], lang: Translator['lang']) {
  const format = new Intl.NumberFormat(locale(lang));
  const n = (x = 0) => format.format(x);
  const name = (id?: string) => (id ? t(`importFormat.columns.${id}`) : '');
  // columns names a cause's columns: "S–Y" and "Days 1-15 … Over 91 Days"
  // for a run of them, lists otherwise.
  const columns = (cols: Column[]) => {
    const last = cols[cols.length - 1];
    if (cols.length > 2 && last.column - cols[0].column === cols.length - 1) {
      return { letters: `${cols[0].letter}–${last.letter}`, names: `${name(cols[0].id)} … ${name(last.id)}` };
    }
    return { letters: cols.map((c) => c.letter).join(', '), names: cols.map((c) => name(c.id)).join(', ') };
  };
  // place says where a value's invisible character sits.
  const place = (p: Problem) => {
    if (p.charPlace === 'start' || p.charPlace === 'end') return t(`importFormat.invisiblePlace.${p.charPlace}`);
    const before = [...(p.value ?? '')].slice(Math.max(0, (p.charAt ?? 1) - 13), (p.charAt ?? 1) - 1).join('');
    return t('importFormat.invisiblePlace.after', { text: before });
  };
  const rule = (r: string, p: Problem) => {
    if (r === 'columns' && p.columns?.length) {
      const c = columns(p.columns);
      return t('importFormat.rules.columnsCut', { count: p.found ?? 0, letters: c.letters, names: c.names });
    }
    return t(`importFormat.rules.${r}`, {
      count: (['columns', 'unquotedComma', 'splitAmount'].includes(r) ? p.found : p.limit) ?? 0,
      value: p.value ?? '',
      parts: (p.parts ?? []).map((x) => `"${x}"`).join(' / '),
      rest: (p.parts ?? []).slice(1).map((x) => `"${x}"`).join(', '),
      suggestion: p.suggestion ?? '',
      char: t(`importFormat.invisibleChars.${(p.char ?? '').replace('U+', 'u').toLowerCase()}`),
      code: p.char ?? '',
      place: place(p),
    });
  };
  return {
    n,
    name,
    // problem says what is wrong with a value or row.
    problem: (p: Problem) => [p.rule, ...(p.also ?? [])].map((r) => rule(r, p)).join('; '),
    // instead says what to type instead, when that is known and the
    // problem's own words do not say it already.
    instead: (p: Problem) => {
      if (!p.suggestion || p.rule === 'unquotedComma') return '';
      if (p.rule === 'required' && p.suggestion === '0') return t('importFormat.check.typeZero');
      if (p.rule === 'shorthand') return t('importFormat.check.typeFigure', { value: p.suggestion });
      return t('importFormat.check.typeInstead', { value: p.suggestion });
    },
    // where names a problem's cell as Excel does ("S5: Days 1-15").
    where: (p: Problem) =>
      p.columnLetter
        ? `${p.columnLetter}${p.row ?? ''}${p.columnId ? ': ' + name(p.columnId) : ''}`
        : t(p.line === 0 ? 'importFormat.check.wholeFile' : 'importFormat.check.wholeRow'),
    // cause says what is wrong with the whole file and what to do.
    cause: (p: Problem) => {
      if (p.columns?.length && p.rule !== 'columns') {
        const c = columns(p.columns);
        const named = t('importFormat.check.columnsNamed', { count: p.columns.length, letters: c.letters });
        const fixKey = `importFormat.excelFix.${p.rule}`;
        const fix = t(fixKey, { columns: named });
        return t('importFormat.causes.column', {
          letters: c.letters,
          names: c.names,
          what: t(`importFormat.summary.${p.rule}`, { count: p.count ?? 0, n: n(p.count), limit: p.limit ?? 0 }),
          cell: `${p.columnLetter}${p.row}`,
          value: p.value ?? '',
          fix: fix === fixKey ? rule(p.rule, p) : fix,
        });
      }
      const separators: Record<string, string> = { ';': 'semicolon', '\t': 'tab', '|': 'pipe' };
      const rows = p.lastRow && p.lastRow !== p.row ? `${p.row}–${p.lastRow}` : String(p.row ?? '');
      const count = p.rule === 'linesAboveHeading' || p.rule === 'headingMissing' ? (p.lastRow ?? 0) - (p.row ?? 0) + 1 : (p.count ?? 0);
      return t(`importFormat.causes.${p.rule}`, {
        count,
        n: n(p.count),
        row: String(p.row ?? ''),
        rows,
        value: p.value ?? '',
        letter: p.columnLetter ?? '',
        cell: `${p.columnLetter ?? ''}${p.row ?? ''}`,
        name: name(p.columnId),
        target: columnLetter(p.limit ?? 0),
        found: n(p.found),
        columns: p.found === 26 ? 'Z' : `Z–${columnLetter(p.found ?? 0)}`,
        sep: t(`importFormat.separators.${separators[p.value ?? ''] ?? 'pipe'}`),
      });
    },
    // warning says what a warning is about.
    warning: (p: Problem) => t(`importFormat.warnings.${p.rule}`, { value: p.value ?? '', row: String(p.sameAs ?? '') }),
    group: (g: Group) => {
      const cols = g.columns ?? [];
      const label = (c: { letter: string; id: string }) => `${c.letter}: ${name(c.id)}`;
      return {
        columns: cols.length === 0 ? t('importFormat.check.wholeRow') : cols.length === 1 ? label(cols[0]) : `${label(cols[0])} … ${label(cols[cols.length - 1])}`,
        problem: t(`importFormat.summary.${g.rule}`, { count: g.count, n: n(g.count), limit: g.limit ?? 0 }),
        rows: g.rows.join(', '),
      };
    },
  };
}

// Outcome shows one report. It takes the focus when it appears, so
// keyboard and screen reader users land on it (a failure is announced by
// its role=alert instead). Its sections are regions named by their
// headings, for a screen reader's list of landmarks.
function Outcome({ report, file }: { report: Report; file: File }) {
  const { t, lang } = useT();
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [report]);
  const say = texts(t, lang);
  const name = report.file || 'CSV';
  const counts = [report.rows === 0 && report.valid ? t('importFormat.check.noRows') : t('importFormat.check.rows', { count: report.rows, n: say.n(report.rows) })];
  if (report.causes.length > 0) counts.push(t('importFormat.check.causes', { count: report.causes.length, n: say.n(report.causes.length) }));
  if (report.errorCount > 0) counts.push(t('importFormat.check.errors', { count: report.errorCount, n: say.n(report.errorCount) }));
  if (report.warningCount > 0) counts.push(t('importFormat.check.warningCount', { count: report.warningCount, n: say.n(report.warningCount) }));
  // The table lists the errors no cause says already; the download has
  // them all.
  const listed = report.errors.filter((p) => !p.inCause);
  const unlisted = report.errorCount - report.errorsInCauses - Math.min(listed.length, tableRows);
  const causesFixed = report.causes.filter((p) => p.fix).length;
  return (
    <div className={report.valid ? 'import-outcome valid' : 'import-outcome invalid'} data-valid={report.valid}>
      <h3 ref={heading} tabIndex={-1}>
        {t(report.valid ? 'importFormat.check.validTitle' : 'importFormat.check.invalidTitle', { name })}
      </h3>
      <p>{counts.join(' ')}</p>
      {report.causes.length > 0 && (
        <section className="import-causes" aria-labelledby={`${id}-causes`}>
          <h4 id={`${id}-causes`}>{t('importFormat.check.causesTitle')}</h4>
          <p>{t('importFormat.check.causesIntro')}</p>
          <ol>
            {report.causes.map((p, i) => (
              <li key={i} data-rule={p.rule}>
                {say.cause(p)}
              </li>
            ))}
          </ol>
        </section>
      )}
      {(report.fixable > 0 || causesFixed > 0) && <CorrectedCopy report={report} file={file} causes={causesFixed} />}
      {report.summary && (
        <table className="import-summary">
          <caption>{t('importFormat.check.summaryTitle')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('importFormat.check.summaryColumns')}</th>
              <th scope="col">{t('importFormat.check.summaryProblem')}</th>
              <th scope="col">{t('importFormat.check.summaryRows')}</th>
            </tr>
          </thead>
          <tbody>
            {report.summary.map((g, i) => {
              const line = say.group(g);
              return (
                <tr key={i} data-rule={g.rule}>
                  <td>{line.columns}</td>
                  <td>{line.problem}</td>
                  <td>{line.rows}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {!report.valid && report.causes.length + report.errors.length > 0 && (
        <p className="import-download">
          <button type="button" className="button secondary" onClick={() => download(report, t, say)}>
            {t('importFormat.check.download')}
          </button>{' '}
          {t('importFormat.check.downloadHint')}
        </p>
      )}
      {listed.length > 0 && (
        <>
          <table className="import-errors">
            <caption>{t('importFormat.check.tableCaption', { name })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('importFormat.check.row')}</th>
                <th scope="col">{t('importFormat.check.cell')}</th>
                <th scope="col">{t('importFormat.check.value')}</th>
                <th scope="col">{t('importFormat.check.reason')}</th>
              </tr>
            </thead>
            <tbody>
              {listed.slice(0, tableRows).map((p, i) => (
                <tr key={i}>
                  <td>{p.row ? String(p.row) : '—'}</td>
                  <td>{say.where(p)}</td>
                  <td>{p.value ? <code>{p.value}</code> : ''}</td>
                  <td>
                    {say.problem(p)}
                    {say.instead(p) && <strong className="import-instead"> {say.instead(p)}</strong>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {listed.length > tableRows && <p>{t('importFormat.check.shown', { shown: say.n(tableRows), n: say.n(listed.length) })}</p>}
        </>
      )}
      {unlisted > 0 && <p>{t('importFormat.check.omitted', { count: unlisted, n: say.n(unlisted) })}</p>}
      {report.warnings.length > 0 && (
        <section className="import-warnings" aria-labelledby={`${id}-warnings`}>
          <h4 id={`${id}-warnings`}>{t('importFormat.check.warningsTitle')}</h4>
          <p>{t('importFormat.check.warningsIntro')}</p>
          <ul>
            {report.warnings.map((p, i) => (
              <li key={i} data-rule={p.rule}>
                <strong>{t('importFormat.check.rowCell', { row: String(p.row), cell: `${p.columnLetter}${p.row}` })}</strong> {say.warning(p)}
              </li>
            ))}
          </ul>
          {report.warningCount > report.warnings.length && (
            <p>{t('importFormat.check.moreWarnings', { count: report.warningCount - report.warnings.length, n: say.n(report.warningCount - report.warnings.length) })}</p>
          )}
        </section>
      )}
    </div>
  );
}

type Copy = { step: 'idle' } | { step: 'sending' } | { step: 'done' } | { step: 'failed'; message: string };

// CorrectedCopy offers the file back with what can be corrected for
// certain corrected: POST /api/import/fix makes the copy (the one source
// of the corrections is the Go code behind `freightsite csv fix`), and the
// browser saves it beside the clerk's file.
function CorrectedCopy({ report, file, causes }: { report: Report; file: File; causes: number }) {
  const { t, lang } = useT();
  const say = texts(t, lang);
  const title = useId();
  const [copy, setCopy] = useState<Copy>({ step: 'idle' });
  async function correct() {
    setCopy({ step: 'sending' });
    const body = new FormData();
    body.append('file', file);
    try {
      const fixed = await request<Blob>('/api/import/fix', { body, file: true });
      save(fixed, `${(report.file || 'file').replace(/\.[^.]*$/, '')}-corrected.csv`);
      setCopy({ step: 'done' });
    } catch (err) {
      const status = err instanceof ApiError ? err.status : 0;
      const key = status === 413 ? 'tooLarge' : status === 429 ? 'tooMany' : status === 422 ? 'fixRefused' : 'failed';
      setCopy({ step: 'failed', message: t(`importFormat.check.${key}`) });
    }
  }
  const left = report.errorCount - report.fixable;
  return (
    <section className="import-fix" aria-labelledby={title}>
      <h4 id={title}>{t('importFormat.check.fixTitle')}</h4>
      <p>
        {t('importFormat.check.fixIntro', { count: report.fixable, n: say.n(report.fixable), causes: say.n(causes) })}{' '}
        {left > 0 || causes < report.causes.length ? t('importFormat.check.fixLeft') : t('importFormat.check.fixAll')}
      </p>
      <p>
        <button type="button" className="button" onClick={correct} disabled={copy.step === 'sending'}>
          {t('importFormat.check.fixDownload')}
        </button>
      </p>
      <div role="status">
        {copy.step === 'sending' && <p>{t('importFormat.check.fixing')}</p>}
        {copy.step === 'done' && <p>{t('importFormat.check.fixed')}</p>}
      </div>
      {copy.step === 'failed' && (
        <p className="import-failed" role="alert">
          {copy.message}
        </p>
      )}
    </section>
  );
}

// save has the browser save a file it was given.
function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// download saves the report's causes, errors and warnings as a CSV file
// for Excel (UTF-8 with a byte order mark, CRLF), in the page's language:
// every error the report lists, those a cause says too.
function download(report: Report, t: Translator['t'], say: ReturnType<typeof texts>) {
  const heading = ['row', 'columnLetter', 'column', 'value', 'problem', 'suggestion'].map((k) => t(`importFormat.check.csv.${k}`));
  const rows = [
    heading,
    ...report.causes.map((p) => [p.row ? String(p.row) : '', p.columnLetter ?? '', say.name(p.columnId), p.value ?? '', say.cause(p), '']),
    ...report.errors.map((p) => [String(p.row ?? ''), p.columnLetter ?? '', say.name(p.columnId), p.value ?? '', say.problem(p), p.suggestion ?? '']),
    ...report.warnings.map((p) => [String(p.row ?? ''), p.columnLetter ?? '', say.name(p.columnId), p.value ?? '', say.warning(p), '']),
  ];
  const text = '\ufeff' + rows.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
  save(new Blob([text], { type: 'text/csv;charset=utf-8' }), `${(report.file || 'file').replace(/\.[^.]*$/, '')}-errors.csv`);
}
