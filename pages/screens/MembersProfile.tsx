import { useT } from '../lib/i18n';
import members from '../../data/members.json';
import type { ScreenProps } from '../routes';
import { inLanguage, localePath } from '../lib/site';

// MembersProfile links the five member profile pages (SPEC §2), each with
// the routes the member runs.
export function MembersProfile({ lang }: ScreenProps) {
  const { t } = useT();
  return (
    <section className="page">
      <h1>{t('membersProfile.title')}</h1>
      <p className="lead">{t('membersProfile.intro')}</p>
      <ul className="member-list">
        {members.map((m) => (
          <li key={m.slug}>
            <a href={localePath(lang, `/member-details-${m.slug}`)}>{inLanguage(m, lang).name}</a>
            <p>{t(`memberProfiles.${m.slug}.routes`)}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
