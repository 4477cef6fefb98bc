import { useEffect, useId, useRef, useState } from 'react';
import { selfSolving, startCaptcha, type CaptchaWidget } from '../lib/captcha';
import { useT } from '../lib/i18n';

interface Props {
  // generation changes after each submit: the server has seen (and spent)
  // the answer, so the check starts over.
  generation: number;
  onAnswer(answer: string): void;
  error: string; // message key, '' when none
}

// Captcha is the security check of a form. The server renders its frame;
// the widget itself is loaded when the visitor first focuses or types in
// the form, or when the check scrolls into view, whichever comes first.
export function Captcha({ generation, onAnswer, error }: Props) {
  const { t, lang } = useT();
  const id = useId();
  const area = useRef<HTMLDivElement>(null);
  const slot = useRef<HTMLDivElement>(null);
  const widget = useRef<CaptchaWidget | null>(null);
  const answer = useRef(onAnswer);
  answer.current = onAnswer;
  // The widget's script did not load (the site was rebuilt long after
  // this page was opened, or the network failed): say so, with a way on.
  const [loadFailed, setLoadFailed] = useState(false);
  // Offline the check cannot get a challenge: say the form needs a
  // connection, and start the check over once it returns.
  const [online, setOnline] = useState(true);
  useEffect(() => {
    const update = () => {
      setOnline(navigator.onLine);
      if (navigator.onLine) widget.current?.reset();
    };
    update();
    addEventListener('online', update);
    addEventListener('offline', update);
    return () => {
      removeEventListener('online', update);
      removeEventListener('offline', update);
    };
  }, []);

  useEffect(() => {
    const el = area.current;
    const form = el?.closest('form');
    if (!el || !slot.current) return;
    let started = false;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && start());
    const stop = () => {
      observer.disconnect();
      form?.removeEventListener('focusin', start);
      form?.removeEventListener('input', start);
    };
    function start() {
      if (started || !slot.current) return;
      started = true;
      stop();
      startCaptcha(slot.current, { lang, t, onAnswer: (a) => answer.current(a) })
        .then((w) => (widget.current = w))
        .catch(() => setLoadFailed(true));
    }
    observer.observe(el);
    form?.addEventListener('focusin', start);
    form?.addEventListener('input', start);
    return stop;
  }, [lang, t]);

  useEffect(() => {
    if (generation > 0) widget.current?.reset();
  }, [generation]);

  return (
    <div ref={area} className={error ? 'captcha invalid' : 'captcha'} role="group" aria-labelledby={`${id}-heading`}>
      <p className="captcha-heading" id={`${id}-heading`}>
        {t('captcha.heading')}
        <span aria-hidden="true"> *</span>
      </p>
      {selfSolving && <p className="field-hint">{t('captcha.selfSolving')}</p>}
      <div ref={slot} className="captcha-slot" />
      {loadFailed && (
        <div className="notice bad" role="alert">
          <p>{t('captcha.loadFailed')}</p>
          <button type="button" className="button" onClick={() => location.reload()}>
            {t('page.reload')}
          </button>
        </div>
      )}
      {!online && (
        <p className="field-error" role="status">
          {t('offline.needConnection')}
        </p>
      )}
      {error && <p className="field-error">{t(error)}</p>}
    </div>
  );
}
