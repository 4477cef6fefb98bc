import MapPin from 'lucide-react/icons/map-pin';
import Users from 'lucide-react/icons/users';
import members from '../../data/members.json';
import { Monogram } from '../components/Monogram';
import { PageHead } from '../components/PageHead';
import { RouteChips } from '../components/RouteChips';
import { useT } from '../lib/i18n';
import { inLanguage, localePath } from '../lib/site';
import type { ScreenProps } from '../routes';

// MembersProfile links the five member profile pages (SPEC §2): a card
// each with the member's monogram, city and the routes it runs.
export function MembersProfile({ lang }: ScreenProps) {
  const { t } = useT();
  return (
    <>
      <PageHead title={t('membersProfile.title')} lead={t('membersProfile.intro')} icon={Users} />
      <section aria-label={t('membersProfile.title')}>
        <ul className="cards member-list">
          {members.map((m) => (
            <li className="card linked member-card" key={m.slug}>
              <div className="member-card-head">
                <Monogram name={m.name} />
                <div>
                  <h2>
                    <a href={localePath(lang, `/member-details-${m.slug}`)}>{inLanguage(m, lang).name}</a>
                  </h2>
                  <p className="member-city">
                    <MapPin className="icon" />
                    {t(`memberProfiles.${m.slug}.city`)}
                  </p>
                </div>
              </div>
              <RouteChips routes={t(`memberProfiles.${m.slug}.routes`)} />
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
