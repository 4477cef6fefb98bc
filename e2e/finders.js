// Finders that look for what a visitor sees, for the browser tests'
// expressions (harness_test.go puts them into the page the first time an
// expression names one): byRole and byLabel find what assistive technology
// announces, byText what is on screen. None of them reads a CSS class, so
// restyling the site breaks no test.
//
//   byRole(role, name?, within?)     the first element with that ARIA role
//                                    (explicit or implied by its tag) and,
//                                    if given, that accessible name; null
//                                    when there is none
//   allByRole(role, name?, within?)  every such element, in page order
//   byLabel(label, within?)          the form control with that label
//   byText(text, within?)            the innermost element on screen whose
//                                    text is text
//   nameOf(el), descriptionOf(el)    what assistive technology reads out
//   fieldErrors(within?)             each invalid control's label and error
//
// A name or text is a string, matched whole once white space is collapsed,
// or a RegExp. byRole and byLabel leave out what assistive technology
// cannot reach (hidden, aria-hidden, in a closed <details>); byText leaves
// out only what is not on screen. within is an element (default: the
// document).
(function () {
  const norm = (s) => s.replace(/\s+/g, ' ').trim();
  const matches = (value, want) => (want instanceof RegExp ? want.test(value) : value === norm(want));

  // The roles HTML elements have without a role attribute (HTML-AAM), for
  // the elements this site uses. A summary is a disclosure button to
  // assistive technology (Chromium announces it as one).
  const tagRoles = {
    article: 'article', aside: 'complementary', blockquote: 'blockquote', button: 'button', dd: 'definition', details: 'group',
    dialog: 'dialog', dt: 'term', fieldset: 'group', figure: 'figure', h1: 'heading', h2: 'heading', h3: 'heading',
    h4: 'heading', h5: 'heading', h6: 'heading', hr: 'separator', li: 'listitem', main: 'main', menu: 'list', nav: 'navigation',
    ol: 'list', optgroup: 'group', option: 'option', output: 'status', p: 'paragraph', progress: 'progressbar', summary: 'button',
    table: 'table', tbody: 'rowgroup', td: 'cell', textarea: 'textbox', tfoot: 'rowgroup', thead: 'rowgroup',
    time: 'time', tr: 'row', ul: 'list',
  };
  const inputRoles = {
    button: 'button', checkbox: 'checkbox', email: 'textbox', file: 'button', image: 'button', number: 'spinbutton',
    password: 'textbox', radio: 'radio', range: 'slider', reset: 'button', search: 'searchbox', submit: 'button', tel: 'textbox',
    text: 'textbox', url: 'textbox',
  };

  function roleOf(el) {
    const explicit = el.getAttribute('role');
    if (explicit && explicit.trim()) return explicit.trim().split(/\s+/)[0];
    const tag = el.localName;
    switch (tag) {
      case 'a':
      case 'area':
        return el.hasAttribute('href') ? 'link' : null;
      case 'img':
        return el.getAttribute('alt') === '' ? 'presentation' : 'img';
      case 'input': {
        const type = (el.getAttribute('type') || 'text').toLowerCase();
        const role = inputRoles[type] ?? null;
        return el.hasAttribute('list') && (role === 'textbox' || role === 'searchbox') ? 'combobox' : role;
      }
      case 'select':
        return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'header':
      case 'footer':
        // A page's own header and footer, not those of a section in it.
        return el.parentElement?.closest('article, aside, main, nav, section') ? null : tag === 'header' ? 'banner' : 'contentinfo';
      case 'th':
        return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'section':
      case 'form':
        return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? (tag === 'form' ? 'form' : 'region') : null;
      default:
        return tagRoles[tag] ?? null;
    }
  }

  // Roles whose name is their content when nothing else names them.
  const namedByContent = new Set(['button', 'cell', 'checkbox', 'columnheader', 'heading', 'link', 'menuitem', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'term', 'tooltip', 'treeitem']);

  const ariaHidden = (el) => el.closest('[aria-hidden="true"]') !== null;
  // onScreen: rendered (not display: none, visibility: hidden, nor in a
  // closed <details>), whatever its size: visually hidden text is there
  // for screen readers.
  const onScreen = (el) => el.checkVisibility({ visibilityProperty: true });
  const reachable = (el) => onScreen(el) && !ariaHidden(el);

  // textOf is the text of a subtree as assistive technology reads it: no
  // aria-hidden or undisplayed parts, images by their alt text, text
  // fields and selects by their value; self, the element being named, is
  // left out of its label's text.
  function textOf(node, self) {
    if (node.nodeType === Node.TEXT_NODE) return node.data;
    if (node.nodeType !== Node.ELEMENT_NODE || node === self) return '';
    if (node.getAttribute('aria-hidden') === 'true' || (!onScreen(node) && getComputedStyle(node).display !== 'contents')) return '';
    if (node.hasAttribute('aria-label') && node.getAttribute('aria-label').trim()) return ` ${node.getAttribute('aria-label')} `;
    switch (node.localName) {
      case 'img':
        return node.getAttribute('alt') ?? '';
      case 'input':
        return ['textbox', 'searchbox', 'combobox', 'spinbutton'].includes(roleOf(node)) ? node.value : '';
      case 'textarea':
        return node.value;
      case 'select':
        return node.selectedOptions[0]?.textContent ?? '';
      case 'br':
        return ' ';
    }
    const inner = [...node.childNodes].map((n) => textOf(n, self)).join('');
    return getComputedStyle(node).display.startsWith('inline') ? inner : ` ${inner} `;
  }

  const byIds = (ids) =>
    norm(
      (ids || '')
        .split(/\s+/)
        .map((id) => document.getElementById(id))
        .filter(Boolean)
        .map((n) => textOf(n))
        .join(' '),
    );

  function nameOf(el) {
    if (el.hasAttribute('aria-labelledby')) return byIds(el.getAttribute('aria-labelledby'));
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) return norm(label);
    if (el.labels?.length) {
      const shown = [...el.labels].filter((l) => !ariaHidden(l));
      if (shown.length) return norm(shown.map((l) => textOf(l, el)).join(' '));
    }
    switch (el.localName) {
      case 'img':
        return norm(el.getAttribute('alt') ?? el.title ?? '');
      case 'fieldset': {
        const legend = el.querySelector(':scope > legend');
        if (legend) return norm(textOf(legend));
        break;
      }
      case 'details': {
        const summary = el.querySelector(':scope > summary');
        if (summary) return norm(textOf(summary));
        break;
      }
      case 'figure': {
        const caption = el.querySelector(':scope > figcaption');
        if (caption) return norm(textOf(caption));
        break;
      }
      case 'table': {
        const caption = el.querySelector(':scope > caption');
        if (caption) return norm(textOf(caption));
        break;
      }
      case 'input':
        if (['button', 'submit', 'reset'].includes(el.type)) return norm(el.value);
    }
    if (namedByContent.has(roleOf(el))) return norm([...el.childNodes].map((n) => textOf(n)).join(''));
    return norm(el.title || el.getAttribute('placeholder') || '');
  }

  const descriptionOf = (el) => byIds(el.getAttribute('aria-describedby'));

  function allByRole(role, name, within = document) {
    return [...within.querySelectorAll('*')].filter((el) => roleOf(el) === role && reachable(el) && (name === undefined || matches(nameOf(el), name)));
  }
  const byRole = (role, name, within) => allByRole(role, name, within)[0] ?? null;

  const labelable = 'input:not([type=hidden]), select, textarea, button, [role=textbox], [role=combobox], [role=checkbox], [role=radio], [role=switch], [role=slider], [role=spinbutton]';
  function byLabel(label, within = document) {
    return [...within.querySelectorAll(labelable)].find((el) => reachable(el) && matches(nameOf(el), label)) ?? null;
  }

  function byText(text, within = document) {
    const hits = [...within.querySelectorAll('*')].filter((el) => el.localName !== 'script' && el.localName !== 'style' && onScreen(el) && matches(norm(el.textContent), text));
    return hits.find((el) => !hits.some((other) => other !== el && el.contains(other))) ?? null;
  }

  // fieldErrors maps the label of each control marked invalid to its
  // error: the last of the texts that describe it (a hint comes first).
  function fieldErrors(within = document) {
    const out = {};
    for (const el of within.querySelectorAll('[aria-invalid="true"]')) {
      if (!reachable(el)) continue;
      const ids = (el.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
      const error = document.getElementById(ids[ids.length - 1]);
      out[nameOf(el)] = error ? norm(textOf(error)) : '';
    }
    return out;
  }

  Object.assign(globalThis, { byRole, allByRole, byLabel, byText, nameOf, descriptionOf, roleOf, fieldErrors });
})();
