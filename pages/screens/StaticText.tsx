import type { ComponentType } from 'react';
import { useT } from '../lib/i18n';
import { inLanguage, settings } from '../lib/site';
import type { ScreenProps } from '../routes';
import { Prose } from './Prose';

// staticText makes the screen of a page of static text (terms, copyright,
// privacy policy, legal disclaimer): the heading, the opening paragraph,
// then one titled section per key under `${id}.sections`, in the order
// given. Texts may name the provider and its address, e-mail and phone.
function staticText(id: string, sections: string[]): ComponentType<ScreenProps> {
  function StaticText({ lang }: ScreenProps) {
    const { t } = useT();
    const vars = { ...inLanguage(settings.provider, lang), site: settings.name };
    return (
      <article className="page static-text">
        <h1>{t(`${id}.title`)}</h1>
        <p className="lead">{t(`${id}.intro`, vars)}</p>
        {sections.map((s) => (
          <section key={s}>
            <h2>{t(`${id}.sections.${s}.title`)}</h2>
            <Prose text={t(`${id}.sections.${s}.text`, vars)} />
          </section>
        ))}
      </article>
    );
  }
  StaticText.displayName = `StaticText(${id})`;
  return StaticText;
}

// The four pages of static text of SPEC §2, each with its sections in order.
export const Terms = staticText('terms', ['acceptance', 'eligibility', 'account', 'trade', 'records', 'fees', 'conduct', 'content', 'suspension', 'liability', 'law', 'changes', 'contact']);
export const Copyright = staticText('copyright', ['ownership', 'allowed', 'notAllowed', 'memberContent', 'trademarks', 'infringement']);
export const LegalDisclaimer = staticText('legal', ['information', 'platform', 'members', 'noAdvice', 'links', 'availability', 'liability', 'donations', 'law']);
// The privacy policy says what each form and browser feature collects and why.
export const PrivacyPolicy = staticText('privacyPolicy', [
  'controller',
  'contact',
  'feedback',
  'registration',
  'signIn',
  'password',
  'unsubscribe',
  'donation',
  'analytics',
  'language',
  'cookies',
  'logs',
  'sharing',
  'retention',
  'rights',
  'security',
  'children',
  'changes',
]);
