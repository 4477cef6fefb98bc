import { useEffect, useRef, useState, type FormEvent } from 'react';
import { unsubscribe as rules } from '../../data/forms.json';
import { Field } from '../components/Field';
import { failureMessage, request } from '../lib/api';
import { check, focusField, useForm } from '../lib/form';
import { useT } from '../lib/i18n';
import { settings } from '../lib/site';

// The message a visitor wrote in the FAQ's unsubscribe box arrives as the
// reason parameter (screens/Faq.tsx). It is taken out of the address at
// once and kept for the tab in session storage under this key (a reload
// still has it) until it is sent or the visitor removes it.
const reasonKey = 'unsubscribeReason';
const reasonRule = rules.find((r) => r.field === 'reason')!;

function keepReason(reason: string) {
  try {
    if (reason) sessionStorage.setItem(reasonKey, reason);
    else sessionStorage.removeItem(reasonKey);
  } catch {
    // No session storage: the message stays for this page view only.
  }
}

function carriedReason(): string {
  const params = new URLSearchParams(location.search);
  const given = params.get('reason');
  if (given === null) {
    try {
      return sessionStorage.getItem(reasonKey) ?? '';
    } catch {
      return '';
    }
  }
  params.delete('reason');
  const rest = params.toString();
  history.replaceState(history.state, '', location.pathname + (rest ? '?' + rest : '') + location.hash);
  // A form sends its textarea's line breaks as CR LF: kept as typed, LF.
  const reason = given.replace(/\r\n?/g, '\n').trim();
  keepReason(reason);
  return reason;
}

// Unsubscribe is the one-field form of SPEC §2: shown until the server
// answers "success", then replaced by the success notice; any other answer
// shows the failure notice with the server's text and keeps the form. The
// notice keeps SPEC §8's words and adds that account mail still comes (the
// opt-out stops list mail only). A message carried from the FAQ shows
// above the field, quoted as it will be sent (the call's reason), with a
// button that leaves it out.
export default function Unsubscribe() {
  const { t } = useT();
  const form = useForm(rules, { emailId: '' });
  const ref = useRef<HTMLFormElement>(null);
  const [sending, setSending] = useState(false);
  const [done, setDone] = useState(false);
  // failure is null until a call fails, then the server's text (or '').
  const [failure, setFailure] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const removeReason = useRef<HTMLButtonElement>(null);
  useEffect(() => setReason(carriedReason()), []);
  const reasonError = reason ? check(reasonRule, reason) : '';

  async function submit(e: FormEvent) {
    e.preventDefault();
    const invalid = form.submit();
    if (invalid) {
      focusField(ref.current, invalid);
      return;
    }
    if (reasonError) {
      removeReason.current?.focus();
      return;
    }
    setSending(true);
    setFailure(null);
    try {
      const answer = await request<string>('/api/unsubscribe', { json: reason ? { emailId: form.values.emailId, reason } : { emailId: form.values.emailId } });
      if (String(answer).trim() === 'success') {
        keepReason('');
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
    <form ref={ref} className="form narrow-form" noValidate onSubmit={submit} aria-busy={sending}>
      {failure !== null && (
        <div className="notice bad" role="alert">
          <p className="notice-title">{t('unsubscribe.failure')}</p>
          {failure && <p>{t(failure)}</p>}
        </div>
      )}
      {reason && (
        <figure className="carried-reason">
          <figcaption>{t('unsubscribe.reasonTitle')}</figcaption>
          <blockquote>{reason}</blockquote>
          {reasonError && (
            <p className="field-error">
              {t(reasonError)}
            </p>
          )}
          <button
            type="button"
            ref={removeReason}
            className="link-button"
            onClick={() => {
              keepReason('');
              setReason('');
            }}
          >
            {t('unsubscribe.reasonRemove')}
          </button>
        </figure>
      )}
      <Field label={t('unsubscribe.email')} type="email" autoComplete="email" {...form.field('emailId')} />
      <button type="submit" className="button" disabled={sending}>
        {sending ? t('unsubscribe.sending') : t('unsubscribe.button')}
      </button>
    </form>
  );
}
