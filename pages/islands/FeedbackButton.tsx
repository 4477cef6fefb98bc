import { useRef } from 'react';
import { useT } from '../lib/i18n';
import { settings } from '../lib/site';

interface Props {
  errorType: string;
}

// FeedbackButton is the 'Send feedback' button of the not-found screen: it
// opens the feedback dialog with errorType set (SPEC §2).
export default function FeedbackButton({ errorType }: Props) {
  const { t } = useT();
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button type="button" className="button" onClick={() => dialog.current?.showModal()}>
        {t('notFound.sendFeedback')}
      </button>
      <dialog ref={dialog} className="dialog" aria-labelledby="feedback-title" data-error-type={errorType}>
        <h2 id="feedback-title">{t('feedback.title', { name: settings.provider.name })}</h2>
        <form method="dialog">
          <button type="submit" className="button secondary">
            {t('feedback.close')}
          </button>
        </form>
      </dialog>
    </>
  );
}
