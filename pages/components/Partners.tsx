import Anchor from 'lucide-react/icons/anchor';
import Milestone from 'lucide-react/icons/milestone';
import Wheat from 'lucide-react/icons/wheat';
import partners from '../../data/partners.json';
import { useT } from '../lib/i18n';
import { dataImage } from '../lib/images';
import { DataImage } from './DataImage';
import type { Icon } from './IconCards';

// The mark each partner network is known by where data/partners.json
// gives it no logo.
const marks: Record<string, Icon> = { agri: Wheat, port: Anchor, highway: Milestone };

// Partners presents the partner networks as partners: a card each, with
// its logo (data/images; its mark in a saffron tile where it has none) and
// name, under a heading (About us and the home page).
export function Partners({ headingId }: { headingId: string }) {
  const { t } = useT();
  return (
    <section className="cards-section partners" aria-labelledby={headingId}>
      <div className="section-head">
        <h2 id={headingId}>{t('aboutUs.partnersTitle')}</h2>
        <p>{t('aboutUs.partnersIntro')}</p>
      </div>
      <ul className="cards">
        {partners.map((p) => {
          const logo = dataImage('logo' in p ? p.logo : undefined);
          const Mark = marks[p.key] ?? Milestone;
          return (
            <li className="card partner" key={p.key}>
              {logo ? (
                <DataImage image={logo} alt="" className="partner-logo" />
              ) : (
                <span className="partner-mark">
                  <Mark className="icon" />
                </span>
              )}
              <h3>{t(`aboutUs.partners.${p.key}.title`)}</h3>
              <p>{t(`aboutUs.partners.${p.key}.text`)}</p>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
