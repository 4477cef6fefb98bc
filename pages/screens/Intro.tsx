import { useT } from '../lib/i18n';

// Intro is the heading and opening paragraph of a page; screens whose
// content is still to come use it on its own.
export function Intro({ id }: { id: string }) {
  const { t } = useT();
  return (
    <section className="page">
      <h1>{t(`${id}.title`)}</h1>
      <p className="lead">{t(`${id}.intro`)}</p>
    </section>
  );
}
