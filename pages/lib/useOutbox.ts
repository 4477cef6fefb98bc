import { useEffect, useRef, useState } from 'react';
import { flush, keep, pending, type Queued } from './outbox';

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
      flush()
        .then(() => pending(id))
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
      await keep(entry);
      setId(entry.id);
    },
  };
}
