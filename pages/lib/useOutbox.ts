import { useEffect, useRef, useState } from 'react';
import type { Queued } from './outbox';

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
