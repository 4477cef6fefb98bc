import MapPin from 'lucide-react/icons/map-pin';
import Users from 'lucide-react/icons/users';
import members from '../../data/members.json';
import { MemberLogo } from '../components/MemberLogo';
import { MemberPhoto } from '../components/MemberPhoto';
import { PageHead } from '../components/PageHead';
import { RouteChips } from '../components/RouteChips';
import { useT } from '../lib/i18n';
import { inLanguage, localePath } from '../lib/site';
import type { ScreenProps } from '../routes';

// MembersProfile links the five member profile pages (SPEC §2): a card
// each with the member's photo, logo, city and the routes it runs.
export function MembersProfile({ lang }: ScreenProps) {
  const { t } = useT();
  return (
    <>
      <PageHead title={t('membersProfile.title')} lead={t('membersProfile.intro')} icon={Users} />
      <section aria-label={t('membersProfile.title')}>
        <ul className="cards member-list">
          {members.map((m) => {
            const name = inLanguage(m, lang).name;
            return (
              <li className="card linked member-card" key={m.slug}>
                <MemberPhoto name={name} record={m} sizes="(min-width: 60rem) 23rem, (min-width: 36rem) 45vw, 92vw" className="member-card-photo" />
                <div className="member-card-head">
                  <MemberLogo name={m.name} logo={m.logo} />
                  <div>
                    <h2>
                      <a href={localePath(lang, `/member-details-${m.slug}`)}>{name}</a>
                    </h2>
                    <p className="member-city">
                      <MapPin className="icon" />
                      {t(`memberProfiles.${m.slug}.city`)}
                    </p>
                  </div>
                </div>
                <RouteChips routes={t(`memberProfiles.${m.slug}.routes`)} />
              </li>
            );
          })}
        </ul>
      </section>
    </>
  );
}
