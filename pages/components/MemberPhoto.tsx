import { useT } from '../lib/i18n';
import { dataImage } from '../lib/images';
import { DataImage } from './DataImage';
import { MemberLogo } from './MemberLogo';

interface Props {
  // name is the member's name in the page's language; record its data.
  name: string;
  record: { name: string; logo?: string; photo?: string };
  sizes: string;
  className?: string;
}

// MemberPhoto is a member's photo from data/images, described for those
// who cannot see it; a member with none gets the default: its logo on a
// brand panel with a faint route map (decorative: the name is beside it).
export function MemberPhoto({ name, record, sizes, className }: Props) {
  const { t } = useT();
  const photo = dataImage(record.photo);
  const classes = ['member-photo', className].filter(Boolean).join(' ');
  if (photo) return <DataImage image={photo} alt={t('memberDetails.photoAlt', { name })} sizes={sizes} className={classes} />;
  return (
    <div className={`${classes} photo-default`} aria-hidden="true">
      <MemberLogo name={record.name} logo={record.logo} />
    </div>
  );
}
