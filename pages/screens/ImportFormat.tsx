import FileSpreadsheet from 'lucide-react/icons/file-spreadsheet';
import format from '../../data/receivables-schema.json';
import { NoScriptNotice } from '../components/NoScriptNotice';
import { PageHead } from '../components/PageHead';
import ImportCheck from '../islands/ImportCheck';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';

type Column = (typeof format.columns)[number];

// how lists the paragraphs of "How the file is read", in order.
const how = ['heading', 'order', 'quotes', 'encoding', 'amounts', 'reject'] as const;

// ImportFormat is the import format help of SPEC §2: the 25 columns of
// SPEC §3 as the Go schema (receivables.Format, written to
// data/receivables-schema.json) describes them, the sample file the build
// writes from the same schema, and a checker for the clerk's own file.
export function ImportFormat() {
  const { t } = useT();
  const limit = (c: Column) => {
    switch (c.kind) {
      case 'text':
      case 'postalCode':
        return t(`importFormat.limits.${c.kind}`, { count: c.maxLength ?? 0 });
      case 'amount':
        return t('importFormat.limits.amount', { count: format.amountDecimals });
      case 'country':
      case 'state':
        return t(`importFormat.limits.${c.kind}`);
      default:
        return t(`importFormat.limits.${c.kind}`, { count: c.length ?? 0 });
    }
  };
  return (
    <>
      <PageHead title={t('importFormat.title')} lead={t('importFormat.intro')} icon={FileSpreadsheet} kind="compact" />
      <section className="import-format" aria-label={t('importFormat.title')}>
      <h2>{t('importFormat.howTitle')}</h2>
      <ul className="import-rules">
        {how.map((key) => (
          <li key={key}>{t(`importFormat.how.${key}`)}</li>
        ))}
      </ul>
      <p>
        <a className="button secondary" href={format.sampleFile} download="receivables-import-sample.csv">
          {t('importFormat.sampleLink')}
        </a>
      </p>
      <h2>{t('importFormat.columnsTitle')}</h2>
      <table className="import-columns">
        <caption className="visually-hidden">{t('importFormat.tableCaption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('importFormat.headers.number')}</th>
            <th scope="col">{t('importFormat.headers.column')}</th>
            <th scope="col">{t('importFormat.headers.rules')}</th>
            <th scope="col">{t('importFormat.headers.example')}</th>
          </tr>
        </thead>
        <tbody>
          {format.columns.map((c, i) => (
            <tr key={c.id}>
              <td>{i + 1}</td>
              <th scope="row">{t(`importFormat.columns.${c.id}`)}</th>
              <td>
                <strong className={c.required ? 'required' : 'optional'}>{t(c.required ? 'importFormat.required' : 'importFormat.optional')}</strong>
                {'. '}
                {limit(c)}
              </td>
              <td>
                <code>{c.example}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>{t('importFormat.exampleTitle')}</h2>
      <pre className="example-line">
        <code>{format.exampleRow}</code>
      </pre>
      <h2>{t('importFormat.checkTitle')}</h2>
      <p>{t('importFormat.checkIntro')}</p>
      <Island name="ImportCheck" component={ImportCheck} props={{ maxFileBytes: format.maxFileBytes }} />
      <NoScriptNotice />
      </section>
    </>
  );
}
