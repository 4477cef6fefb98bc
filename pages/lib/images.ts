// The images of data/images (members' logos and photos, partners' logos,
// testimonials' portraits) as the build published them
// (generator/dataimages.go): each SVG as it is, each photo as WebP at a
// set of widths. SITE_IMAGES is what the server bundle knows of them
// (JSON, by path under data/images); only static screens show them, so
// the client bundle needs none.
declare const SITE_IMAGES: string;

export interface SiteImage {
  src: string;
  srcSet?: string;
  width: number;
  height: number;
}

let images: Record<string, SiteImage> | undefined;

// dataImage is the published image of a path that data/*.json names,
// undefined where a record names none (its picture's default shows).
export function dataImage(path: string | undefined): SiteImage | undefined {
  if (!path) return undefined;
  images ??= JSON.parse(SITE_IMAGES) as Record<string, SiteImage>;
  const image = images[path];
  if (!image) throw new Error(`data/images/${path} does not exist`);
  return image;
}
