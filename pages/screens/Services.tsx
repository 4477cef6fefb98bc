import ClipboardList from 'lucide-react/icons/clipboard-list';
import Cloud from 'lucide-react/icons/cloud';
import Database from 'lucide-react/icons/database';
import Handshake from 'lucide-react/icons/handshake';
import LayoutGrid from 'lucide-react/icons/layout-grid';
import MessagesSquare from 'lucide-react/icons/messages-square';
import Scale from 'lucide-react/icons/scale';
import { IconCards } from '../components/IconCards';
import { PageHead } from '../components/PageHead';
import { SignUpPrompt } from '../components/SignUpPrompt';
import { useT } from '../lib/i18n';
import { localePath } from '../lib/site';
import type { ScreenProps } from '../routes';

// The six services of SPEC §2, in order, each with its icon.
const services = [
  ['trade', Handshake],
  ['chat', MessagesSquare],
  ['loadBoard', ClipboardList],
  ['database', Database],
  ['legalCase', Scale],
  ['cloud', Cloud],
] as const;

// Services shows one card per service, each with what it gives a member.
export function Services({ lang }: ScreenProps) {
  const { t } = useT();
  return (
    <>
      <PageHead title={t('services.title')} lead={t('services.intro')} icon={LayoutGrid} />
      <section aria-label={t('services.title')}>
        {/* The cloud service's text names the import format page: its marked words link there. */}
        <IconCards items={services} texts="services.items" heading="h2" links={{ cloud: localePath(lang, '/standard-15-day-format') }} />
      </section>
      <SignUpPrompt id="services-signup" title={t('services.signUpTitle')} text={t('services.signUpText')} link={t('services.signUpLink')} href={localePath(lang, '/registration')} />
    </>
  );
}
