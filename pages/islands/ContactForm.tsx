import { useRef, useState, type FormEvent } from 'react';
import { contact } from '../../data/forms.json';
import { Field } from '../components/Field';
import { KeptNotice } from '../components/KeptNotice';
import { ApiError, failureMessage, isOffline, request, submissionKey } from '../lib/api';
import { focusField, useForm, type FieldError } from '../lib/form';
import { useT } from '../lib/i18n';
import { postTo } from '../lib/site';
import { useOutbox } from '../lib/useOutbox';

interface ContactAnswer {
  status: string;
  result: string;
  errorMessageList?: FieldError[];
}

const empty = { name: '', email: '', phone: '', subject: '', message: '' };

// ContactForm sends a message to the provider (SPEC §2, §4, §5): errors
// show once a field is touched; status Success replaces the form with the
// thank-you view; anything else shows the server's result and keeps the form.
// Offline, the message is kept on the phone (lib/outbox.ts) and the form
// says so; it shows the thank-you view once the message has gone.
export default function ContactForm() {
  const { t, lang } = useT();
  const form = useForm(contact, empty);
  const ref = useRef<HTMLFormElement>(null);
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState(false);
  const [failure, setFailure] = useState('');
  const outbox = useOutbox(() => setSent(true));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const invalid = form.submit();
    if (invalid) {
      focusField(ref.current, invalid);
      return;
    }
    setSending(true);
    setFailure('');
    try {
      const answer = await request<ContactAnswer>('/api/contact_us', { json: form.values });
      if (answer.status === 'Success') setSent(true);
      else setFailure(answer.result || 'contact.result.failed');
    } catch (err) {
      if (isOffline(err)) {
        try {
          // Kept with the key it was sent with: however often it is sent
          // again, by the page or the worker, it is stored once.
          return await outbox.keep({ id: submissionKey('/api/contact_us', form.values), path: '/api/contact_us', json: form.values });
        } catch {
          // No IndexedDB (some private modes): the form needs a connection.
        }
      }
      if (err instanceof ApiError) form.setServerErrors((err.body as ContactAnswer | null)?.errorMessageList ?? []);
      setFailure(failureMessage(err, 'contact.result.failed'));
    } finally {
      setSending(false);
    }
  }

  if (sent) {
    return (
      <div className="notice ok" role="status">
        <p className="notice-title">{t('contact.sentTitle')}</p>
        <p>{t('contact.sentText')}</p>
      </div>
    );
  }
  if (outbox.kept) return <KeptNotice />;
  return (
    <form ref={ref} className="form" {...postTo(lang, '/contact-us')} noValidate onSubmit={submit} aria-busy={sending}>
      {failure && (
        <div className="notice bad" role="alert">
          <p className="notice-title">{t('contact.failedTitle')}</p>
          <p>{t(failure)}</p>
        </div>
      )}
      <div className="form-grid">
        <Field label={t('contact.name')} autoComplete="name" {...form.field('name')} />
        <Field label={t('contact.email')} type="email" autoComplete="email" {...form.field('email')} />
        <Field label={t('contact.phone')} type="tel" inputMode="numeric" autoComplete="tel-national" {...form.field('phone')} />
        <Field label={t('contact.subject')} {...form.field('subject')} />
      </div>
      <Field label={t('contact.message')} multiline {...form.field('message')} />
      <p className="form-note">{t('forms.requiredNote')}</p>
      <button type="submit" className="button" disabled={sending}>
        {sending ? t('contact.sending') : t('contact.send')}
      </button>
    </form>
  );
}
