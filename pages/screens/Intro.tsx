import { PageHead } from '../components/PageHead';
import { useT } from '../lib/i18n';

// Intro is the heading and opening paragraph of a page; screens whose
// content is still to come use it on its own.
export function Intro({ id }: { id: string }) {
  const { t } = useT();
  return <PageHead title={t(`${id}.title`)} lead={t(`${id}.intro`)} />;
}
