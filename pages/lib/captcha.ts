// The captcha of registration and forgot password (DESIGN.md): the
// self-hosted ALTCHA proof of work, or reCAPTCHA when the site was built
// with a site key (`freightsite build --recaptcha-site-key`). Either one is
// loaded only on first use, so it is not part of a page's initial load;
// its answer goes to the API as recaptchaResponse.
import { language, type Lang } from './site';

// RECAPTCHA_SITE_KEY is set by the generator at build time ('' for ALTCHA).
declare const RECAPTCHA_SITE_KEY: string;

// selfSolving is true for the proof of work, which needs nothing from
// the visitor (reCAPTCHA may ask them to solve a puzzle).
export const selfSolving = !RECAPTCHA_SITE_KEY;

export interface CaptchaOptions {
  lang: Lang;
  t(key: string): string;
  // onAnswer receives the answer once the check passes, '' when it lapses.
  onAnswer(answer: string): void;
}

export interface CaptchaWidget {
  // reset starts a fresh check: an answer the server saw is spent.
  reset(): void;
}

// startCaptcha puts the widget into el.
export async function startCaptcha(el: HTMLElement, opts: CaptchaOptions): Promise<CaptchaWidget> {
  if (RECAPTCHA_SITE_KEY) return startRecaptcha(el, opts);
  const { mountAltcha } = await import('./altcha');
  return mountAltcha(el, opts);
}

interface Grecaptcha {
  ready(cb: () => void): void;
  render(el: HTMLElement, params: object): number;
  reset(id: number): void;
}

let recaptchaScript: Promise<Grecaptcha> | undefined;

// loadRecaptcha adds Google's script once (the CSP allows its origin only
// in reCAPTCHA builds) and waits until it is ready.
function loadRecaptcha(lang: Lang): Promise<Grecaptcha> {
  recaptchaScript ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = `https://www.google.com/recaptcha/api.js?render=explicit&hl=${language(lang).htmlLang}`;
    script.async = true;
    script.onerror = () => reject(new Error('loading reCAPTCHA failed'));
    script.onload = () => {
      const g = (window as unknown as { grecaptcha: Grecaptcha }).grecaptcha;
      g.ready(() => resolve(g));
    };
    document.head.append(script);
  });
  return recaptchaScript;
}

async function startRecaptcha(el: HTMLElement, { lang, onAnswer }: CaptchaOptions): Promise<CaptchaWidget> {
  const g = await loadRecaptcha(lang);
  const id = g.render(el, {
    sitekey: RECAPTCHA_SITE_KEY,
    callback: (answer: string) => onAnswer(answer),
    'expired-callback': () => onAnswer(''),
    'error-callback': () => onAnswer(''),
  });
  return {
    reset() {
      g.reset(id);
      onAnswer('');
    },
  };
}
