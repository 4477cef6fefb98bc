// Runs Lighthouse (mobile defaults: simulated slow 4G and a 4x slower
// CPU) on each URL given, one after the other, in the Chromium that listens
// on --port, and prints one JSON array: per URL the four category scores,
// the main timings and every audit that lost points. e2e/lighthouse_test.go
// starts the browser and the site, runs this and judges the figures.
//
//	node e2e/lighthouse.mjs --port 9222 http://127.0.0.1:8080/ http://127.0.0.1:8080/faq
import lighthouse from 'lighthouse';
import puppeteer from 'puppeteer-core';

const args = process.argv.slice(2);
const at = args.indexOf('--port');
if (at < 0 || !args[at + 1]) {
  console.error('usage: node e2e/lighthouse.mjs --port PORT URL...');
  process.exit(2);
}
const port = Number(args[at + 1]);
const urls = args.filter((_, i) => i !== at && i !== at + 1);

const metrics = {
  fcp: 'first-contentful-paint',
  lcp: 'largest-contentful-paint',
  tbt: 'total-blocking-time',
  cls: 'cumulative-layout-shift',
  si: 'speed-index',
};

// traceSummary says what the trace holds about the page's navigation,
// shown with a runtime error such as NO_NAVSTART ("the trace has no
// navigationStart of the page"): the renderer the page committed in, when
// that renderer's first traced event came, and every navigationStart
// (renderer:URL, "-" when it names none; see startDebuggableChromium in
// lighthouse_test.go).
function traceSummary(trace) {
  const events = trace?.traceEvents ?? [];
  const commit = events.find((e) => e.name === 'FrameCommittedInBrowser' && /^https?:/.test(e.args.data?.url ?? ''));
  if (!commit) return 'no page committed in the trace';
  // A renderer launched for the navigation is named when it is ready.
  const pid = commit.args.data.processId ?? events.find((e) => e.name === 'ProcessReadyInBrowser' && e.args.data?.processPseudoId === commit.args.data.processPseudoId)?.args.data.processId;
  const first = Math.min(...events.filter((e) => e.pid === pid && e.ts > 0).map((e) => e.ts));
  const starts = events.filter((e) => e.name === 'navigationStart').map((e) => `${e.pid}:${e.args.data?.documentLoaderURL || '-'}`);
  return `committed ${commit.args.data.url} in renderer ${pid}, whose first traced event came ${((first - commit.ts) / 1000).toFixed(1)} ms after the commit; navigationStart events ${starts.join(' ') || 'none'}`;
}

// Each audit is a first visit: Lighthouse resets the storage of the
// origin it audits, but not of the others, and the not-found page is
// audited on a second origin (the test's proxy). A service worker an
// earlier audit installed there would stay and add Total Blocking Time
// to every later audit in the browser. So after each audit its origin's
// storage, service workers included, is cleared.
const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${port}`, defaultViewport: null });
const blank = await browser.newPage(); // Storage commands need a page's session
const cdp = await blank.createCDPSession();

const results = [];
for (const [i, url] of urls.entries()) {
  const run = await lighthouse(url, {
    port,
    logLevel: 'error',
    output: 'json',
    onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
    // Two steps that score nothing and take a good part of an audit:
    // the full-page screenshot is only the HTML report's picture of the
    // elements an audit names, and the back/forward-cache check (it
    // navigates away and back) weighs 0 in every category.
    disableFullPageScreenshot: true,
    skipAudits: ['bf-cache'],
  });
  const lhr = run.lhr;
  const scores = Object.fromEntries(Object.values(lhr.categories).map((c) => [c.id, c.score]));
  // An audit counts when a category weighs it; a weightless one (an
  // "insight" or a diagnostic) is shown only when it failed outright.
  const weight = {};
  for (const c of Object.values(lhr.categories)) for (const ref of c.auditRefs) weight[ref.id] = (weight[ref.id] ?? 0) + ref.weight;
  const failing = Object.values(lhr.audits)
    .filter((a) => a.score !== null && a.score < 1 && ['binary', 'numeric', 'metricSavings'].includes(a.scoreDisplayMode))
    .filter((a) => weight[a.id] > 0 || a.score === 0)
    .map((a) => ({ id: a.id, title: a.title, score: a.score, weight: weight[a.id] ?? 0, value: a.displayValue ?? '', items: (a.details?.items ?? []).slice(0, 5).map((i) => i.node?.snippet ?? i.url ?? i.source?.url ?? i.description ?? '') }));
  results.push({
    url,
    finalUrl: lhr.finalDisplayedUrl,
    runtimeError: lhr.runtimeError ? `${lhr.runtimeError.message} [${traceSummary(run.artifacts.Trace)}]` : '',
    scores,
    metrics: Object.fromEntries(Object.entries(metrics).map(([k, id]) => [k, lhr.audits[id]?.numericValue ?? null])),
    benchmarkIndex: lhr.environment.benchmarkIndex,
    failing,
  });
  await cdp.send('Storage.clearDataForOrigin', { origin: new URL(url).origin, storageTypes: 'all' });
  // Progress on standard error, one line a page: the audit takes minutes.
  const shown = Object.entries(scores).map(([c, s]) => `${c} ${s}`).join(', ');
  console.error(`audited ${i + 1}/${urls.length}: ${url}: ${shown}`);
}
await blank.close();
await browser.disconnect();
process.stdout.write(JSON.stringify(results, null, 1) + '\n');
