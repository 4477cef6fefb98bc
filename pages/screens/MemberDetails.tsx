import ArrowLeft from 'lucide-react/icons/arrow-left';
import Building2 from 'lucide-react/icons/building-2';
import Clock from 'lucide-react/icons/clock';
import Globe from 'lucide-react/icons/globe';
import Mail from 'lucide-react/icons/mail';
import MapPin from 'lucide-react/icons/map-pin';
import Phone from 'lucide-react/icons/phone';
import Route from 'lucide-react/icons/route';
import User from 'lucide-react/icons/user';
import members from '../../data/members.json';
import { Facts } from '../components/Facts';
import { MemberLogo } from '../components/MemberLogo';
import { MemberPhoto } from '../components/MemberPhoto';
import { RouteChips } from '../components/RouteChips';
import { useT } from '../lib/i18n';
import { inLanguage, localePath } from '../lib/site';
import type { ScreenProps } from '../routes';

type Member = (typeof members)[number];

// MemberDetails is one member's profile page (SPEC §2): the facts of
// data/members.json (name, owner, phone, e-mail, web site; the names in
// the page's language) with the prose translated per member slug under
// memberProfiles in the locales, its logo and its photo (data/images).
export function MemberDetails({ member: record, lang }: ScreenProps & { member: Member }) {
  const { t } = useT();
  const member = inLanguage(record, lang);
  const text = (field: string) => t(`memberProfiles.${member.slug}.${field}`);
  return (
    <>
      <header className="page-head member-head">
        <MemberLogo name={record.name} logo={record.logo} eager />
        <div>
          <h1>{member.name}</h1>
          <p className="lead">{text('description')}</p>
          <RouteChips routes={text('routes')} />
        </div>
      </header>
      <div className="member-body">
        <MemberPhoto name={member.name} record={record} sizes="(min-width: 56rem) 36rem, 92vw" className="member-body-photo" />
        <section className="card member-facts" aria-labelledby="member-company">
          <h2 id="member-company">{t('memberDetails.company')}</h2>
          <Facts
            rows={[
              [User, t('memberDetails.owner'), member.owner],
              [Route, t('memberDetails.routes'), text('routes')],
              [Building2, t('memberDetails.office'), text('office')],
            ]}
          />
        </section>
        <section className="card member-facts member-contact" aria-labelledby="member-contact">
          <h2 id="member-contact">{t('memberDetails.contact')}</h2>
          <Facts
            rows={[
              [Phone, t('memberDetails.phone'), <a href={`tel:${member.phone.replace(/\s/g, '')}`}>{member.phone}</a>],
              [Mail, t('memberDetails.email'), <a href={`mailto:${member.email}`}>{member.email}</a>],
              [MapPin, t('memberDetails.address'), text('address')],
              [Clock, t('memberDetails.hours'), text('hours')],
              [
                Globe,
                t('memberDetails.website'),
                <a href={member.url} target="_blank" rel="noopener noreferrer" className="external">
                  {member.url.replace(/^https?:\/\//, '').replace(/\/$/, '')}
                  <span className="visually-hidden"> {t('memberDetails.external')}</span>
                </a>,
              ],
            ]}
          />
        </section>
        <p>
          <a className="back-link" href={localePath(lang, '/members-profile')}>
            <ArrowLeft className="icon" />
            {t('memberDetails.back')}
          </a>
        </p>
      </div>
    </>
  );
}
