// The one HTTP client of the site's islands. Every call that changes
// something carries the anti-forgery header X-XSRF-TOKEN, filled from the
// XSRF-TOKEN cookie (SPEC §7), and an Idempotency-Key (submissionKey); any
// 403 removes the session-storage item Auth-Token and the error is passed
// on (SPEC §6).

// ApiError is a non-2xx answer: its status and its body (JSON when the
// server sent JSON, text otherwise).
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

// cookie reads a cookie of this site; a service worker has no document
// and reads it with the Cookie Store API (where there is none, its
// requests go without the token and the page sends them instead).
async function cookie(name: string): Promise<string | null> {
  if (typeof document === 'undefined') {
    const store = (globalThis as { cookieStore?: { get(name: string): Promise<{ value: string } | null> } }).cookieStore;
    return (await store?.get(name))?.value ?? null;
  }
  for (const part of document.cookie.split('; ')) {
    const eq = part.indexOf('=');
    if (part.slice(0, eq) === name) return decodeURIComponent(part.slice(eq + 1));
  }
  return null;
}

// xsrfToken reads the cookie; pages set none (whether serve, nginx or a
// CDN answers them), so before the first post one GET to the API sets it.
async function xsrfToken(): Promise<string> {
  let token = await cookie('XSRF-TOKEN');
  if (!token) {
    await fetch('/api/xsrf-token', { credentials: 'same-origin' });
    token = await cookie('XSRF-TOKEN');
  }
  return token ?? '';
}

// newKey is an Idempotency-Key for one submission (formapi/idempotency.go).
// The time comes first, so the outbox's key order is the order written.
export const newKey = () => Date.now().toString(36).padStart(9, '0') + '-' + crypto.randomUUID();

const keys: Record<string, string[]> = {}; // path: [submission, key]

// submissionKey is the Idempotency-Key of a submission to path: every try
// of the same submission gets the same key (a retry after no answer,
// after an offline spell, or after a 503 saying it may have been saved),
// so the API stores it once and answers a retry with what it stored. A
// submission that differs is a new one, and so is the same one sent again
// after a try the API answered with success (request forgets its key).
export function submissionKey(path: string, submission: unknown): string {
  const s = JSON.stringify(submission);
  if (keys[path]?.[0] !== s) keys[path] = [s, newKey()];
  return keys[path][1];
}

export interface RequestOptions {
  method?: string;
  json?: unknown; // sent as JSON (Content-Type application/json unless headers say otherwise)
  body?: BodyInit; // sent as is (FormData for multipart)
  // submission is what makes a try the same submission as the last one,
  // for its Idempotency-Key: json unless given (a form's values without
  // the captcha answer, which every try solves anew); with neither, each
  // call gets a new key. An Idempotency-Key in headers is sent as it is.
  submission?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  // onUploadProgress is told how many bytes of the body have been sent
  // (and how many there are, 0 when unknown) as they go: the request is
  // then sent with XMLHttpRequest, as fetch cannot report an upload's
  // progress over HTTP/1.1.
  onUploadProgress?: (sent: number, total: number) => void;
  // file says the answer is a file to save: a 2xx answer's body is then
  // returned as a Blob, byte for byte (a text would lose a byte order
  // mark); other answers are parsed as usual. Not with onUploadProgress.
  file?: boolean;
}

// offline is the error of a request that got no answer at all (no
// connection): an ApiError of status 0 whose message says the form needs
// one, which failureMessage shows. Contact and feedback keep such a
// request in the outbox instead (lib/outbox.ts).
const offline = () => new ApiError(0, { message: 'offline.needConnection' });
export const isOffline = (err: unknown) => err instanceof ApiError && err.status === 0;

// request calls the API and returns the parsed body; it throws ApiError
// for any answer that is not 2xx (status 0: no connection, see offline),
// and an AbortError when opts.signal aborts it.
export async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const method = opts.method ?? (opts.json !== undefined || opts.body !== undefined ? 'POST' : 'GET');
  const headers = new Headers(opts.headers);
  let body = opts.body;
  if (opts.json !== undefined) {
    if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
    body = JSON.stringify(opts.json);
  }
  let answer: Answer;
  try {
    if (method !== 'GET' && method !== 'HEAD') {
      headers.set('X-XSRF-TOKEN', await xsrfToken());
      if (!headers.has('Idempotency-Key')) headers.set('Idempotency-Key', submissionKey(path, opts.submission ?? opts.json ?? newKey()));
    }
    const init: RequestInit = { method, headers, body, signal: opts.signal, credentials: 'same-origin' };
    // Only the import check reports an upload's progress: the code for it
    // loads with its first upload, not with every page.
    answer = opts.onUploadProgress ? await (await import('./upload')).sendWithProgress(path, init, opts.onUploadProgress) : await sendWithFetch(path, init, opts.file);
  } catch (err) {
    throw err instanceof TypeError ? offline() : err;
  }
  const { status, data } = answer;
  if (status === 403) {
    try {
      sessionStorage.removeItem('Auth-Token');
    } catch {
      // Storage can be off; there is then no token to remove.
    }
  }
  if (status < 200 || status > 299) throw new ApiError(status, data);
  delete keys[path];
  return data as T;
}

// Answer is an answer's status and body: JSON when the server sent JSON,
// text otherwise.
export interface Answer {
  status: number;
  data: unknown;
}

export function parse(contentType: string | null, text: string): unknown {
  if (!(contentType ?? '').includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function sendWithFetch(path: string, init: RequestInit, file?: boolean): Promise<Answer> {
  const res = await fetch(path, init);
  return { status: res.status, data: file && res.ok ? await res.blob() : parse(res.headers.get('Content-Type'), await res.text()) };
}

// failureMessage is the locales key (or server text) to show for a failed
// call: the server's message or result when it sent one.
export function failureMessage(err: unknown, fallback: string): string {
  if (err instanceof ApiError && err.body && typeof err.body === 'object') {
    const b = err.body as { message?: unknown; result?: unknown };
    if (typeof b.result === 'string' && b.result) return b.result;
    if (typeof b.message === 'string' && b.message) return b.message;
  }
  if (err instanceof ApiError && typeof err.body === 'string' && err.body.trim() && err.body.length < 300) return err.body.trim();
  return fallback;
}
