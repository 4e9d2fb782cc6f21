/**
 * Persistent banners under the top bar for what an operator must not miss: the farm paused or
 * stopped (FarmControls.tsx), the server unreachable (what the page shows may be stale), and
 * workstations that stopped answering. Each stays until the condition ends.
 */
import { useState, useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { clock } from '../../lib/format.js';
import { go } from '../../lib/route.js';
import { useApp } from '../../store/app-store.js';
import { FarmBanner } from './FarmControls.js';

function ServerBanner() {
  const connection = useApp((s) => s.connection);
  const [since, setSince] = useState<number | null>(null);
  useEffect(() => setSince(connection === 'offline' ? Date.now() : null), [connection]);
  if (connection !== 'offline') return null;
  return (
    <div className="banner banner-error" role="alert" data-testid="server-banner">
      <span>
        <b>Server unreachable</b> — what you see may be stale{since ? ` (since ${clock(since)})` : ''}. Reconnecting by
        itself; actions fail until it answers.
      </span>
    </div>
  );
}

function OfflineBanner() {
  // Active workstations that do not answer (disabled or draining ones are the operator's choice).
  const names = useApp(
    useShallow((s) =>
      Object.values(s.instances)
        .filter((i) => i.adminState === 'active' && (i.health === 'offline' || i.health === 'unhealthy'))
        .map((i) => i.name)
        .sort(),
    ),
  );
  if (names.length === 0) return null;
  return (
    <div className="banner banner-warn" role="status" data-testid="offline-banner">
      <span>
        <b>{names.length === 1 ? '1 workstation' : `${names.length} workstations`} offline</b> —{' '}
        {names.slice(0, 6).join(', ')}
        {names.length > 6 ? ` and ${names.length - 6} more` : ''}: no work goes to {names.length === 1 ? 'it' : 'them'}{' '}
        until {names.length === 1 ? 'it answers' : 'they answer'}.
      </span>
      <button type="button" className="btn btn-sm" onClick={() => go('workstations')}>
        Workstations
      </button>
    </div>
  );
}

export function Banners() {
  return (
    <>
      <FarmBanner />
      <ServerBanner />
      <OfflineBanner />
    </>
  );
}
