import { useEffect, useRef, useState, type FormEvent } from 'react';
import { FilePicker } from '../components/FilePicker';
import { ApiError, request } from '../lib/api';
import { csvCell } from '../lib/csv';
import { useT, type Translator } from '../lib/i18n';
import { language } from '../lib/site';

// Problem, Group and Report are the JSON of receivables.Problem,
// receivables.Group and receivables.Report, as POST /api/import/validate
// answers them.
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
  summary?: Group[];
}

type State =
  | { step: 'idle'; note?: string }
  | { step: 'sending'; sent: number; abort: AbortController }
  | { step: 'checked'; report: Report }
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
// column, and the whole list as a CSV file to open next to the file.
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
      setState({ step: 'checked', report });
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
      <form onSubmit={check}>
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
      {state.step === 'checked' && <Outcome report={state.report} />}
    </div>
  );
}

// locale is the page language's number format: Indian grouping of digits
// (13,48,942) in all three languages, with the digits 0-9 that Excel
// shows (Marathi's own default is Devanagari digits).
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
  const rule = (r: string, p: Problem) => t(`importFormat.rules.${r}`, { count: (r === 'columns' ? p.found : p.limit) ?? 0 });
  return {
    n,
    name,
    // problem says what is wrong with a value or row.
    problem: (p: Problem) => [p.rule, ...(p.also ?? [])].map((r) => rule(r, p)).join('; '),
    // instead says what to type instead, when that is known.
    instead: (p: Problem) =>
      !p.suggestion ? '' : p.rule === 'required' && p.suggestion === '0' ? t('importFormat.check.typeZero') : t('importFormat.check.typeInstead', { value: p.suggestion }),
    // where names a problem's column as Excel does ("S: Days 1-15").
    where: (p: Problem) =>
      p.columnLetter ? `${p.columnLetter}${p.columnId ? ': ' + name(p.columnId) : ''}` : t(p.line === 0 ? 'importFormat.check.wholeFile' : 'importFormat.check.wholeRow'),
    // cause says what is wrong with the whole file and what to do.
    cause: (p: Problem) => {
      const separators: Record<string, string> = { ';': 'semicolon', '\t': 'tab', '|': 'pipe' };
      const rows = p.lastRow && p.lastRow !== p.row ? `${n(p.row)}–${n(p.lastRow)}` : n(p.row);
      const count = p.rule === 'linesAboveHeading' || p.rule === 'headingMissing' ? (p.lastRow ?? 0) - (p.row ?? 0) + 1 : (p.count ?? 0);
      return t(`importFormat.causes.${p.rule}`, {
        count,
        n: n(p.count),
        row: n(p.row),
        rows,
        value: p.value ?? '',
        letter: p.columnLetter ?? '',
        name: name(p.columnId),
        target: columnLetter(p.limit ?? 0),
        found: n(p.found),
        columns: p.found === 26 ? 'Z' : `Z–${columnLetter(p.found ?? 0)}`,
        sep: t(`importFormat.separators.${separators[p.value ?? ''] ?? 'pipe'}`),
      });
    },
    group: (g: Group) => {
      const cols = g.columns ?? [];
      const label = (c: { letter: string; id: string }) => `${c.letter}: ${name(c.id)}`;
      return {
        columns: cols.length === 0 ? t('importFormat.check.wholeRow') : cols.length === 1 ? label(cols[0]) : `${label(cols[0])} … ${label(cols[cols.length - 1])}`,
        problem: t(`importFormat.summary.${g.rule}`, { count: g.count, n: n(g.count), limit: g.limit ?? 0 }),
        rows: g.rows.map(n).join(', '),
      };
    },
  };
}

// Outcome shows one report. It takes the focus when it appears, so
// keyboard and screen reader users land on it (a failure is announced by
// its role=alert instead).
function Outcome({ report }: { report: Report }) {
  const { t, lang } = useT();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [report]);
  const say = texts(t, lang);
  const name = report.file || 'CSV';
  const counts = [report.rows === 0 && report.valid ? t('importFormat.check.noRows') : t('importFormat.check.rows', { count: report.rows, n: say.n(report.rows) })];
  if (report.causes.length > 0) counts.push(t('importFormat.check.causes', { count: report.causes.length, n: say.n(report.causes.length) }));
  if (report.errorCount > 0) counts.push(t('importFormat.check.errors', { count: report.errorCount, n: say.n(report.errorCount) }));
  return (
    <div className={report.valid ? 'import-outcome valid' : 'import-outcome invalid'} data-valid={report.valid}>
      <h3 ref={heading} tabIndex={-1}>
        {t(report.valid ? 'importFormat.check.validTitle' : 'importFormat.check.invalidTitle', { name })}
      </h3>
      <p>{counts.join(' ')}</p>
      {report.causes.length > 0 && (
        <section className="import-causes">
          <h4>{t('importFormat.check.causesTitle')}</h4>
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
      {report.errors.length > 0 && (
        <>
          <table className="import-errors">
            <caption>{t('importFormat.check.tableCaption', { name })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('importFormat.check.row')}</th>
                <th scope="col">{t('importFormat.check.column')}</th>
                <th scope="col">{t('importFormat.check.value')}</th>
                <th scope="col">{t('importFormat.check.reason')}</th>
              </tr>
            </thead>
            <tbody>
              {report.errors.slice(0, tableRows).map((p, i) => (
                <tr key={i}>
                  <td>{p.row ? say.n(p.row) : '—'}</td>
                  <td>{say.where(p)}</td>
                  <td>{p.value ? <code>{p.value}</code> : ''}</td>
                  <td>
                    {say.problem(p)}
                    {p.suggestion && <strong className="import-instead"> {say.instead(p)}</strong>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {report.errors.length > tableRows && <p>{t('importFormat.check.shown', { shown: say.n(tableRows), n: say.n(report.errors.length) })}</p>}
        </>
      )}
      {report.omittedErrors > 0 && <p>{t('importFormat.check.omitted', { count: report.omittedErrors, n: say.n(report.omittedErrors) })}</p>}
    </div>
  );
}

// download saves the report's causes and errors as a CSV file for Excel
// (UTF-8 with a byte order mark, CRLF), in the page's language.
function download(report: Report, t: Translator['t'], say: ReturnType<typeof texts>) {
  const heading = ['row', 'columnLetter', 'column', 'value', 'problem', 'suggestion'].map((k) => t(`importFormat.check.csv.${k}`));
  const rows = [
    heading,
    ...report.causes.map((p) => [p.row ? String(p.row) : '', p.columnLetter ?? '', say.name(p.columnId), p.value ?? '', say.cause(p), '']),
    ...report.errors.map((p) => [String(p.row ?? ''), p.columnLetter ?? '', say.name(p.columnId), p.value ?? '', say.problem(p), p.suggestion ?? '']),
  ];
  const text = '\ufeff' + rows.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `${(report.file || 'file').replace(/\.[^.]*$/, '')}-errors.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
