// A worker of the Node engine (node.go): it runs the server bundle in V8
// and answers the generator's requests, one JSON message a line each way:
//   {"id":1,"op":"init","program":"...","globals":{"LOCALES":"..."}}
//   {"id":2,"op":"render","path":"/faq","lang":"hi","year":2030}
//   {"id":3,"op":"routes"}  {"id":4,"op":"favicon"}
// and {"id":N,"ok":VALUE} or {"id":N,"error":"MESSAGE"} back. It ends when
// its standard input does.
'use strict';
const vm = require('vm');
const readline = require('readline');

// React's escapeTextForBrowser, as the generator's escapeHTML gives it to
// goja (render.go): the server bundle calls it for every text.
const entities = { '"': '&quot;', '&': '&amp;', "'": '&#x27;', '<': '&lt;', '>': '&gt;' };
function escapeHTML(s) {
  return typeof s === 'string' && /["&'<>]/.test(s) ? s.replace(/["&'<>]/g, (c) => entities[c]) : s;
}

const write = (m) => process.stdout.write(JSON.stringify(m) + '\n');
let site;
readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
  .on('line', (line) => {
    const m = JSON.parse(line);
    try {
      switch (m.op) {
        case 'init':
          for (const [name, value] of Object.entries(m.globals)) globalThis[name] = value;
          globalThis.__log = () => {};
          globalThis.__escapeHTML = escapeHTML;
          vm.runInThisContext(m.program, { filename: 'server.js' });
          site = globalThis.Site;
          write({ id: m.id, ok: true });
          break;
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
  })
  .on('close', () => process.exit(0));
