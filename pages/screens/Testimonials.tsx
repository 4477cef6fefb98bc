import MessageSquareQuote from 'lucide-react/icons/message-square-quote';
import Quote from 'lucide-react/icons/quote';
import { PageHead } from '../components/PageHead';
import { QuoteCaption } from '../components/QuoteCaption';
import { useT } from '../lib/i18n';
import { Prose } from './Prose';
import { ReadMore } from './ReadMore';

const stars = 5;

// Testimonials: one five-star testimonial whose full story is collapsed
// behind Read more (SPEC §2), as a quote with the member's name and place.
// The stars are one image to assistive technology, named by the rating.
export function Testimonials() {
  const { t } = useT();
  return (
    <>
      <PageHead title={t('testimonials.title')} lead={t('testimonials.intro')} icon={MessageSquareQuote} />
      <section aria-label={t('testimonials.title')}>
        <figure className="quote testimonial">
          <Quote className="icon quote-mark" />
          <p className="stars" role="img" aria-label={t('testimonials.rating', { stars, max: stars })}>
            {'★'.repeat(stars)}
          </p>
          <blockquote>
            <p>{t('testimonials.quote')}</p>
            <ReadMore>
              <Prose text={t('testimonials.story')} />
            </ReadMore>
          </blockquote>
          <QuoteCaption />
        </figure>
      </section>
    </>
  );
}
