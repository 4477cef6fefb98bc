import type { ComponentType } from 'react';
import CopyrightIcon from 'lucide-react/icons/copyright';
import FileText from 'lucide-react/icons/file-text';
import Scale from 'lucide-react/icons/scale';
import ShieldCheck from 'lucide-react/icons/shield-check';
import { PageHead } from '../components/PageHead';
import { useT } from '../lib/i18n';
import { inLanguage, settings } from '../lib/site';
import type { ScreenProps } from '../routes';
import { Prose } from './Prose';

// staticText makes the screen of a page of static text (terms, copyright,
// privacy policy, legal disclaimer): the heading, the opening paragraph,
// then one titled section per key under `${id}.sections`, in the order
// given, with a list of them to jump to (beside the text on wide screens).
// Texts may name the provider and its address, e-mail and phone.
function staticText(id: string, icon: ComponentType<{ className?: string }>, sections: string[]): ComponentType<ScreenProps> {
  function StaticText({ lang }: ScreenProps) {
    const { t } = useT();
    const vars = { ...inLanguage(settings.provider, lang), site: settings.name };
    return (
      <>
        <PageHead title={t(`${id}.title`)} lead={t(`${id}.intro`, vars)} icon={icon} kind="compact" />
        <div className="static-text">
          <nav className="toc" aria-labelledby={`${id}-contents`}>
            <h2 id={`${id}-contents`}>{t('staticText.contents')}</h2>
            <ol>
              {sections.map((s) => (
                <li key={s}>
                  <a href={`#${s}`}>{t(`${id}.sections.${s}.title`)}</a>
                </li>
              ))}
            </ol>
          </nav>
          <article className="prose">
            {sections.map((s) => (
              <section key={s} id={s} aria-labelledby={`${s}-title`}>
                <h2 id={`${s}-title`}>{t(`${id}.sections.${s}.title`)}</h2>
                <Prose text={t(`${id}.sections.${s}.text`, vars)} />
              </section>
            ))}
          </article>
        </div>
      </>
    );
  }
  StaticText.displayName = `StaticText(${id})`;
  return StaticText;
}

// The four pages of static text of SPEC §2, each with its sections in order.
export const Terms = staticText('terms', FileText, ['acceptance', 'eligibility', 'account', 'trade', 'records', 'fees', 'conduct', 'content', 'suspension', 'liability', 'law', 'changes', 'contact']);
export const Copyright = staticText('copyright', CopyrightIcon, ['ownership', 'allowed', 'notAllowed', 'memberContent', 'trademarks', 'infringement']);
export const LegalDisclaimer = staticText('legal', Scale, ['information', 'platform', 'members', 'noAdvice', 'links', 'availability', 'liability', 'donations', 'law']);
// The privacy policy says what each form and browser feature collects and why.
export const PrivacyPolicy = staticText('privacyPolicy', ShieldCheck, [
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
