// The live-reload script of `freightsite dev`: only the dev server's pages
// load it (never a build's). It listens to the server's events: "reload"
// after a rebuild changed this page, "css" when only the stylesheet
// changed (swapped in place, the page keeps its state), and "status",
// the errors of the last rebuild and of the type check, shown over the
// page. Styles are set through the CSSOM, which the pages' CSP allows.
(() => {
  const events = new EventSource('/__dev/events?path=' + encodeURIComponent(location.pathname));
  // Tests and the benchmark wait for this before they save a file.
  events.onopen = () => (document.documentElement.dataset.devLive = 'open');
  events.addEventListener('reload', () => location.reload());
  events.addEventListener('css', (e) => {
    const href = e.data;
    const prefix = href.slice(0, href.lastIndexOf('-') + 1);
    for (const old of document.querySelectorAll('link[rel="stylesheet"]')) {
      if (!old.getAttribute('href').startsWith(prefix)) continue;
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = href;
      link.onload = () => old.remove();
      old.after(link);
    }
  });
  events.addEventListener('status', (e) => show(JSON.parse(e.data)));

  const id = 'freightsite-dev-overlay';
  function show(status) {
    document.getElementById(id)?.remove();
    if (status.build.length === 0 && status.types.length === 0) return;
    const box = document.createElement('div');
    box.id = id;
    box.setAttribute('role', 'alert');
    Object.assign(box.style, {
      position: 'fixed', left: '0', right: '0', bottom: '0', maxHeight: '60vh', overflow: 'auto', zIndex: '2147483647',
      background: '#1e1e1e', color: '#f0f0f0', font: '14px/1.5 ui-monospace, monospace', padding: '1rem 1.5rem',
      borderTop: '4px solid ' + (status.build.length > 0 ? '#e5484d' : '#f5a524'), whiteSpace: 'pre-wrap',
    });
    const close = box.appendChild(document.createElement('button'));
    close.type = 'button';
    close.textContent = '×';
    close.setAttribute('aria-label', 'Close');
    Object.assign(close.style, { float: 'right', font: 'inherit', fontSize: '20px', background: 'none', color: 'inherit', border: '0', cursor: 'pointer' });
    close.onclick = () => box.remove();
    section(box, status.build, 'Build failed: this page shows the last good build', 'build');
    section(box, status.types, 'Type errors (the page still reloads)', 'types');
    document.body.append(box);
  }
  function section(box, problems, title, kind) {
    if (problems.length === 0) return;
    const h = box.appendChild(document.createElement('strong'));
    h.textContent = title;
    for (const p of problems) {
      const item = box.appendChild(document.createElement('div'));
      item.dataset.kind = kind;
      item.className = 'problem';
      Object.assign(item.style, { margin: '0.75rem 0' });
      const where = item.appendChild(document.createElement('div'));
      where.className = 'where';
      where.textContent = p.file ? `${p.file}:${p.line}:${p.column}` : '';
      Object.assign(where.style, { color: '#7cc4fa' });
      item.appendChild(document.createElement('div')).textContent = p.message;
      if (p.lineText) {
        const code = item.appendChild(document.createElement('div'));
        code.textContent = `${p.lineText}\n${' '.repeat(Math.max(0, p.column - 1))}^`;
        Object.assign(code.style, { color: '#aaa' });
      }
    }
  }
})();
