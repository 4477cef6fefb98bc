import BadgeCheck from 'lucide-react/icons/badge-check';
import Ear from 'lucide-react/icons/ear';
import Eye from 'lucide-react/icons/eye';
import Gem from 'lucide-react/icons/gem';
import HardHat from 'lucide-react/icons/hard-hat';
import HeartHandshake from 'lucide-react/icons/heart-handshake';
import IndianRupee from 'lucide-react/icons/indian-rupee';
import Languages from 'lucide-react/icons/languages';
import Lock from 'lucide-react/icons/lock';
import Route from 'lucide-react/icons/route';
import Store from 'lucide-react/icons/store';
import Timer from 'lucide-react/icons/timer';
import { IconCards } from '../components/IconCards';
import { PageHead } from '../components/PageHead';
import { useT } from '../lib/i18n';

// The eleven company values of SPEC §9, in order, each with its icon.
const values = [
  ['trust', BadgeCheck],
  ['fairPay', IndianRupee],
  ['transparency', Eye],
  ['safety', HardHat],
  ['dignity', HeartHandshake],
  ['smallOperators', Store],
  ['privacy', Lock],
  ['emptyKm', Route],
  ['reliability', Timer],
  ['language', Languages],
  ['listening', Ear],
] as const;

// Values lists the company values (SPEC §2), numbered.
export function Values() {
  const { t } = useT();
  return (
    <>
      <PageHead title={t('values.title')} lead={t('values.intro')} icon={Gem} />
      <section aria-label={t('values.title')}>
        <IconCards items={values} texts="values.items" heading="h2" numbered />
      </section>
    </>
  );
}
