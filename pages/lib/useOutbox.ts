import { useEffect, useRef, useState } from 'react';
import type { Queued } from './outbox';

// newKey is an Idempotency-Key for one submission: a form sends it with
// its first try too, so a try whose answer was lost and is then kept and
// sent again is stored once. The time comes first, so the outbox's key
// order is the order written.
export const newKey = () => Date.now().toString(36).padStart(9, '0') + '-' + crypto.randomUUID();

// The outbox is loaded only when a form needs it (the worker keeps it
// for offline use with every other script).
const outbox = () => import('./outbox');

// useOutbox lets a form keep what it could not send for lack of a
// connection (lib/outbox.ts): kept says it did, and onSent is called once
// the kept entry has reached the API (sent by this page when the
// connection returns, or by the service worker).
export function useOutbox(onSent: () => void) {
  const [id, setId] = useState('');
  const sent = useRef(onSent);
  sent.current = onSent;
  useEffect(() => {
    if (!id) return;
    const online = () =>
      outbox()
        .then(async ({ flush, pending }) => (await flush(), pending(id)))
        .then((left) => {
          if (left) return;
          setId('');
          sent.current();
        })
        .catch(() => {});
    addEventListener('online', online);
    return () => removeEventListener('online', online);
  }, [id]);
  return {
    kept: id !== '',
    // keep stores the entry; it fails where IndexedDB is unavailable.
    keep: async (entry: Queued) => {
      await (await outbox()).keep(entry);
      setId(entry.id);
    },
  };
}
