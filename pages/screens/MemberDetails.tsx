import { useT } from '../lib/i18n';
import members from '../../data/members.json';
import type { ScreenProps } from '../routes';
import { inLanguage } from '../lib/site';

type Member = (typeof members)[number];

// MemberDetails is one member's profile page (SPEC §2): the facts of
// data/members.json (name, owner, phone, e-mail, web site; the names in
// the page's language) with the prose translated per member slug under
// memberProfiles in the locales.
export function MemberDetails({ member: record, lang }: ScreenProps & { member: Member }) {
  const { t } = useT();
  const member = inLanguage(record, lang);
  const text = (field: string) => t(`memberProfiles.${member.slug}.${field}`);
  return (
    <section className="page">
      <h1>{member.name}</h1>
      <p className="lead">{text('description')}</p>
      <dl className="facts">
        <dt>{t('memberDetails.owner')}</dt>
        <dd>{member.owner}</dd>
        <dt>{t('memberDetails.routes')}</dt>
        <dd>{text('routes')}</dd>
        <dt>{t('memberDetails.office')}</dt>
        <dd>{text('office')}</dd>
        <dt>{t('memberDetails.phone')}</dt>
        <dd>
          <a href={`tel:${member.phone.replace(/\s/g, '')}`}>{member.phone}</a>
        </dd>
        <dt>{t('memberDetails.email')}</dt>
        <dd>
          <a href={`mailto:${member.email}`}>{member.email}</a>
        </dd>
        <dt>{t('memberDetails.address')}</dt>
        <dd>{text('address')}</dd>
        <dt>{t('memberDetails.hours')}</dt>
        <dd>{text('hours')}</dd>
        <dt>{t('memberDetails.website')}</dt>
        <dd>
          <a href={member.url} target="_blank" rel="noopener noreferrer" className="external">
            {member.url.replace(/^https?:\/\//, '').replace(/\/$/, '')}
            <span className="visually-hidden"> {t('memberDetails.external')}</span>
          </a>
        </dd>
      </dl>
    </section>
  );
}
