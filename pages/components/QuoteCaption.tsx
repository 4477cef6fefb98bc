import testimonials from '../../data/testimonials.json';
import { useT } from '../lib/i18n';
import { dataImage } from '../lib/images';
import { DataImage } from './DataImage';
import { Monogram } from './Monogram';

// QuoteCaption names the member who gave the testimonial: portrait (data/
// testimonials.json's photo; the initials where there is none), name and
// place (the home page's quote and the testimonials page). The portrait is
// decorative: the name is written beside it.
export function QuoteCaption() {
  const { t } = useT();
  const photo = dataImage(testimonials[0]?.photo);
  return (
    <figcaption>
      {photo ? <DataImage image={photo} alt="" sizes="4rem" className="portrait" /> : <Monogram name={t('testimonials.author')} />}
      <span>
        <span className="quote-name">{t('testimonials.author')}</span>
        <span className="quote-place">{t('testimonials.role')}</span>
      </span>
    </figcaption>
  );
}
