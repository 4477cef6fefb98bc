// The self-hosted captcha: the ALTCHA widget (npm altcha, "external" build:
// no inline styles, so the strict CSP holds), its stylesheet and its Worker
// script, all files of this site. lib/captcha.ts imports this module
// dynamically, so none of it is in a page's initial load.
import 'altcha/altcha.ext';
import stylesheet from 'url:altcha/altcha.css';
import workerURL from 'url:altcha/worker';
import type { CaptchaOptions, CaptchaWidget } from './captcha';

interface AltchaElement extends HTMLElement {
  reset(): void;
  verify(): Promise<void>;
}

// mountAltcha adds the widget to el. It fetches a challenge from the API
// and solves it in a Worker at once (the visitor is already filling in the
// form), so the answer is usually ready before they submit.
export function mountAltcha(el: HTMLElement, { t, onAnswer }: CaptchaOptions): CaptchaWidget {
  if (!document.querySelector(`link[href="${stylesheet}"]`)) {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = stylesheet;
    document.head.append(link);
  }
  const widget = document.createElement('altcha-widget') as AltchaElement;
  widget.setAttribute('challengeurl', '/api/captcha/challenge');
  widget.setAttribute('workerurl', workerURL);
  widget.setAttribute('auto', 'onload');
  widget.setAttribute('hidefooter', '');
  widget.setAttribute('hidelogo', '');
  widget.setAttribute(
    'strings',
    JSON.stringify({
      label: t('captcha.label'),
      verifying: t('captcha.verifying'),
      verified: t('captcha.verified'),
      error: t('captcha.error'),
      expired: t('captcha.expired'),
      waitAlert: t('captcha.waitAlert'),
      footer: '',
      ariaLinkLabel: '',
    }),
  );
  // The widget's checkbox has a <label> only while unverified; naming it
  // itself keeps it named in every state.
  const name = () => widget.querySelector('input[type=checkbox]')?.setAttribute('aria-label', t('captcha.label'));
  widget.addEventListener('load', name);
  widget.addEventListener('statechange', (e) => {
    name();
    const { state, payload } = (e as CustomEvent<{ state: string; payload?: string }>).detail;
    onAnswer(state === 'verified' && payload ? payload : '');
  });
  el.append(widget);
  return {
    reset() {
      onAnswer('');
      widget.reset();
      void widget.verify();
    },
  };
}
