import { useRef, useState, type FormEvent } from 'react';
import { amountOf, typedDigits } from '../lib/donation';
import { useT } from '../lib/i18n';
import { postTo } from '../lib/site';

interface Props {
  donationURL: string; // the provider's one-time donation endpoint
  subscriptionURL: string; // the provider's monthly subscription endpoint
  currency: string;
  itemName: string;
}

// SPEC §9: preset amounts in US dollars and subscription lengths in
// months, 0 meaning the subscription never ends.
const presets = [3, 5, 10, 20, 30, 50, 100];
const durations = [0, ...Array.from({ length: 11 }, (_, i) => i + 2)];

type Frequency = 'once' | 'monthly';

// DonationForm is the donate page's island (SPEC §2, §4): the visitor picks
// one-time or monthly and an amount; submitting posts a hidden form to the
// card payment provider, with PayPal-style fields (docs/build-and-hosting.md, "Donations").
// There is no call to our own server.
export default function DonationForm({ donationURL, subscriptionURL, currency, itemName }: Props) {
  const { t, lang } = useT();
  const [frequency, setFrequency] = useState<Frequency>('once');
  const [choice, setChoice] = useState<number | 'other' | null>(null);
  const [other, setOther] = useState('');
  const [duration, setDuration] = useState(0);
  const [error, setError] = useState(false);
  const provider = useRef<HTMLFormElement>(null);
  const otherInput = useRef<HTMLInputElement>(null);
  const amount = amountOf(choice, other);

  const choosePreset = (n: number) => {
    setChoice(n);
    setOther('');
    setError(false);
  };
  // typeOther takes what was typed or pasted into the Other field. The
  // field keeps what the visitor wrote, character for character (a
  // Devanagari digit shown as the same digit 0–9), so the amount sent is
  // always the one it shows; anything but whole dollars ("2.50", "1.5e3",
  // "-5", "$30") shows the error at once and cannot be sent until it is
  // corrected.
  const typeOther = (value: string) => {
    const typed = typedDigits(value);
    setChoice('other');
    setOther(typed);
    setError(typed !== '' && amountOf('other', typed) === null);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (amount === null) {
      setError(true);
      otherInput.current?.focus();
      return;
    }
    provider.current?.submit();
  };

  const monthly = frequency === 'monthly';
  return (
    <>
      <form className="donation" {...postTo(lang, '/donate')} onSubmit={submit} noValidate>
        <fieldset>
          <legend>{t('donate.frequency')}</legend>
          <div className="chips">
            {(['once', 'monthly'] as const).map((f) => (
              <label className="chip" key={f}>
                <input type="radio" name="frequency" value={f} checked={frequency === f} onChange={() => setFrequency(f)} />
                <span>{t(`donate.${f}`)}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend>{t('donate.amount', { currency })}</legend>
          <div className="chips">
            {presets.map((n) => (
              <label className="chip" key={n}>
                <input type="radio" name="preset" value={n} checked={choice === n} onChange={() => choosePreset(n)} />
                <span>{`$${n}`}</span>
              </label>
            ))}
          </div>
          <label htmlFor="donate-other">{t('donate.other')}</label>
          <input
            id="donate-other"
            ref={otherInput}
            type="text"
            inputMode="numeric"
            autoComplete="off"
            value={other}
            onChange={(e) => typeOther(e.target.value)}
            aria-invalid={error || undefined}
            aria-describedby={error ? 'donate-error' : undefined}
          />
          <div aria-live="polite">
            {error && (
              <p className="field-error" id="donate-error">
                {t('donate.invalidAmount')}
              </p>
            )}
          </div>
        </fieldset>
        {monthly && (
          <div className="field">
            <label htmlFor="donate-duration">{t('donate.duration')}</label>
            <select id="donate-duration" value={duration} onChange={(e) => setDuration(Number(e.target.value))}>
              {durations.map((d) => (
                <option key={d} value={d}>
                  {d === 0 ? t('donate.neverEnd') : t('donate.months', { count: d })}
                </option>
              ))}
            </select>
          </div>
        )}
        <button type="submit" className="button">
          {t('donate.submit')}
        </button>
      </form>
      <form ref={provider} method="post" action={monthly ? subscriptionURL : donationURL} hidden>
        <input type="hidden" name="cmd" value={monthly ? '_xclick-subscriptions' : '_donations'} />
        <input type="hidden" name="item_name" value={itemName} />
        <input type="hidden" name="currency_code" value={currency} />
        {monthly ? (
          <>
            <input type="hidden" name="a3" value={amount ?? ''} />
            <input type="hidden" name="p3" value="1" />
            <input type="hidden" name="t3" value="M" />
            <input type="hidden" name="src" value="1" />
            <input type="hidden" name="srt" value={duration} />
          </>
        ) : (
          <input type="hidden" name="amount" value={amount ?? ''} />
        )}
      </form>
    </>
  );
}
