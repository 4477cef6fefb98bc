// A worker of the Node engine (node.go): it runs the server bundle in V8
// and answers the generator's requests, one JSON message a line each way:
//   {"id":1,"op":"init","parts":[["program",702258],["LOCALES",403950],...]}
//     followed by those parts' bytes as they are (UTF-8, no line break):
//     the bundle, then each global's value, so that the megabyte of code
//     and texts is neither escaped nor parsed as JSON on either side
//   {"id":2,"op":"render","path":"/faq","lang":"hi","year":2030}
//   {"id":3,"op":"routes"}  {"id":4,"op":"favicon"}
// and {"id":N,"ok":VALUE} or {"id":N,"error":"MESSAGE"} back. It ends when
// its standard input does.
'use strict';
const vm = require('vm');

// React's escapeTextForBrowser, as the generator's escapeHTML gives it to
// goja (render.go): the server bundle calls it for every text.
const entities = { '"': '&quot;', '&': '&amp;', "'": '&#x27;', '<': '&lt;', '>': '&gt;' };
function escapeHTML(s) {
  return typeof s === 'string' && /["&'<>]/.test(s) ? s.replace(/["&'<>]/g, (c) => entities[c]) : s;
}

const write = (m) => process.stdout.write(JSON.stringify(m) + '\n');
let site;

function handle(m, parts) {
  try {
    switch (m.op) {
      case 'init': {
        for (const [name, value] of Object.entries(parts)) if (name !== 'program') globalThis[name] = value;
        globalThis.__log = () => {};
        globalThis.__escapeHTML = escapeHTML;
        vm.runInThisContext(parts.program, { filename: 'server.js' });
        site = globalThis.Site;
        write({ id: m.id, ok: true });
        break;
      }
      case 'routes':
        write({ id: m.id, ok: site.routes() });
        break;
      case 'favicon':
        write({ id: m.id, ok: site.favicon() });
        break;
      case 'render':
        write({ id: m.id, ok: site.render(m.path, m.lang, m.year) });
        break;
      default:
        write({ id: m.id, error: 'no such request: ' + m.op });
    }
  } catch (e) {
    write({ id: m.id, error: String((e && e.stack) || e) });
  }
}

// The input as it comes: a line, and after an init line its parts.
let buf = Buffer.alloc(0);
let waiting = null; // an init line whose parts have not all come
process.stdin.on('data', (chunk) => {
  buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
  for (;;) {
    if (waiting) {
      const need = waiting.parts.reduce((n, [, size]) => n + size, 0);
      if (buf.length < need) return;
      const parts = {};
      let at = 0;
      for (const [name, size] of waiting.parts) {
        parts[name] = buf.toString('utf8', at, at + size);
        at += size;
      }
      buf = buf.subarray(at);
      const m = waiting;
      waiting = null;
      handle(m, parts);
      continue;
    }
    const end = buf.indexOf(10);
    if (end < 0) return;
    const m = JSON.parse(buf.toString('utf8', 0, end));
    buf = buf.subarray(end + 1);
    if (m.parts) waiting = m;
    else handle(m, {});
  }
});
process.stdin.on('end', () => process.exit(0));
