import { useRef, useState, type FormEvent } from 'react';
import { unsubscribe as rules } from '../../data/forms.json';
import { Field } from '../components/Field';
import { failureMessage, request } from '../lib/api';
import { focusField, useForm } from '../lib/form';
import { useT } from '../lib/i18n';
import { postTo, settings } from '../lib/site';

// Unsubscribe is the one-field form of SPEC §2: shown until the server
// answers "success", then replaced by the success notice; any other answer
// shows the failure notice with the server's text and keeps the form. The
// notice keeps SPEC §8's words and adds that account mail still comes (the
// opt-out stops list mail only). The FAQ's message box posts to the API,
// which answers an unsubscribe form of its own with the message in it
// (formapi/formposts.go): no message ever passes through an address.
export default function Unsubscribe() {
  const { t, lang } = useT();
  const form = useForm(rules, { emailId: '' });
  const ref = useRef<HTMLFormElement>(null);
  const [sending, setSending] = useState(false);
  const [done, setDone] = useState(false);
  // failure is null until a call fails, then the server's text (or '').
  const [failure, setFailure] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const invalid = form.submit();
    if (invalid) {
      focusField(ref.current, invalid);
      return;
    }
    setSending(true);
    setFailure(null);
    try {
      const answer = await request<string>('/api/unsubscribe', { json: { emailId: form.values.emailId } });
      if (String(answer).trim() === 'success') {
        setDone(true);
      } else {
        setFailure(String(answer));
      }
    } catch (err) {
      setFailure(failureMessage(err, ''));
    } finally {
      setSending(false);
    }
  }

  if (done) {
    return (
      <div className="notice ok" role="status">
        <p className="notice-title">{t('unsubscribe.successTitle')}</p>
        <p>{t('unsubscribe.successText', { name: settings.name })}</p>
        <p>{t('unsubscribe.successNote')}</p>
      </div>
    );
  }
  return (
    <form ref={ref} className="form narrow-form" {...postTo(lang, '/unsubscribe')} noValidate onSubmit={submit} aria-busy={sending}>
      {failure !== null && (
        <div className="notice bad" role="alert">
          <p className="notice-title">{t('unsubscribe.failure')}</p>
          {failure && <p>{t(failure)}</p>}
        </div>
      )}
      <Field label={t('unsubscribe.email')} type="email" autoComplete="email" {...form.field('emailId')} />
      <button type="submit" className="button" disabled={sending}>
        {sending ? t('unsubscribe.sending') : t('unsubscribe.button')}
      </button>
    </form>
  );
}
