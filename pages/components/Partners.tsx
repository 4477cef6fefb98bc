import Anchor from 'lucide-react/icons/anchor';
import Milestone from 'lucide-react/icons/milestone';
import Wheat from 'lucide-react/icons/wheat';
import { useT } from '../lib/i18n';
import { IconCards } from './IconCards';

// The three partner networks, each with the mark it is known by.
const partners = [
  ['agri', Wheat],
  ['port', Anchor],
  ['highway', Milestone],
] as const;

// Partners presents the partner networks as partners: a card each, with
// its mark and name, under a heading (About us and the home page).
export function Partners({ headingId }: { headingId: string }) {
  const { t } = useT();
  return (
    <section className="cards-section partners" aria-labelledby={headingId}>
      <div className="section-head">
        <h2 id={headingId}>{t('aboutUs.partnersTitle')}</h2>
        <p>{t('aboutUs.partnersIntro')}</p>
      </div>
      <IconCards items={partners} texts="aboutUs.partners" heading="h3" partner />
    </section>
  );
}
