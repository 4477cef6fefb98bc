// The service worker's way with each request (lib/workerRoutes.ts, used by
// sw.ts): one row per kind of request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerFor, languageOf, type Answer } from './workerRoutes';

const origin = 'https://freight.example';
const listed = new Set(['/', '/faq', '/hi', '/hi/faq', '/assets/i18n/hi.json', '/favicon.svg']);

const requests: Array<[rule: string, method: string, url: string, mode: string, want: Answer]> = [
  ['a page opened is a visit', 'GET', '/hi/faq', 'navigate', 'visit'],
  ['a page the worker does not keep is a visit too', 'GET', '/member-details-nobody', 'navigate', 'visit'],
  ['a hashed file is taken from the cache first', 'GET', '/assets/build/client-AB12.js', 'no-cors', 'hashed'],
  ['a kept file that is not hashed is asked from the network first', 'GET', '/assets/i18n/hi.json', 'cors', 'listed'],
  ['a file the worker does not keep is left to the browser', 'GET', '/robots.txt', 'no-cors', null],
  ['the API is left to the browser', 'GET', '/api/news?lang=hi', 'cors', null],
  ['an API page opened is left to the browser', 'GET', '/api/xsrf-token', 'navigate', null],
  ['a post is left to the browser', 'POST', '/hi/faq', 'navigate', null],
  ["another site's file is left to the browser", 'GET', 'https://cdn.example/assets/build/x.js', 'no-cors', null],
];

for (const [rule, method, url, mode, want] of requests) {
  test(rule, () => assert.equal(answerFor({ method, url: new URL(url, origin).href, mode }, origin, listed), want));
}

const homes = new Map([
  ['en', '/'],
  ['hi', '/hi'],
  ['ma', '/ma'],
]);

const paths: Array<[rule: string, path: string, want: string]> = [
  ["a language's home page is in that language", '/hi', 'hi'],
  ['a page under its home page is in its language', '/ma/faq', 'ma'],
  ['a page at the root is in the root’s language', '/faq', 'en'],
  ['the root is in the root’s language', '/', 'en'],
  ['a path that only begins like a home page is not under it', '/history', 'en'],
];

for (const [rule, path, want] of paths) {
  test(rule, () => assert.equal(languageOf(path, homes), want));
}

test('with no language at the root, a path outside every prefix is in the first language', () => {
  assert.equal(
    languageOf(
      '/faq',
      new Map([
        ['hi', '/hi'],
        ['ma', '/ma'],
      ]),
    ),
    'hi',
  );
});
