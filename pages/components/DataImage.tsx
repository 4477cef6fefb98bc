import type { SiteImage } from '../lib/images';

interface Props {
  image: SiteImage;
  // alt is empty where the picture only repeats the words beside it.
  alt: string;
  // sizes says how wide the picture shows, for the browser's choice from
  // the width set (a photo's).
  sizes?: string;
  className?: string;
  // eager loads a picture at the top of the page at once; the others load
  // as they come into view.
  eager?: boolean;
}

// DataImage is an image of data/images: its width set where it is a
// photo, its size so nothing moves as it loads, loaded lazily.
export function DataImage({ image, alt, sizes, className, eager }: Props) {
  return (
    <img
      className={className}
      src={image.src}
      srcSet={image.srcSet}
      sizes={image.srcSet ? sizes : undefined}
      width={image.width}
      height={image.height}
      alt={alt}
      loading={eager ? undefined : 'lazy'}
      decoding="async"
    />
  );
}
