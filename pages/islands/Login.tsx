import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { login as rules } from '../../data/forms.json';
import { Checkbox } from '../components/Checkbox';
import { Field } from '../components/Field';
import { ApiError, failureMessage, request } from '../lib/api';
import { focusField, useForm } from '../lib/form';
import { useT } from '../lib/i18n';
import { localePath } from '../lib/site';

interface SignInAnswer {
  success: boolean;
  status: string;
}

interface TokenAnswer {
  token: string;
}

// Login signs a member in (SPEC §2, §4, §5): POST /auth with the form
// encoded and the Ajax marker, then a bearer token for the API kept as the
// session-storage item Auth-Token, then /secure/entry. Any failure, and an
// invalid form (without a call), shows the failure banner; ?logout and
// ?auctionLogout show the signed-out banner.
export default function Login() {
  const { t, lang } = useT();
  const form = useForm(rules, { username: '', password: '' });
  const ref = useRef<HTMLFormElement>(null);
  const [remember, setRemember] = useState(false);
  const [sending, setSending] = useState(false);
  const [failure, setFailure] = useState('');
  const [signedOut, setSignedOut] = useState(false);

  useEffect(() => {
    const q = new URLSearchParams(location.search);
    setSignedOut(q.has('logout') || q.has('auctionLogout'));
  }, []);

  const username = form.field('username');
  // The username shows lowercase as it is typed (SPEC §5), the caret kept.
  function typeUsername(e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) {
    const el = e.target;
    const [start, end] = [el.selectionStart, el.selectionEnd];
    el.value = el.value.toLowerCase();
    el.setSelectionRange(start, end);
    username.onChange(e);
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setSignedOut(false);
    const invalid = form.submit();
    if (invalid) {
      setFailure('LOGIN.WARNING');
      focusField(ref.current, invalid);
      return;
    }
    setSending(true);
    setFailure('');
    const { username, password } = form.values;
    try {
      const body = new URLSearchParams({ username, password, rememberMe: remember ? 'on' : 'off' });
      const answer = await request<SignInAnswer>('/auth', { body, headers: { 'X-Requested-With': 'XMLHttpRequest' } });
      if (!answer.success) throw new ApiError(200, answer);
      try {
        const { token } = await request<TokenAnswer>('/token/generate-token', { json: { username, password } });
        sessionStorage.setItem('Auth-Token', token);
      } catch (err) {
        // The session cookie is what the members' area needs; the token is
        // for API calls and can be fetched again.
        console.warn('no API token:', err);
      }
      location.assign('/secure/entry');
    } catch (err) {
      const status = err instanceof ApiError ? (err.body as Partial<SignInAnswer> | null)?.status : undefined;
      setFailure(status || failureMessage(err, 'LOGIN.WARNING'));
      setSending(false);
    }
  }

  return (
    <form ref={ref} className="form narrow-form" noValidate onSubmit={submit} aria-busy={sending}>
      {signedOut && (
        <div className="notice ok" role="status">
          <p>{t('login.signedOut')}</p>
        </div>
      )}
      {failure && (
        <div className="notice bad" role="alert">
          <p>
            <span className="visually-hidden">{t('login.errorPrefix')} </span>
            {t(failure)}
          </p>
        </div>
      )}
      <Field label={t('login.username')} autoComplete="username" inputMode="email" {...username} onChange={typeUsername} />
      <Field label={t('login.password')} type="password" autoComplete="current-password" {...form.field('password')} />
      <Checkbox label={t('login.rememberMe')} name="rememberMe" checked={remember} onChange={setRemember} />
      <button type="submit" className="button" disabled={sending}>
        {sending ? t('login.signingIn') : t('login.submit')}
      </button>
      <p className="form-links">
        <a href={localePath(lang, '/forget-password')}>{t('login.forgot')}</a>
        <span>
          {t('login.noAccount')} <a href={localePath(lang, '/registration')}>{t('login.signUp')}</a>
        </span>
      </p>
    </form>
  );
}
