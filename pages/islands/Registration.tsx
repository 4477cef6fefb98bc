import { useEffect, useId, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { registration as rules } from '../../data/forms.json';
import { Captcha } from '../components/Captcha';
import { Checkbox } from '../components/Checkbox';
import { Field } from '../components/Field';
import { ApiError, failureMessage, request } from '../lib/api';
import { check, focusField, useForm, type FieldBinding, type FieldError } from '../lib/form';
import { useT } from '../lib/i18n';
import { localePath, postTo } from '../lib/site';

interface RegistrationAnswer {
  status: string;
  errorMessageList?: FieldError[];
}

interface KeyValue {
  key: string;
  value: string;
}

const empty = {
  companyName: '',
  contactName: '',
  contactEmail: '',
  address1: '',
  address2: '',
  city: '',
  state: '',
  postalCode: '',
  country: 'IN',
  contactPhone: '',
  contactFax: '',
  email: '',
  firstName: '',
  lastName: '',
  newPassword: '',
  confirmPassword: '',
};

type Values = typeof empty;

// The form's four sections (SPEC §2's company and user sections, the
// company's split into company, address and contact), each with its title
// and fields, in order: the progress list at the top marks a section done
// once its fields all meet their rules.
const sections: Array<[id: string, title: string, fields: Array<keyof Values>]> = [
  ['company', 'registration.company', ['companyName']],
  ['address', 'registration.address', ['address1', 'address2', 'city', 'state', 'postalCode', 'country']],
  ['contact', 'registration.contact', ['contactName', 'contactEmail', 'contactPhone', 'contactFax']],
  ['account', 'registration.user', ['email', 'firstName', 'lastName', 'newPassword', 'confirmPassword']],
];

const captchaRule = rules.find((r) => r.field === 'recaptchaResponse')!;
// markedFields show a server error beside them: every field of the form
// but the fixed country, and the security check.
const markedFields = [...Object.keys(empty).filter((f) => f !== 'country'), 'recaptchaResponse'];
const mismatch = 'registration.errors.passwordMismatch';

// Registration signs a company up with its first user (SPEC §2, §4, §5):
// company and user sections, a security check, and a success message with
// Go To Login in place of the form once the server answers status "200".
// Any other answer shows the failure banner and puts the server's errors
// on their fields; a password mismatch shows without a call.
export default function Registration() {
  const { t, lang } = useT();
  const form = useForm(rules, empty);
  const ref = useRef<HTMLFormElement>(null);
  const [states, setStates] = useState<KeyValue[]>([]);
  const [showPasswords, setShowPasswords] = useState(false);
  const [emailTaken, setEmailTaken] = useState(false);
  const [captcha, setCaptcha] = useState({ answer: '', generation: 0, serverError: '' });
  const [sending, setSending] = useState(false);
  const [done, setDone] = useState(false);
  const [failure, setFailure] = useState('');

  // The state list (GET /states?country_id=IN), named in the page's
  // language; free text when it cannot be had.
  useEffect(() => {
    request<KeyValue[]>(`/states?country_id=IN&lang=${lang}`)
      .then((list) => Array.isArray(list) && setStates(list.filter((s) => s && s.key && s.value)))
      .catch(() => setStates([]));
  }, [lang]);

  const v = form.values;
  const passwordsDiffer = v.newPassword !== '' && v.confirmPassword !== '' && v.newPassword !== v.confirmPassword;
  const confirm = form.field('confirmPassword');
  // The mismatch shows on submit, not on leaving the field: an error
  // appearing then would move the submit button from under the pointer.
  const confirmError = confirm.error || (form.submitted && passwordsDiffer ? mismatch : '');
  const captchaError = captcha.serverError || (form.submitted ? check(captchaRule, captcha.answer) : '');

  const email = form.field('email');
  // An address already registered is worth a warning as soon as it is typed.
  async function checkEmail() {
    email.onBlur();
    setEmailTaken(false);
    if (check(rules.find((r) => r.field === 'email')!, v.email) !== '') return;
    try {
      const unique = await request<boolean>('/api/email/uniqueness', {
        json: { email: v.email },
        headers: { 'Content-Type': 'application/vnd.freightsite.v1+json', 'X-Requested-With': 'XMLHttpRequest' },
      });
      setEmailTaken(unique === false);
    } catch {
      // The server checks again on submit.
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const invalid = form.submit();
    if (invalid || passwordsDiffer) {
      focusField(ref.current, invalid ?? 'confirmPassword');
      return;
    }
    if (!captcha.answer) return;
    setSending(true);
    setFailure('');
    try {
      const answer = await request<RegistrationAnswer>('/api/registration', {
        json: { ...v, preferredLanguage: lang, recaptchaResponse: captcha.answer },
        submission: v, // a new captcha answer is no new registration
      });
      if (answer.status === '200') {
        setDone(true);
        return;
      }
      setFailure('api.errors.internal');
    } catch (err) {
      const list = err instanceof ApiError ? ((err.body as RegistrationAnswer | null)?.errorMessageList ?? []) : [];
      form.setServerErrors(list);
      setEmailTaken(false);
      setCaptcha((c) => ({ ...c, serverError: list.find((i) => i.field === 'recaptchaResponse')?.message ?? '' }));
      // The banner asks to correct the marked fields only when the server
      // marked one; otherwise it says what the server said.
      const marked = list.some((i) => markedFields.includes(i.field));
      setFailure(marked ? 'registration.failedText' : (list[0]?.message ?? failureMessage(err, 'forms.notSent')));
    } finally {
      setSending(false);
    }
    // The server has spent the answer: the check starts over.
    setCaptcha((c) => ({ ...c, answer: '', generation: c.generation + 1 }));
  }

  if (done) {
    return (
      <div className="notice ok" role="status">
        <p className="notice-title">{t('registration.successTitle')}</p>
        <p>{t('registration.successText')}</p>
        <p>
          <a className="button" href={localePath(lang, '/login')}>
            {t('registration.goToLogin')}
          </a>
        </p>
      </div>
    );
  }
  const password = showPasswords ? 'text' : 'password';
  return (
    <form ref={ref} className="form registration-form" {...postTo(lang, '/registration')} noValidate onSubmit={submit} aria-busy={sending}>
      {failure && (
        <div className="notice bad" role="alert">
          <p className="notice-title">{t('registration.failedTitle')}</p>
          <p>{t(failure)}</p>
        </div>
      )}
      <ol className="form-progress" aria-label={t('registration.progress')}>
        {sections.map(([id, title, fields], i) => {
          const done = form.complete(fields) && (id !== 'account' || !passwordsDiffer);
          return (
            <li key={id} className={done ? 'done' : undefined}>
              <a href={`#registration-${id}`}>
                <span className="step-mark" aria-hidden="true">
                  {i + 1}
                </span>
                <span>
                  {t(title)}
                  {done && <span className="visually-hidden"> ({t('registration.stepDone')})</span>}
                </span>
              </a>
            </li>
          );
        })}
      </ol>
      <fieldset className="form-section" id="registration-company">
        <legend>{t('registration.company')}</legend>
        <div className="form-grid">
          <div className="grid-wide">
            <Field label={t('registration.companyName')} autoComplete="organization" {...form.field('companyName')} />
          </div>
        </div>
      </fieldset>
      <fieldset className="form-section" id="registration-address">
        <legend>{t('registration.address')}</legend>
        <div className="form-grid">
          <Field label={t('registration.address1')} autoComplete="address-line1" {...form.field('address1')} />
          <Field label={t('registration.address2')} autoComplete="address-line2" {...form.field('address2')} />
          <Field label={t('registration.city')} autoComplete="address-level2" {...form.field('city')} />
          {states.length > 0 ? (
            <StateSelect label={t('registration.state')} placeholder={t('registration.chooseState')} states={states} {...form.field('state')} />
          ) : (
            <Field label={t('registration.state')} autoComplete="address-level1" {...form.field('state')} />
          )}
          <Field label={t('registration.postalCode')} inputMode="numeric" autoComplete="postal-code" {...form.field('postalCode')} />
          <CountryField label={t('registration.country')} value={t('registration.countryIndia')} />
        </div>
      </fieldset>
      <fieldset className="form-section" id="registration-contact">
        <legend>{t('registration.contact')}</legend>
        <div className="form-grid">
          <Field label={t('registration.contactName')} autoComplete="name" {...form.field('contactName')} />
          <Field label={t('registration.contactEmail')} type="email" autoComplete="email" {...form.field('contactEmail')} />
          <Field label={t('registration.contactPhone')} type="tel" autoComplete="tel-national" hint={t('registration.phoneHint')} {...form.field('contactPhone')} />
          <Field label={t('registration.contactFax')} type="tel" hint={t('registration.phoneHint')} {...form.field('contactFax')} />
        </div>
      </fieldset>
      <fieldset className="form-section" id="registration-account">
        <legend>{t('registration.user')}</legend>
        <div className="form-grid">
          <div className="grid-wide">
            <Field label={t('registration.email')} type="email" autoComplete="email" {...email} onBlur={checkEmail} />
            <p className="field-warning" role="status">
              {emailTaken ? t('registration.errors.emailTaken') : ''}
            </p>
          </div>
          <Field label={t('registration.firstName')} autoComplete="given-name" {...form.field('firstName')} />
          <Field label={t('registration.lastName')} autoComplete="family-name" {...form.field('lastName')} />
          <Field label={t('registration.newPassword')} type={password} autoComplete="new-password" hint={t('registration.passwordHint')} {...form.field('newPassword')} />
          <Field label={t('registration.confirmPassword')} type={password} autoComplete="new-password" {...confirm} error={confirmError} />
        </div>
        <Checkbox label={t('registration.showPassword')} checked={showPasswords} onChange={setShowPasswords} />
      </fieldset>
      <div className="form-section form-finish">
        <Captcha generation={captcha.generation} error={captchaError} onAnswer={(answer) => setCaptcha((c) => ({ ...c, answer, serverError: '' }))} />
        <p className="form-note">{t('forms.requiredNote')}</p>
        <button type="submit" className="button" disabled={sending}>
          {sending ? t('registration.sending') : t('registration.submit')}
        </button>
      </div>
    </form>
  );
}

interface StateSelectProps extends FieldBinding {
  label: string;
  placeholder: string;
  states: KeyValue[];
}

// StateSelect is the state dropdown; the value sent is the state's key.
function StateSelect({ label, placeholder, states, error, required, maxLength: _, onChange, ...select }: StateSelectProps) {
  const { t } = useT();
  const id = useId();
  return (
    <div className={error ? 'field invalid' : 'field'}>
      <label htmlFor={id}>
        {label}
        {required && <span aria-hidden="true"> *</span>}
      </label>
      <select
        id={id}
        required={required}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onChange(e as unknown as ChangeEvent<HTMLInputElement>)}
        {...select}
      >
        <option value="">{placeholder}</option>
        {states.map((s) => (
          <option key={s.key} value={s.key}>
            {s.value}
          </option>
        ))}
      </select>
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {t(error)}
        </p>
      )}
    </div>
  );
}

// CountryField shows the country, fixed to India (sent as "IN", SPEC §9).
function CountryField({ label, value }: { label: string; value: string }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} value={value} readOnly aria-readonly="true" />
    </div>
  );
}
