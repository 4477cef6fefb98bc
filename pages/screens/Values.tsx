import { useT } from '../lib/i18n';

// The eleven company values of SPEC §9, in order.
const values = ['trust', 'fairPay', 'transparency', 'safety', 'dignity', 'smallOperators', 'privacy', 'emptyKm', 'reliability', 'language', 'listening'] as const;

// Values lists the company values (SPEC §2).
export function Values() {
  const { t } = useT();
  return (
    <section>
      <h1>{t('values.title')}</h1>
      <p className="lead">{t('values.intro')}</p>
      <ol className="cards numbered">
        {values.map((v) => (
          <li className="card" key={v}>
            <h2>{t(`values.items.${v}.title`)}</h2>
            <p>{t(`values.items.${v}.text`)}</p>
          </li>
        ))}
      </ol>
    </section>
  );
}
