import { useRef, useState, type FormEvent } from 'react';
import { forgotPassword as rules } from '../../data/forms.json';
import { Captcha } from '../components/Captcha';
import { Field } from '../components/Field';
import { ApiError, request, isOffline } from '../lib/api';
import { focusField, useForm, type FieldError } from '../lib/form';
import { useT } from '../lib/i18n';
import { localePath, postTo } from '../lib/site';

interface ForgotAnswer {
  status: string;
  errorMessageList?: FieldError[];
}

type Warning = '' | 'general' | 'captcha' | 'username' | 'offline';

// ForgotPassword asks for a reset link (SPEC §2, §4, §5): login id and the
// security check; the submit button is disabled while sending or while the
// login id is missing, and a loading indicator shows meanwhile. Status
// "success" hides the form behind a notice that never says whether the
// account exists; an error on loginId shows the username warning, a
// missing or failed check the captcha warning, no connection the offline
// notice (the form stays), anything else (and a server failure or an
// unreadable answer, which also hide the form) the general warning.
export default function ForgotPassword() {
  const { t, lang } = useT();
  const form = useForm(rules, { loginId: '' });
  const ref = useRef<HTMLFormElement>(null);
  const [captcha, setCaptcha] = useState({ answer: '', generation: 0 });
  const [sending, setSending] = useState(false);
  const [view, setView] = useState<'form' | 'sent' | 'broken'>('form');
  const [warning, setWarning] = useState<Warning>('');

  async function submit(e: FormEvent) {
    e.preventDefault();
    const invalid = form.submit();
    if (invalid) {
      focusField(ref.current, invalid);
      return;
    }
    if (!captcha.answer) {
      setWarning('captcha');
      return;
    }
    setSending(true);
    setWarning('');
    try {
      const answer = await request<ForgotAnswer>('/api/forgot_password', {
        json: { loginId: form.values.loginId, recaptchaResponse: captcha.answer, origin: location.origin },
        submission: form.values.loginId,
      });
      if (answer.status === 'success') {
        setView('sent');
        return;
      }
      setWarning('general');
    } catch (err) {
      const list = err instanceof ApiError ? (err.body as ForgotAnswer | null)?.errorMessageList : undefined;
      if (isOffline(err)) {
        setWarning('offline'); // the form stays, to send once online
      } else if (!(err instanceof ApiError) || err.status >= 500) {
        setWarning('general');
        setView('broken');
      } else if (list?.some((i) => i.field === 'loginId')) {
        form.setServerErrors(list);
        setWarning('username');
      } else if (list?.some((i) => i.field === 'recaptchaResponse')) {
        setWarning('captcha');
      } else {
        setWarning('general');
      }
    } finally {
      setSending(false);
    }
    setCaptcha((c) => ({ answer: '', generation: c.generation + 1 }));
  }

  const notice = warning && (
    <div className="notice bad" role="alert">
      <p>{t(warning === 'offline' ? 'offline.needConnection' : `forgetPassword.warnings.${warning}`)}</p>
    </div>
  );
  if (view === 'sent') {
    return (
      <div className="notice ok" role="status">
        <p className="notice-title">{t('forgetPassword.successTitle')}</p>
        <p>{t('forgetPassword.successText')}</p>
        <p>
          <a href={localePath(lang, '/login')}>{t('forgetPassword.backToLogin')}</a>
        </p>
      </div>
    );
  }
  if (view === 'broken') {
    return (
      <div>
        {notice}
        <button type="button" className="button secondary" onClick={() => setView('form')}>
          {t('forgetPassword.tryAgain')}
        </button>
      </div>
    );
  }
  return (
    <form ref={ref} className="form narrow-form" {...postTo(lang, '/forget-password')} noValidate onSubmit={submit} aria-busy={sending}>
      {notice}
      <Field label={t('forgetPassword.loginId')} type="email" autoComplete="username" {...form.field('loginId')} />
      <Captcha generation={captcha.generation} error="" onAnswer={(answer) => setCaptcha((c) => ({ ...c, answer }))} />
      <button type="submit" className="button" disabled={sending || !form.valid}>
        {t('forgetPassword.submit')}
      </button>
      {sending && (
        <p className="loading" role="status">
          <span className="spinner" aria-hidden="true" />
          {t('forgetPassword.sending')}
        </p>
      )}
      <p className="form-links">
        <a href={localePath(lang, '/login')}>{t('forgetPassword.backToLogin')}</a>
      </p>
    </form>
  );
}
