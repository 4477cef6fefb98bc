// The API client (lib/api.ts) against a stand-in for the browser: fetch,
// document.cookie and session storage are stubs here (the browser tests
// drive the real ones). SPEC §6 and §7: X-XSRF-TOKEN from the XSRF-TOKEN
// cookie on every call that changes something, and a 403 removes the
// session-storage item Auth-Token and is passed on.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { ApiError, failureMessage, isOffline, request } from './api';

interface Call {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

let calls: Call[];
let answer: (url: string) => Response;
const storage = new Map<string, string>();
const browser = globalThis as unknown as Record<string, unknown>;

beforeEach(() => {
  calls = [];
  answer = () => Response.json({ ok: true });
  storage.clear();
  browser.document = { cookie: 'lang=hi; XSRF-TOKEN=signed%3Dtoken' };
  browser.sessionStorage = {
    getItem: (k: string) => storage.get(k) ?? null,
    setItem: (k: string, v: string) => storage.set(k, v),
    removeItem: (k: string) => storage.delete(k),
  };
  browser.fetch = async (url: string, init: RequestInit = {}) => {
    calls.push({ url, method: init.method ?? 'GET', headers: new Headers(init.headers), body: init.body });
    return answer(url);
  };
});

test('a GET goes without the anti-forgery header', async () => {
  assert.deepEqual(await request('/api/news'), { ok: true });
  assert.equal(calls[0].method, 'GET');
  assert.equal(calls[0].headers.has('X-XSRF-TOKEN'), false);
});

test('a POST carries X-XSRF-TOKEN from the XSRF-TOKEN cookie', async () => {
  await request('/api/contact', { json: { name: 'Meera' } });
  assert.equal(calls[0].method, 'POST');
  assert.equal(calls[0].headers.get('X-XSRF-TOKEN'), 'signed=token');
  assert.equal(calls[0].headers.get('Content-Type'), 'application/json');
  assert.equal(calls[0].body, '{"name":"Meera"}');
});

test('every method but GET and HEAD carries the header', async () => {
  for (const method of ['PUT', 'PATCH', 'DELETE']) {
    await request('/api/x', { method });
  }
  await request('/api/x', { method: 'HEAD' });
  assert.deepEqual(
    calls.map((c) => [c.method, c.headers.get('X-XSRF-TOKEN')]),
    [
      ['PUT', 'signed=token'],
      ['PATCH', 'signed=token'],
      ['DELETE', 'signed=token'],
      ['HEAD', null],
    ],
  );
});

test('without the cookie one GET to the API sets it before the post', async () => {
  browser.document = { cookie: '' };
  answer = (url) => {
    if (url === '/api/xsrf-token') (browser.document as { cookie: string }).cookie = 'XSRF-TOKEN=fresh';
    return Response.json({});
  };
  await request('/api/unsubscribe', { json: { emailId: 'a@b.in' } });
  assert.deepEqual(
    calls.map((c) => c.url),
    ['/api/xsrf-token', '/api/unsubscribe'],
  );
  assert.equal(calls[1].headers.get('X-XSRF-TOKEN'), 'fresh');
});

test('a 403 removes Auth-Token and is passed on with its body', async () => {
  storage.set('Auth-Token', 'bearer');
  storage.set('Other', 'kept');
  answer = () => Response.json({ message: 'Your session has expired' }, { status: 403 });
  await assert.rejects(request('/api/contact', { json: {} }), (err) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 403);
    assert.deepEqual(err.body, { message: 'Your session has expired' });
    return true;
  });
  assert.equal(storage.has('Auth-Token'), false);
  assert.equal(storage.get('Other'), 'kept');
});

test('another refusal keeps Auth-Token', async () => {
  storage.set('Auth-Token', 'bearer');
  answer = () => Response.json({ errorMessageList: [] }, { status: 400 });
  await assert.rejects(request('/api/contact', { json: {} }), ApiError);
  assert.equal(storage.get('Auth-Token'), 'bearer');
});

test('a 403 with session storage off is still passed on', async () => {
  browser.sessionStorage = {
    removeItem() {
      throw new Error('storage is off');
    },
  };
  answer = () => new Response('forbidden', { status: 403 });
  await assert.rejects(request('/api/contact', { json: {} }), (err) => err instanceof ApiError && err.status === 403);
});

test('an answer is JSON when the server says so, text otherwise', async () => {
  answer = () => new Response('Acme Roadways\n', { headers: { 'Content-Type': 'text/plain' } });
  assert.equal(await request('/rest/creditor/alias/acme'), 'Acme Roadways\n');
  answer = () => new Response('{not json', { status: 500, headers: { 'Content-Type': 'application/json' } });
  await assert.rejects(request('/api/news'), (err) => err instanceof ApiError && err.body === null);
});

test('no connection is an ApiError of status 0 that says the form needs one', async () => {
  browser.fetch = async () => {
    throw new TypeError('Failed to fetch');
  };
  await assert.rejects(request('/api/news'), (err) => {
    assert.ok(isOffline(err));
    assert.equal(failureMessage(err, 'fallback'), 'offline.needConnection');
    return true;
  });
});

test("failureMessage prefers the server's result, then its message, then its text", () => {
  assert.equal(failureMessage(new ApiError(400, { result: 'RESET.RESET2', message: 'other' }), 'x'), 'RESET.RESET2');
  assert.equal(failureMessage(new ApiError(400, { message: 'LOGIN.WARNING' }), 'x'), 'LOGIN.WARNING');
  assert.equal(failureMessage(new ApiError(502, '  Bad gateway \n'), 'x'), 'Bad gateway');
  assert.equal(failureMessage(new ApiError(500, 'x'.repeat(300)), 'fallback'), 'fallback');
  assert.equal(failureMessage(new Error('boom'), 'fallback'), 'fallback');
});
