import type { ComponentType } from 'react';
import type { ScreenProps } from '../routes';
import { useT } from '../lib/i18n';
import { Island } from '../lib/island';

// formPage makes the screen of a page that is one form island under its
// heading and intro (`${id}.title`, `${id}.intro`): login, registration,
// forgot and reset password. name is the island's file name.
export function formPage(id: string, name: string, island: ComponentType<object>): ComponentType<ScreenProps> {
  function FormPage() {
    const { t } = useT();
    return (
      <section className="page">
        <h1>{t(`${id}.title`)}</h1>
        <p className="lead">{t(`${id}.intro`)}</p>
        <Island name={name} component={island} props={{}} />
      </section>
    );
  }
  FormPage.displayName = `FormPage(${name})`;
  return FormPage;
}
