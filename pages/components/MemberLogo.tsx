import { dataImage } from '../lib/images';
import { DataImage } from './DataImage';
import { Monogram } from './Monogram';

// MemberLogo is a member's (or a person's) logo from data/images, or,
// where the record has none, the initials of the name in a brand tile.
// Decorative: the name is written beside it.
export function MemberLogo({ name, logo, className, eager }: { name: string; logo?: string; className?: string; eager?: boolean }) {
  const image = dataImage(logo);
  if (!image) return <Monogram name={name} className={className} />;
  return <DataImage image={image} alt="" className={className ? `logo ${className}` : 'logo'} eager={eager} />;
}
