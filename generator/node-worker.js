// A worker of the Node engine (node.go): it runs the server bundle in V8
// and answers the generator's requests, one JSON message a line each way:
//   {"id":1,"op":"init","parts":[["program",702258],["LOCALES",403950],...]}
//     followed by those parts' bytes as they are (UTF-8, no line break):
//     the bundle, then each global's value, so that the megabyte of code
//     and texts is neither escaped nor parsed as JSON on either side
//   {"id":2,"op":"render","path":"/faq","lang":"hi","year":2030}
//   {"id":3,"op":"routes"}  {"id":4,"op":"favicon"}
//   {"id":5,"op":"setTexts","texts":"{\"hi\":{...}}"} (freightsite dev: a saved translation)
// and {"id":N,"ok":VALUE} or {"id":N,"error":"MESSAGE"} back. A page
// (render) comes back without its body, {"id":N,"ok":PAGE,"after":BYTES},
// and the body's UTF-8 bytes follow the line as they are. It ends when
// its standard input does.
//
// It reads and writes its pipes with blocking system calls (fs.readSync,
// fs.writeSync): it has nothing else to wait for, and Node's streams
// (process.stdin) would load a tenth of Node's own code as it starts.
//
// Its arguments: the source tree's pages/ folder, and the packages the
// server bundle leaves to it (bundle.go's serverVendor, JSON: the module the
// bundle requires, and the file to load for it if not the package's own).
// It loads them from node_modules at once, while esbuild bundles the
// pages, and gives them to the bundle as its require().
'use strict';
const fs = require('fs');

process.env.NODE_ENV = 'production'; // React's and React DOM's production builds
const [pages, vendorJSON] = process.argv.slice(1);
const requireFromPages = require('module').createRequire(pages + '/');
const vendor = new Map(JSON.parse(vendorJSON).map(([name, file]) => [name, file ? require('path').join(pages, '..', 'node_modules', file) : name]));
let vendorError = null;
for (const file of vendor.values()) {
  try {
    requireFromPages(file);
  } catch (e) {
    vendorError = e;
  }
}

function writeAll(b) {
  for (let at = 0; at < b.length; ) {
    try {
      at += fs.writeSync(1, b, at);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
    }
  }
}

const write = (m, after) => {
  const line = JSON.stringify(m) + '\n';
  writeAll(Buffer.from(after === undefined ? line : line + after));
};
let site;

function handle(m, parts) {
  try {
    switch (m.op) {
      case 'init': {
        if (vendorError) throw vendorError;
        for (const [name, value] of Object.entries(parts)) if (name !== 'program') globalThis[name] = value;
        globalThis.__log = () => {};
        globalThis.require = (name) => {
          if (!vendor.has(name)) throw new Error(`the server bundle requires ${name}, which bundle.go's serverVendor does not list`);
          return requireFromPages(vendor.get(name));
        };
        (0, eval)(parts.program + '\n//# sourceURL=server.js');
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
      case 'setTexts':
        site.setTexts(m.texts);
        write({ id: m.id, ok: true });
        break;
      case 'render': {
        const page = site.render(m.path, m.lang, m.year);
        const body = page.body;
        page.body = '';
        write({ id: m.id, ok: page, after: Buffer.byteLength(body) }, body);
        break;
      }
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
function take(chunk) {
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
}

for (;;) {
  const chunk = Buffer.allocUnsafe(1 << 16);
  let n;
  try {
    n = fs.readSync(0, chunk, 0, chunk.length, null);
  } catch (e) {
    if (e.code === 'EAGAIN') continue;
    if (e.code === 'EOF') break;
    throw e;
  }
  if (n === 0) break;
  take(chunk.subarray(0, n));
}
