// The outbox: contact messages and feedback written while the phone is
// offline are kept in IndexedDB and sent once the connection returns, by
// the service worker (Background Sync's "outbox" event, and on the next
// visit's first page) or by the form's page (its online event). Each
// entry carries an idempotency key that the API records with what it
// stores (formapi/idempotency.go), so an entry sent twice (by the page
// and the worker at once, or again after an answer that got lost) is
// stored once. The same module runs in pages and in the worker.
import { ApiError, request } from './api';

export interface Queued {
  id: string; // the Idempotency-Key
  path: string; // /api/contact_us or /api/error_feedback
  json?: unknown; // sent as JSON
  form?: Array<[string, string | File]>; // sent as multipart form data
}

const storeName = 'requests';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open('outbox', 1);
    req.onupgradeneeded = () => req.result.createObjectStore(storeName, { keyPath: 'id' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

// run does one request on the store and closes the database after it.
async function run<T>(mode: IDBTransactionMode, op: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const req = op(db.transaction(storeName, mode).objectStore(storeName));
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  } finally {
    db.close();
  }
}

export const pending = (id: string) => run('readonly', (s) => s.count(id)).then((n) => n > 0);

// keep stores a request to send later and asks for Background Sync where
// the browser has it.
export async function keep(entry: Queued): Promise<void> {
  await run('readwrite', (s) => s.put(entry));
  try {
    const reg = (await navigator.serviceWorker?.getRegistration()) as (ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } }) | undefined;
    await reg?.sync?.register('outbox');
  } catch {
    // No Background Sync: the online event or the next visit sends it.
  }
}

// send posts one entry: true once the API has it (or refused it for
// good: a field it will never accept), false while it cannot be sent.
async function send(q: Queued, retried = false): Promise<boolean> {
  let body: FormData | undefined;
  if (q.form) {
    body = new FormData();
    for (const [k, v] of q.form) body.append(k, v);
  }
  try {
    await request(q.path, { json: q.json, body, headers: { 'Idempotency-Key': q.id } });
    return true;
  } catch (err) {
    if (!(err instanceof ApiError) || err.status === 0 || err.status === 429 || err.status >= 500) return false;
    // 403: the anti-forgery cookie was stale; the answer set a new one.
    if (err.status === 403) return !retried && send(q, true);
    return true;
  }
}

let flushing: Promise<number> | undefined;

// flush sends every kept entry, oldest first, and forgets each one the
// API has; it stops at the first that cannot be sent (still offline) and
// gives how many are left.
export function flush(): Promise<number> {
  return (flushing ??= (async () => {
    try {
      const all = await run('readonly', (s) => s.getAll() as IDBRequest<Queued[]>);
      for (const [i, q] of all.entries()) {
        if (!(await send(q))) return all.length - i;
        await run('readwrite', (s) => s.delete(q.id));
      }
      return 0;
    } finally {
      flushing = undefined;
    }
  })());
}
