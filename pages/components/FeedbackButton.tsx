import { useEffect, useRef, useState } from 'react';
import { useT } from '../lib/i18n';
import { localePath, settings } from '../lib/site';
import { Dialog, useDialog } from './Dialog';
import { FeedbackForm } from './FeedbackForm';

// FeedbackButton is the not-found screen's 'Send feedback' control and the
// dialog it opens, with the feedback form and errorType set (SPEC §2).
// The page is served as a link to the feedback form page with the same
// errorType, which works without JavaScript; once the island runs, the
// link becomes the button that opens the dialog (taking the focus if the
// link had it: the island may come to life under a keyboard visitor).
export function FeedbackButton({ errorType }: { errorType: string }) {
  const { t, lang } = useT();
  const dialog = useDialog('feedback-dialog');
  const [sending, setSending] = useState(false);
  const [live, setLive] = useState(false);
  const link = useRef<HTMLAnchorElement>(null);
  const linkHadFocus = useRef(false);
  useEffect(() => {
    linkHadFocus.current = document.activeElement === link.current;
    setLive(true);
  }, []);
  const takeFocus = (button: HTMLButtonElement | null) => {
    if (button && linkHadFocus.current) {
      linkHadFocus.current = false;
      button.focus();
    }
  };
  return (
    <>
      {live ? (
        <button ref={takeFocus} type="button" className="button" onClick={() => dialog.open()} data-opens="feedback-dialog">
          {t('notFound.sendFeedback')}
        </button>
      ) : (
        <a ref={link} className="button" href={`${localePath(lang, '/feedback-form')}?errorType=${encodeURIComponent(errorType)}`}>
          {t('notFound.sendFeedback')}
        </a>
      )}
      <Dialog control={dialog} title={t('feedback.title', { name: settings.provider.name })} disableClose={sending}>
        <FeedbackForm errorType={errorType} onSendingChange={setSending} />
      </Dialog>
    </>
  );
}
