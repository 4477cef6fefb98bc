import CircleHelp from 'lucide-react/icons/circle-help';
import MessagesSquare from 'lucide-react/icons/messages-square';
import { PageHead } from '../components/PageHead';
import { useT } from '../lib/i18n';
import { LinkedText } from '../components/LinkedText';
import { localePath, settings } from '../lib/site';
import type { Translator } from '../lib/i18n';
import { faqPage } from '../lib/structuredData';
import type { ScreenProps } from '../routes';
import { unsubscribe } from '../../data/forms.json';

// The thirteen questions of SPEC §9, in order; the last one is about
// leaving the mailing list and ends in the unsubscribe controls.
const questions = ['what', 'who', 'register', 'cost', 'verify', 'loads', 'checkPartner', 'unpaid', 'data', 'language', 'app', 'password', 'unsubscribe'] as const;

// The pages answers name, linked from the words marked in their texts.
const linked: Partial<Record<(typeof questions)[number], string>> = { app: '/mobile-app', password: '/login' };

// Faq: every question is a <details> starting open (SPEC §2); the plus or
// minus sign follows the open state through CSS, and the summary itself
// tells assistive technology whether it is expanded. The page needs no
// JavaScript: the message box and the unsubscribe button are a form that
// goes to the relative ./unsubscribe of SPEC §2, which keeps the page's
// language (/hi/faq leads to /hi/unsubscribe), with the message as its
// reason parameter; the unsubscribe page sends it with the request and
// takes it out of the address.
const vars = { name: settings.name, email: settings.provider.email };

// reasonMax is the longest message the unsubscribe call takes (data/forms.json).
const reasonChecks: Array<{ maxLength?: number }> = unsubscribe.find((f) => f.field === 'reason')?.checks ?? [];
const reasonMax = Math.min(...reasonChecks.map((c) => c.maxLength ?? Infinity));

// faqData is the questions and answers as structured data.
export function faqData({ lang }: ScreenProps, t: Translator['t']) {
  return [faqPage(lang, questions.map((q) => ({ question: t(`faq.items.${q}.question`, vars), answer: t(`faq.items.${q}.answer`, vars) })))];
}

export function Faq({ lang }: ScreenProps) {
  const { t } = useT();
  const last = questions[questions.length - 1];
  return (
    <>
      <PageHead title={t('faq.title')} lead={t('faq.intro')} icon={CircleHelp} />
      <section className="with-aside" aria-label={t('faq.title')}>
        <div className="faq">
          {questions.map((q) => (
            <details className="faq-item" open key={q}>
              <summary>
                <span className="faq-question">{t(`faq.items.${q}.question`, vars)}</span>
                <span className="faq-sign" aria-hidden="true"></span>
              </summary>
              <div className="faq-answer">
                <p>
                  <LinkedText text={t(`faq.items.${q}.answer`, vars)} href={linked[q] && localePath(lang, linked[q])} />
                </p>
                {q === last && (
                  <form className="faq-unsubscribe" method="post" action="./unsubscribe">
                    <label htmlFor="faq-message">{t('faq.messageLabel')}</label>
                    <p className="hint" id="faq-message-hint">
                      {t('faq.messageHint')}
                    </p>
                    <textarea id="faq-message" name="reason" rows={4} maxLength={reasonMax} aria-describedby="faq-message-hint"></textarea>
                    <button type="submit" className="button">
                      {t('faq.unsubscribe')}
                    </button>
                  </form>
                )}
              </div>
            </details>
          ))}
        </div>
        <aside className="aside-card" aria-labelledby="faq-contact">
          <span className="card-icon">
            <MessagesSquare className="icon" />
          </span>
          <h2 id="faq-contact">{t('contactUs.title')}</h2>
          <p>{t('contactUs.intro')}</p>
          <a className="button secondary" href={localePath(lang, '/contact-us')}>
            {t('nav.contact')}
          </a>
        </aside>
      </section>
    </>
  );
}
