import { useEffect, useRef, useState, type FormEvent } from 'react';
import { feedback as rules } from '../../data/forms.json';
import { failureMessage, isOffline, request, submissionKey } from '../lib/api';
import { focusField, useForm } from '../lib/form';
import { useT } from '../lib/i18n';
import { postTo } from '../lib/site';
import { useOutbox } from '../lib/useOutbox';
import { Field } from './Field';
import { KeptNotice } from './KeptNotice';
import { FilePicker } from './FilePicker';

// SPEC §9: attachments up to 5,000,000 bytes; the banner lasts 5000 ms.
const maxAttachment = 5_000_000;
const bannerMs = 5000;
const accepted = 'image/png,image/gif,image/jpeg,application/pdf';

const empty = { feedback: '', name: '', email: '', phone: '' };

interface Props {
  errorType: string;
  // ownAddress: without the script, the form posts to the address of its
  // page, query included, where a link may have named the error
  // (/feedback-form?errorType=404) which only the script reads.
  ownAddress?: boolean;
  // onSendingChange tells a surrounding dialog to refuse closing while sending.
  onSendingChange?: (sending: boolean) => void;
}

// FeedbackForm is the feedback form of SPEC §2, shared by the
// /feedback-form page and the not-found page's dialog. Its flags are
// SPEC §4's: submitted (form.submitted), sentSuccessfully, sentFailed,
// hugeFile.
export function FeedbackForm({ errorType, ownAddress, onSendingChange }: Props) {
  const { t, lang } = useT();
  const form = useForm(rules, empty);
  const ref = useRef<HTMLFormElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [sentSuccessfully, setSentSuccessfully] = useState(false);
  const [sentFailed, setSentFailed] = useState(false);
  // failure is the server's specific reason, when it gave one.
  const [failure, setFailure] = useState('');
  const [hugeFile, setHugeFile] = useState(false);
  const [sending, setSending] = useState(false);
  // Offline, the feedback is kept on the phone (lib/outbox.ts) and the
  // form says so, then shows the success banner once it has gone.
  const outbox = useOutbox(() => setSentSuccessfully(true));

  useEffect(() => {
    if (!sentSuccessfully) return;
    const timer = setTimeout(() => setSentSuccessfully(false), bannerMs);
    return () => clearTimeout(timer);
  }, [sentSuccessfully]);

  function chooseFile(chosen: File | null) {
    // SPEC §5: a file over 5,000,000 bytes is refused and the choice cleared.
    const tooLarge = chosen !== null && chosen.size > maxAttachment;
    setHugeFile(tooLarge);
    setFile(tooLarge ? null : chosen);
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setSentSuccessfully(false);
    const invalid = form.submit();
    if (invalid) {
      focusField(ref.current, invalid);
      return;
    }
    const parts: Array<[string, string | File]> = [...Object.entries(form.values), ['errorType', errorType]];
    if (file) parts.push(['attachment', file]);
    const body = new FormData();
    for (const [k, v] of parts) body.append(k, v);
    const submission = [parts, file?.size]; // a File is {} in JSON
    const done = () => {
      setSentFailed(false);
      form.reset();
      setFile(null);
      setHugeFile(false);
    };
    setSending(true);
    onSendingChange?.(true);
    try {
      await request('/api/error_feedback', { body, submission });
      done();
      setSentSuccessfully(true);
    } catch (err) {
      if (isOffline(err)) {
        try {
          // Kept with the key it was sent with: however often it is sent
          // again, by the page or the worker, it is stored once.
          await outbox.keep({ id: submissionKey('/api/error_feedback', submission), path: '/api/error_feedback', form: parts });
          return done();
        } catch {
          // No IndexedDB (some private modes): the form needs a connection.
        }
      }
      setSentFailed(true);
      setFailure(failureMessage(err, ''));
    } finally {
      setSending(false);
      onSendingChange?.(false);
    }
  }

  return (
    <form ref={ref} className="form" {...(ownAddress ? { method: 'post' } : postTo(lang, '/feedback-form'))} encType="multipart/form-data" noValidate onSubmit={submit} aria-busy={sending}>
      <input type="hidden" name="errorType" value={errorType} />
      {outbox.kept && !sentSuccessfully && <KeptNotice />}
      {sentSuccessfully && (
        <div className="notice ok" role="status">
          <p>{t('feedback.success')}</p>
        </div>
      )}
      {sentFailed && (
        <div className="notice bad" role="alert">
          <p className="notice-title">{t('feedback.failure')}</p>
          {failure && <p>{t(failure)}</p>}
        </div>
      )}
      <Field label={t('feedback.feedback')} multiline {...form.field('feedback')} />
      <FilePicker
        label={t('feedback.attachment')}
        hint={t('feedback.attachmentHint')}
        name="attachment"
        accept={accepted}
        error={hugeFile ? 'feedback.errors.fileTooLarge' : ''}
        file={file}
        onChange={chooseFile}
      />
      <Field label={t('feedback.name')} autoComplete="name" {...form.field('name')} />
      <Field label={t('feedback.email')} type="email" autoComplete="email" {...form.field('email')} />
      <Field label={t('feedback.phone')} type="tel" inputMode="numeric" autoComplete="tel-national" {...form.field('phone')} />
      <button type="submit" className="button" disabled={sending}>
        {sending ? t('feedback.sending') : t('feedback.send')}
      </button>
    </form>
  );
}
