/**
 * Keeps the queue's filter and the address in step (lib/queue-address.ts): the address is read on
 * load, on back/forward and on a pasted link; every change of the filter is written back — a new
 * history entry for a preset, a pick or a sort, the same entry while a search is being typed.
 * Mounted inside the sign-in gate, so a shared link opened signed out is applied after sign-in.
 */
import { useLayoutEffect, useRef } from 'react';
import { onlyTyped, parseQueueParams, queueParamsOf } from '../../lib/queue-address.js';
import { useRoute, writeQueueParams } from '../../lib/route.js';
import { useAppStore } from '../../store/app-store.js';

export function useQueueAddress(): void {
  const store = useAppStore();
  const { view, params } = useRoute();
  const fromAddress = useRef(false);
  const typing = useRef(false);

  // Subscribed before the address is first applied (effects run in order), so a link's stray parameters are tidied away.
  useLayoutEffect(
    () =>
      store.subscribe((s, prev) => {
        if (s.query === prev.query) return;
        const next = queueParamsOf(s.query);
        if (next === queueParamsOf(prev.query)) return;
        const typed = onlyTyped(prev.query, s.query);
        const mode = fromAddress.current || (typed && typing.current) ? 'replace' : 'push';
        typing.current = typed && !fromAddress.current;
        writeQueueParams(next, mode);
      }),
    [store],
  );

  useLayoutEffect(() => {
    if (view !== 'queue') return;
    const { query } = parseQueueParams(params);
    const s = store.getState();
    if (queueParamsOf(query) === queueParamsOf(s.query)) {
      // Same view: the address is only tidied (a dropped or reordered parameter), with no new entry.
      if (params !== queueParamsOf(query)) writeQueueParams(queueParamsOf(query), 'replace');
      return;
    }
    fromAddress.current = true;
    try {
      s.setQuery(query);
    } finally {
      fromAddress.current = false;
    }
  }, [store, view, params]);
}
