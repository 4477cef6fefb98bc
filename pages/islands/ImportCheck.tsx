import { useEffect, useRef, useState, type FormEvent } from 'react';
import { FilePicker } from '../components/FilePicker';
import { ApiError, request } from '../lib/api';
import { useT } from '../lib/i18n';

// Problem and Report are the JSON of receivables.Problem and
// receivables.Report, as POST /api/import/validate answers them.
interface Problem {
  line: number;
  column?: number;
  columnId?: string;
  value?: string;
  rule: string;
  limit?: number;
  found?: number;
}

interface Report {
  file: string;
  valid: boolean;
  rows: number;
  errorCount: number;
  errors: Problem[];
  omittedErrors: number;
  warnings?: Problem[];
}

type State = { step: 'idle' } | { step: 'checking' } | { step: 'checked'; report: Report } | { step: 'failed'; message: string };

interface Props {
  maxFileBytes: number;
}

// ImportCheck uploads the clerk's CSV file to the same validator as
// `freightsite csv validate` and shows its errors in a table.
export default function ImportCheck({ maxFileBytes }: Props) {
  const { t } = useT();
  const [state, setState] = useState<State>({ step: 'idle' });

  async function check(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const file = (event.currentTarget.elements.namedItem('file') as HTMLInputElement).files?.[0];
    if (!file) return setState({ step: 'failed', message: t('importFormat.check.noFile') });
    if (file.size > maxFileBytes) return setState({ step: 'failed', message: t('importFormat.check.tooLarge') });
    setState({ step: 'checking' });
    const body = new FormData();
    body.append('file', file);
    try {
      setState({ step: 'checked', report: await request<Report>('/api/import/validate', { body }) });
    } catch (err) {
      const status = err instanceof ApiError ? err.status : 0;
      const key = status === 413 ? 'tooLarge' : status === 429 ? 'tooMany' : 'failed';
      setState({ step: 'failed', message: t(`importFormat.check.${key}`) });
    }
  }

  const reason = (p: Problem) => t(`importFormat.rules.${p.rule}`, { count: (p.rule === 'columns' ? p.found : p.limit) ?? 0 });
  const column = (p: Problem) =>
    p.columnId ? `${p.column}. ${t(`importFormat.columns.${p.columnId}`)}` : t(p.line === 0 ? 'importFormat.check.wholeFile' : 'importFormat.check.wholeRow');

  return (
    <div className="import-check">
      <form onSubmit={check}>
        <FilePicker label={t('importFormat.check.file')} name="file" accept=".csv,text/csv" />
        <button type="submit" className="button" disabled={state.step === 'checking'}>
          {t('importFormat.check.submit')}
        </button>
      </form>
      <div role="status" className="import-status">
        {state.step === 'checking' && <p>{t('importFormat.check.checking')}</p>}
      </div>
      {state.step === 'failed' && (
        <p className="import-failed" role="alert">
          {state.message}
        </p>
      )}
      {state.step === 'checked' && <Outcome report={state.report} reason={reason} column={column} />}
    </div>
  );
}

interface OutcomeProps {
  report: Report;
  reason: (p: Problem) => string;
  column: (p: Problem) => string;
}

// Outcome shows one report. It takes the focus when it appears, so
// keyboard and screen reader users land on it (a failure is announced by
// its role=alert instead).
function Outcome({ report, reason, column }: OutcomeProps) {
  const { t } = useT();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [report]);
  const name = report.file || 'CSV';
  return (
    <div className={report.valid ? 'import-outcome valid' : 'import-outcome invalid'} data-valid={report.valid}>
      <h3 ref={heading} tabIndex={-1}>
        {t(report.valid ? 'importFormat.check.validTitle' : 'importFormat.check.invalidTitle', { name })}
      </h3>
      <p>
        {report.rows === 0 && report.valid ? t('importFormat.check.noRows') : t('importFormat.check.rows', { count: report.rows })}
        {!report.valid && ' ' + t('importFormat.check.errors', { count: report.errorCount })}
      </p>
      {(report.warnings ?? []).map((w) => (
        <p key={w.rule} className="import-warning">
          <strong>{t('importFormat.check.warning')}:</strong> {reason(w)}
        </p>
      ))}
      {report.errors.length > 0 && (
        <table className="import-errors">
          <caption>{t('importFormat.check.tableCaption', { name })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('importFormat.check.line')}</th>
              <th scope="col">{t('importFormat.check.column')}</th>
              <th scope="col">{t('importFormat.check.value')}</th>
              <th scope="col">{t('importFormat.check.reason')}</th>
            </tr>
          </thead>
          <tbody>
            {report.errors.map((p, i) => (
              <tr key={i}>
                <td>{p.line || '—'}</td>
                <td>{column(p)}</td>
                <td>{p.value ? <code>{p.value}</code> : ''}</td>
                <td>{reason(p)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {report.omittedErrors > 0 && <p>{t('importFormat.check.omitted', { count: report.omittedErrors })}</p>}
    </div>
  );
}
