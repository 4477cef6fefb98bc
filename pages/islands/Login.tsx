import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { login as rules } from '../../data/forms.json';
import { Captcha } from '../components/Captcha';
import { Checkbox } from '../components/Checkbox';
import { Field } from '../components/Field';
import { ApiError, failureMessage, request } from '../lib/api';
import { focusField, useForm } from '../lib/form';
import { useT } from '../lib/i18n';
import { localePath, postTo } from '../lib/site';

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
// ?auctionLogout show the signed-out banner. When the account has had many
// failed sign-ins the answer is LOGIN.CAPTCHA: the security check appears
// (loaded then, as in registration) and the sign-in is sent again, with
// its answer, as soon as the check is done.
export default function Login() {
  const { t, lang } = useT();
  const form = useForm(rules, { username: '', password: '' });
  const ref = useRef<HTMLFormElement>(null);
  const [remember, setRemember] = useState(false);
  const [sending, setSending] = useState(false);
  const [failure, setFailure] = useState('');
  const [signedOut, setSignedOut] = useState(false);
  // The security check, shown once the server asks for it; an answer the
  // server has seen is spent, so each one is sent once.
  const [captcha, setCaptcha] = useState({ needed: false, answer: '', generation: 0 });
  // retry: send again as soon as the check has an answer.
  const retry = useRef(false);

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

  function submit(e: FormEvent) {
    e.preventDefault();
    setSignedOut(false);
    const invalid = form.submit();
    if (invalid) {
      setFailure('LOGIN.WARNING');
      focusField(ref.current, invalid);
      return;
    }
    if (captcha.needed && !captcha.answer) {
      retry.current = true;
      setFailure('LOGIN.CAPTCHA');
      return;
    }
    void send();
  }

  useEffect(() => {
    if (retry.current && captcha.answer) {
      retry.current = false;
      void send();
    }
    // send reads this render's answer, the one that just arrived.
  }, [captcha.answer]);

  async function send() {
    setSending(true);
    setFailure('');
    const { username, password } = form.values;
    const answer = captcha.needed ? captcha.answer : '';
    try {
      const body = new URLSearchParams({ username, password, rememberMe: remember ? 'on' : 'off' });
      if (answer) body.set('recaptchaResponse', answer);
      const signedIn = await request<SignInAnswer>('/auth', { body, headers: { 'X-Requested-With': 'XMLHttpRequest' } });
      if (!signedIn.success) throw new ApiError(200, signedIn);
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
      // Asked for the check: send again once it is done (once: a refused
      // answer waits for the member to submit again).
      if (status === 'LOGIN.CAPTCHA' && !answer) retry.current = true;
      setCaptcha((c) => ({
        needed: c.needed || status === 'LOGIN.CAPTCHA',
        answer: '',
        generation: answer ? c.generation + 1 : c.generation,
      }));
      setFailure(status || failureMessage(err, 'LOGIN.WARNING'));
      setSending(false);
    }
  }

  return (
    <form ref={ref} className="form narrow-form" {...postTo(lang, '/login')} noValidate onSubmit={submit} aria-busy={sending}>
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
      {captcha.needed && <Captcha generation={captcha.generation} error="" onAnswer={(a) => setCaptcha((c) => ({ ...c, answer: a }))} />}
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
