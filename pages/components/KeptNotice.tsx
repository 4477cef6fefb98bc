import { useT } from '../lib/i18n';

// KeptNotice says a form's submission is kept on the phone until the
// connection returns (lib/useOutbox.ts).
export function KeptNotice() {
  const { t } = useT();
  return (
    <div className="notice note" role="status">
      <div>
        <p className="notice-title">{t('offline.queuedTitle')}</p>
        <p>{t('offline.queuedText')}</p>
      </div>
    </div>
  );
}
