import { useT } from '../lib/i18n';
import { Prose } from './Prose';
import { ReadMore } from './ReadMore';

const stars = 5;

// Testimonials: one five-star testimonial whose full story is collapsed
// behind Read more (SPEC §2). The stars are one image to assistive
// technology, named by the rating.
export function Testimonials() {
  const { t } = useT();
  return (
    <section className="page">
      <h1>{t('testimonials.title')}</h1>
      <p className="lead">{t('testimonials.intro')}</p>
      <figure className="testimonial">
        <p className="stars" role="img" aria-label={t('testimonials.rating', { stars, max: stars })}>
          {'★'.repeat(stars)}
        </p>
        <blockquote>
          <p>{t('testimonials.quote')}</p>
          <ReadMore>
            <Prose text={t('testimonials.story')} />
          </ReadMore>
        </blockquote>
        <figcaption>
          <span className="testimonial-name">{t('testimonials.author')}</span>
          <span className="testimonial-role">{t('testimonials.role')}</span>
        </figcaption>
      </figure>
    </section>
  );
}
