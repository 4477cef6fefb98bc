import type { ComponentType } from 'react';
import { NoScriptNotice } from '../components/NoScriptNotice';
import { PageHead } from '../components/PageHead';
import type { ScreenProps } from '../routes';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';

// formPage makes the screen of a page that is one form island under its
// heading and intro (`${id}.title`, `${id}.intro`): login, registration,
// forgot and reset password. name is the island's file name; icon stands
// for the page; wide forms (registration) take the page width, the others
// a centred card.
export function formPage(id: string, name: string, island: ComponentType<object>, icon: ComponentType<{ className?: string }>, wide = false): ComponentType<ScreenProps> {
  function FormPage() {
    const { t } = useT();
    return (
      <>
        <PageHead title={t(`${id}.title`)} lead={t(`${id}.intro`)} icon={icon} kind="compact" />
        <section className="form-section-band" aria-label={t(`${id}.title`)}>
          <div className={wide ? 'form-card wide' : 'form-card narrow'}>
            <Island name={name} component={island} props={{}} />
            <NoScriptNotice />
          </div>
        </section>
      </>
    );
  }
  FormPage.displayName = `FormPage(${name})`;
  return FormPage;
}
