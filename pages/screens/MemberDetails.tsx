import { useT } from '../lib/i18n';
import members from '../../data/members.json';
import type { ScreenProps } from '../routes';

type Member = (typeof members)[number];

// MemberDetails is one member's profile page (SPEC §2).
export function MemberDetails({ member }: ScreenProps & { member: Member }) {
  const { t } = useT();
  return (
    <section className="page">
      <h1>{member.name}</h1>
      <dl className="facts">
        <dt>{t('memberDetails.owner')}</dt>
        <dd>{member.owner}</dd>
        <dt>{t('memberDetails.phone')}</dt>
        <dd>
          <a href={`tel:${member.phone.replace(/\s/g, '')}`}>{member.phone}</a>
        </dd>
        <dt>{t('memberDetails.email')}</dt>
        <dd>
          <a href={`mailto:${member.email}`}>{member.email}</a>
        </dd>
      </dl>
    </section>
  );
}
