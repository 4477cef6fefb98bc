// Tenants (lib/tenant.ts, SPEC §1 and §3): which labels of a host name the
// tenant's calls use, and the branding they give, kept in session storage
// for the tab. fetch and session storage are stubs here (the browser tests
// drive the real ones).
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { cached, lookUp, tenantLabels } from './tenant';

const storage = new Map<string, string>();
const browser = globalThis as unknown as Record<string, unknown>;
let asked: string[];
let answers: Record<string, () => Response>;

beforeEach(() => {
  storage.clear();
  browser.sessionStorage = {
    getItem: (k: string) => storage.get(k) ?? null,
    setItem: (k: string, v: string) => storage.set(k, v),
  };
  asked = [];
  answers = {};
  browser.fetch = async (url: string) => {
    asked.push(url);
    return (answers[url] ?? (() => new Response('', { status: 404 })))();
  };
  console.info = () => {}; // the lookups' notes of a host without a tenant
});

const hosts: Array<[rule: string, host: string, want: ReturnType<typeof tenantLabels>]> = [
  ["a tenant's subdomain names the tenant for both calls", 'acme.freight.test', { domain: 'acme', alias: 'acme' }],
  ['the network’s www host looks the alias up as www', 'www.freight.test', { domain: 'www', alias: 'www' }],
  ['a host of two labels looks the alias up as www', 'freight.test', { domain: 'freight', alias: 'www' }],
  ['localhost looks the alias up as www', 'localhost', { domain: 'localhost', alias: 'www' }],
  ['an IPv4 address names no tenant', '127.0.0.1', null],
  ['an IPv6 address names no tenant', '[::1]', null],
];

for (const [rule, host, want] of hosts) {
  test(rule, () => assert.deepEqual(tenantLabels(host), want));
}

test("a tenant's branding comes from the alias lookup and the logo call, and is kept", async () => {
  answers['/rest/creditor/alias/acme'] = () => new Response('Acme Roadways\n');
  answers['/api/logo?domain=acme'] = () => Response.json({ logo: 'image/png:iVBOR', theme: 'green', default: 'N' });
  const want = { name: 'Acme Roadways', logo: 'image/png:iVBOR', theme: 'green', isDefault: 'N' };
  assert.equal(cached('acme'), null, 'a tab that has not looked the host up');
  assert.deepEqual(await lookUp({ domain: 'acme', alias: 'acme' }), want);
  assert.deepEqual(Object.fromEntries(storage), { Nameacme: 'Acme Roadways', Logoacme: 'image/png:iVBOR', Themeacme: 'green', Defaultacme: 'N' });
  assert.deepEqual(cached('acme'), want);
});

test('a host the alias lookup does not know has no tenant, and that is kept too', async () => {
  answers['/rest/creditor/alias/nobody'] = () => new Response(null, { status: 204 });
  const none = { name: '', logo: '', theme: '', isDefault: '' };
  assert.deepEqual(await lookUp({ domain: 'nobody', alias: 'nobody' }), none);
  assert.deepEqual(asked, ['/rest/creditor/alias/nobody'], 'no logo call without a tenant');
  assert.deepEqual(cached('nobody'), none);
});

test('a failed call gives no tenant', async () => {
  answers['/rest/creditor/alias/acme'] = () => new Response('Acme Roadways');
  answers['/api/logo?domain=acme'] = () => new Response('down', { status: 502 });
  assert.equal((await lookUp({ domain: 'acme', alias: 'acme' })).logo, '');
  answers['/rest/creditor/alias/acme'] = () => new Response('down', { status: 500 });
  assert.equal((await lookUp({ domain: 'acme', alias: 'acme' })).name, '');
});

test('the logo call uses the first label, the cache the alias', async () => {
  answers['/rest/creditor/alias/www'] = () => new Response('Main Street Haulage');
  answers['/api/logo?domain=freight'] = () => Response.json({ logo: 'image/png:x', theme: 'teal', default: 'N' });
  await lookUp({ domain: 'freight', alias: 'www' });
  assert.deepEqual(asked, ['/rest/creditor/alias/www', '/api/logo?domain=freight']);
  assert.equal(cached('www')?.theme, 'teal');
});

test('with session storage off nothing is cached, and nothing breaks', async () => {
  browser.sessionStorage = {
    getItem() {
      throw new Error('storage is off');
    },
    setItem() {
      throw new Error('storage is off');
    },
  };
  answers['/rest/creditor/alias/acme'] = () => new Response('Acme Roadways');
  answers['/api/logo?domain=acme'] = () => Response.json({ logo: 'image/png:x', theme: 'green', default: 'N' });
  assert.equal((await lookUp({ domain: 'acme', alias: 'acme' })).name, 'Acme Roadways');
  assert.equal(cached('acme'), null);
});
