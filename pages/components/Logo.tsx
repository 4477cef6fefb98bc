// LogoMark is the network's mark: a route climbing across a tile, from a
// white start to a saffron destination. The same markup is the favicon
// (server.tsx renders it for the build), so its colours are written on
// the shapes for a file that has no stylesheet; on a page, the classes
// (site.css) replace them with the design tokens, and a tenant's theme
// recolours the tile. The build also draws the icons and link previews from
// it (generator/images.go), with a rasterizer that needs ry written out.
export function LogoMark() {
  return (
    <svg className="brand-mark" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect className="logo-tile" width="32" height="32" rx="8" ry="8" fill="#0b5394" />
      <path className="logo-route" d="M7 23.5 13 15l5.5 4.5L25 9" fill="none" stroke="#fff" strokeWidth="2.6" strokeLinecap="round" strokeLinejoin="round" />
      <circle className="logo-start" cx="7" cy="23.5" r="2.6" fill="#fff" />
      <circle className="logo-end" cx="25" cy="9" r="3.2" fill="#f59e0b" />
    </svg>
  );
}
