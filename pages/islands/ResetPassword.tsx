import { useEffect, useRef, useState, type FormEvent } from 'react';
import { resetPassword as rules } from '../../data/forms.json';
import { Checkbox } from '../components/Checkbox';
import { Field } from '../components/Field';
import { ApiError, request, isOffline } from '../lib/api';
import { focusField, useForm, type FieldError } from '../lib/form';
import { useT } from '../lib/i18n';
import { localePath, postTo } from '../lib/site';

interface ResetAnswer {
  status: string;
  errorMessageList?: FieldError[];
}

// ResetPassword sets a new password with the token of the mailed link
// (SPEC §2, §4, §5, §8): RESET1 generic error, RESET2 link expired or
// invalid, RESET3 password rule error, RESET4 mismatch (shown without a
// call), RESET5 success with Go To Login in place of the form.
export default function ResetPassword() {
  const { t, lang } = useT();
  const form = useForm(rules, { newPassword: '', confirmPassword: '' });
  const ref = useRef<HTMLFormElement>(null);
  // token is null until read from the address (after hydration), '' if absent.
  const [token, setToken] = useState<string | null>(null);
  const [show, setShow] = useState(false);
  const [sending, setSending] = useState(false);
  const [done, setDone] = useState(false);
  const [failure, setFailure] = useState('');

  useEffect(() => {
    const found = new URLSearchParams(location.search).get('token') ?? '';
    setToken(found);
    if (!found) setFailure('RESET.RESET2');
  }, []);

  const { newPassword, confirmPassword } = form.values;
  const differ = newPassword !== '' && confirmPassword !== '' && newPassword !== confirmPassword;
  const confirm = form.field('confirmPassword');
  // The mismatch shows on submit, not on leaving the field: an error
  // appearing then would move the submit button from under the pointer.
  const confirmError = confirm.error || (form.submitted && differ ? 'RESET.RESET4' : '');

  async function submit(e: FormEvent) {
    e.preventDefault();
    const invalid = form.submit();
    if (invalid || differ) {
      // The field says what is wrong (RESET4 on the confirmation for a
      // mismatch) and takes the focus; an earlier banner no longer applies.
      focusField(ref.current, invalid ?? 'confirmPassword');
      setFailure((f) => (f === 'RESET.RESET2' ? f : ''));
      return;
    }
    setSending(true);
    setFailure('');
    try {
      const answer = await request<ResetAnswer>('/api/reset_password', { json: { token: token ?? '', newPassword, confirmPassword } });
      if (answer.status === 'success') setDone(true);
      else setFailure('RESET.RESET1');
    } catch (err) {
      const body = err instanceof ApiError ? (err.body as ResetAnswer | null) : null;
      if (isOffline(err)) {
        setFailure('offline.needConnection');
      } else if (body?.status === 'tokenExpired') {
        setFailure('RESET.RESET2');
      } else if (body?.status === 'failed' && body.errorMessageList?.some((i) => i.field === 'newPassword')) {
        form.setServerErrors(body.errorMessageList);
        setFailure('RESET.RESET3');
      } else {
        setFailure('RESET.RESET1');
      }
    } finally {
      setSending(false);
    }
  }

  if (done) {
    return (
      <div className="notice ok" role="status">
        <p>{t('RESET.RESET5')}</p>
        <p>
          <a className="button" href={localePath(lang, '/login')}>
            {t('resetPassword.goToLogin')}
          </a>
        </p>
      </div>
    );
  }
  const type = show ? 'text' : 'password';
  return (
    <form ref={ref} className="form narrow-form" {...postTo(lang, '/reset-password')} noValidate onSubmit={submit} aria-busy={sending}>
      {failure && (
        <div className="notice bad" role="alert">
          <p>{t(failure)}</p>
          {failure === 'RESET.RESET2' && (
            <p>
              <a href={localePath(lang, '/forget-password')}>{t('resetPassword.newLink')}</a>
            </p>
          )}
        </div>
      )}
      <Field label={t('RESET.RESET6')} type={type} autoComplete="new-password" {...form.field('newPassword')} />
      <Field label={t('RESET.RESET10')} type={type} autoComplete="new-password" {...confirm} error={confirmError} />
      <Checkbox label={t('resetPassword.showPassword')} checked={show} onChange={setShow} />
      <button type="submit" className="button" disabled={sending || token === ''}>
        {sending ? t('resetPassword.sending') : t('resetPassword.submit')}
      </button>
    </form>
  );
}
