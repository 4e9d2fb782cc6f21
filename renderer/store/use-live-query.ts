/**
 * Runs a contract query for a view and runs it again when its inputs change or when job events
 * arrive (`liveTick`), at most once per `throttleMs` — views built from queries (failures, timeline,
 * ledger) stay live without polling.
 */
import { useEffect, useRef, useState } from 'react';
import { errorMessage } from '../client/client.js';
import { useApp } from './app-store.js';

export interface LiveQuery<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload(): void;
}

export function useLiveQuery<T>(run: () => Promise<T>, deps: readonly unknown[], throttleMs = 1_000): LiveQuery<T> {
  const tick = useApp((s) => s.liveTick);
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [manual, setManual] = useState(0);
  const last = useRef(0);
  const runRef = useRef(run);
  runRef.current = run;
  const depsKey = JSON.stringify(deps);
  const prevDeps = useRef(depsKey);

  const seq = useRef(0);
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: it re-runs on a new tick, new inputs (depsKey) or a reload; `run` is read from a ref so a new closure each render does not re-run it.
  useEffect(() => {
    const depsChanged = prevDeps.current !== depsKey;
    prevDeps.current = depsKey;
    const wait = depsChanged ? 0 : Math.max(0, last.current + throttleMs - Date.now());
    // Only the timer is cancelled by a newer tick; a request already sent still lands (the newest wins).
    const t = setTimeout(() => {
      last.current = Date.now();
      const mine = ++seq.current;
      setLoading(true);
      runRef.current().then(
        (d) => {
          if (!mounted.current || mine !== seq.current) return;
          setData(d);
          setError(null);
          setLoading(false);
        },
        (err: unknown) => {
          if (!mounted.current || mine !== seq.current) return;
          setError(errorMessage(err));
          setLoading(false);
        },
      );
    }, wait);
    return () => clearTimeout(t);
  }, [tick, depsKey, manual, throttleMs]);

  return { data, error, loading, reload: () => setManual((n) => n + 1) };
}
