// HeroArt is the home page's illustration: a map of India with the
// network's main freight routes between its hubs, and a truck on the
// highway in front. It is drawn here, inline (no request, no layout
// shift), with its colours from the design tokens (home.css), so it
// follows the dark scheme and a tenant's theme. Decorative: the hero's
// text says what it shows.

// India's outline, simplified from longitude and latitude (x = 214 +
// 9.8 (lon - 68), y = 8 + 10.6 (37.5 - lat)).
const india =
  'M279 13 290 16 302 28 315 29 327 41 320 56 326 62 317 73 322 78 334 84 333 100 344 106 364 115 377 116 389 123 410 125 411 110 418 117 428 121 449 120 467 112 482 105 500 106 490 116 482 125 475 138 472 151 463 156 462 169 454 172 452 156 445 151 451 141 434 138 429 134 420 131 414 137 419 148 417 163 420 174 406 176 399 183 394 194 382 201 371 211 354 229 343 237 335 243 335 265 331 282 330 296 324 305 315 311 307 319 298 311 294 298 289 283 281 268 274 248 267 231 262 205 261 189 259 178 256 170 248 183 234 182 224 169 237 163 220 158 217 153 231 148 243 147 240 134 235 125 229 119 236 110 251 100 266 88 278 78 281 66 276 57 272 45 269 36 274 25Z';

// Hubs (Delhi, Mumbai, Kolkata, Chennai, Bengaluru) and towns on the
// routes (Ludhiana, Ahmedabad, Nagpur, Pune, Hyderabad, Guwahati).
const hubs = [
  [304, 102],
  [262, 203],
  [414, 166],
  [335, 266],
  [308, 267],
];
const towns = [
  [291, 78],
  [259, 161],
  [323, 182],
  [272, 209],
  [317, 221],
  [446, 129],
];
const routes = [
  'M291 78Q296 92 304 102',
  'M304 102Q262 128 259 161Q253 185 262 203',
  'M304 102Q376 110 414 166',
  'M262 203Q296 174 323 182Q372 162 414 166',
  'M262 203Q268 252 308 267Q321 258 335 266',
  'M335 266Q394 236 414 166Q430 139 446 129',
  'M317 221 323 182',
];

export function HeroArt() {
  return (
    <svg className="hero-art" viewBox="0 0 520 400" aria-hidden="true" focusable="false">
      <circle className="art-sky" cx="360" cy="165" r="160" />
      <path className="art-land" d={india} />
      {routes.map((d) => (
        <path key={d} className="art-route" d={d} />
      ))}
      {towns.map(([x, y]) => (
        <circle key={`${x},${y}`} className="art-town" cx={x} cy={y} r="3.5" />
      ))}
      {hubs.map(([x, y]) => (
        <circle key={`${x},${y}`} className="art-hub" cx={x} cy={y} r="6" />
      ))}
      <path className="art-road" d="M0 352h520v34H0z" />
      <path className="art-lane" d="M0 369h520" />
      <g className="art-truck">
        <path className="art-speed" d="M18 302h34M6 318h40M22 334h26" />
        <rect className="art-container" x="62" y="278" width="124" height="62" rx="5" />
        <path className="art-stripe" d="M62 326h124v8a6 6 0 0 1-6 6H68a6 6 0 0 1-6-6z" />
        <path className="art-cab" d="M192 292h28c4 0 7 2 9 5l14 20c2 3 3 6 3 9v10a4 4 0 0 1-4 4h-50z" />
        <path className="art-window" d="M204 300h16l13 18h-29z" />
        <path className="art-chassis" d="M58 340h188v6H58z" />
        {[94, 150, 220].map((x) => (
          <g key={x}>
            <circle className="art-wheel" cx={x} cy="348" r="12" />
            <circle className="art-hubcap" cx={x} cy="348" r="4.5" />
          </g>
        ))}
      </g>
    </svg>
  );
}
