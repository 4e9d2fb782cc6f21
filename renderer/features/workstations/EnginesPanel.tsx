/**
 * The engines sharing a PostgreSQL farm (issue 27): who they are, how many workstations each
 * drives and when each last renewed its leases — read every few seconds while the view is open
 * (`farm.engines`; no event carries renewals). Nothing on SQLite: one engine per data folder.
 * When the split of workstations changes (an engine joined, left or was adopted from), the cards
 * are read again so each says which engine drives it now.
 */
import { useEffect, useRef, useState } from 'react';
import type { FarmEngines } from '../../../shared/engines.js';
import { errorMessage } from '../../client/client.js';
import { dateTime, duration } from '../../lib/format.js';
import { useApp } from '../../store/app-store.js';

/** An engine's id cut to 8 characters: enough to tell engines on one host apart (the whole id is in the title, for `workers pin --engine`). */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** How often the panel reads the engines: a third of the shortest lease, so a gone engine shows within one lease. */
const READ_EVERY_MS = 3_000;

export function EnginesPanel() {
  const client = useApp((s) => s.client);
  const refreshDrivers = useApp((s) => s.refreshDrivers);
  const [farm, setFarm] = useState<FarmEngines | null>(null);
  const [error, setError] = useState<string | null>(null);
  const split = useRef<string | null>(null);

  useEffect(() => {
    let alive = true;
    const read = (): void => {
      client.call('farm.engines', {}).then(
        (f) => {
          if (!alive) return;
          setFarm(f);
          setError(null);
          const now = f.engines.map((e) => `${e.id}:${e.live ? e.workstations : 0}`).join(',');
          if (split.current !== null && split.current !== now) refreshDrivers();
          split.current = now;
        },
        (err: unknown) => alive && setError(errorMessage(err)),
      );
    };
    read();
    const timer = setInterval(read, READ_EVERY_MS);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [client, refreshDrivers]);

  if (error) return <div className="engines-panel muted small">Engines: {error} (read again in a few seconds)</div>;
  if (farm?.store !== 'postgres' || farm.engines.length === 0) return null;
  const live = farm.engines.filter((e) => e.live).length;
  return (
    <section className="engines-panel" aria-label="Engines" data-testid="engines-panel">
      <div className="engines-head">
        <h2>Engines</h2>
        <span className="muted small">
          {live} live of {farm.engines.length} · leases last {farm.leaseS} s — a gone engine&apos;s workstations are
          taken over within that
        </span>
      </div>
      <table className="engines-table">
        <thead>
          <tr>
            <th>State</th>
            <th>Host</th>
            <th>Id</th>
            <th>Pid</th>
            <th>Kind</th>
            <th>Since</th>
            <th className="num">Workstations</th>
            <th>Renewed</th>
          </tr>
        </thead>
        <tbody>
          {farm.engines.map((e) => {
            const state = e.live ? 'live' : e.stoppedAt !== null ? 'stopped' : 'gone';
            return (
              <tr key={e.id} data-engine={e.id} data-state={state}>
                <td>
                  <span className={`badge engine-${state}`}>{state}</span>
                </td>
                <td className="cut-head" title={`${e.host} · ${e.id} · ${e.version}`}>
                  {e.host}
                </td>
                <td className="mono" title={e.id}>
                  {shortId(e.id)}
                </td>
                <td className="mono">{e.pid}</td>
                <td>{e.kind}</td>
                <td>{dateTime(e.since)}</td>
                <td className="num">{e.live ? e.workstations.toLocaleString() : '—'}</td>
                <td>{state === 'stopped' ? `stopped ${dateTime(e.stoppedAt)}` : `${duration(e.renewedAgoMs)} ago`}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
