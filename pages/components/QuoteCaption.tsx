import { useT } from '../lib/i18n';
import { Monogram } from './Monogram';

// QuoteCaption names the member who gave the testimonial: monogram, name
// and place (the home page's quote and the testimonials page).
export function QuoteCaption() {
  const { t } = useT();
  return (
    <figcaption>
      <Monogram name={t('testimonials.author')} />
      <span>
        <span className="quote-name">{t('testimonials.author')}</span>
        <span className="quote-place">{t('testimonials.role')}</span>
      </span>
    </figcaption>
  );
}
