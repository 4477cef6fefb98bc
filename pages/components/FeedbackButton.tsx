import { useState } from 'react';
import { useT } from '../lib/i18n';
import { settings } from '../lib/site';
import { Dialog, useDialog } from './Dialog';
import { FeedbackForm } from './FeedbackForm';

// FeedbackButton is the not-found screen's 'Send feedback' button and the
// dialog it opens, with the feedback form and errorType set (SPEC §2).
export function FeedbackButton({ errorType }: { errorType: string }) {
  const { t } = useT();
  const dialog = useDialog('feedback-dialog');
  const [sending, setSending] = useState(false);
  return (
    <>
      <button type="button" className="button" onClick={() => dialog.open()} data-opens="feedback-dialog">
        {t('notFound.sendFeedback')}
      </button>
      <Dialog control={dialog} title={t('feedback.title', { name: settings.provider.name })} disableClose={sending}>
        <FeedbackForm errorType={errorType} onSendingChange={setSending} />
      </Dialog>
    </>
  );
}
