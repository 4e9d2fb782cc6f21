/** App name, demo badge, views, job counts by state, the connection indicator, the farm's pause/stop/resume and its banner. */
import { JOB_STATES } from '../../../shared/job-states.js';
import { StatePill } from '../../components/StatePill.js';
import { useApp } from '../../store/app-store.js';
import { go, VIEWS, type View } from '../../lib/route.js';
import { useImportPicker } from '../import/ImportDropZone.js';
import { FarmBanner, FarmButtons } from './FarmControls.js';

const VIEW_LABEL: Record<View, string> = { queue: 'Queue', workstations: 'Workstations', failures: 'Failures', timeline: 'Timeline', ledger: 'Ledger', settings: 'Settings' };
const COUNTED = JOB_STATES.filter((s) => s !== 'pending');

function Connection() {
  const c = useApp((s) => s.connection);
  const label = c === 'online' ? 'Live' : c === 'connecting' ? 'Connecting…' : 'Reconnecting…';
  return (
    <span className={`conn conn-${c}`} data-connection={c} title={c === 'offline' ? 'Lost the server; retrying by itself' : 'Receiving live updates'}>
      <span className="conn-dot" />
      {label}
    </span>
  );
}

function Counts() {
  const byState = useApp((s) => s.status?.jobsByState);
  const blocked = useApp((s) => s.status?.blocked ?? 0);
  const failures = useApp((s) => (s.status ? s.status.jobsByState.failed_final + s.status.jobsByState.timeout_kill : 0));
  if (!byState) return null;
  return (
    <div className="counts" data-testid="counts">
      {COUNTED.filter((s) => byState[s] > 0 || s === 'running' || s === 'queued').map((s) => (
        <span key={s} className="count" data-count-state={s}>
          <StatePill state={s} /> <b>{byState[s].toLocaleString()}</b>
        </span>
      ))}
      {blocked > 0 && (
        <span className="count warn" data-count-state="blocked" title="Queued jobs no registered workstation could ever take (a tag, VRAM, a node or model)">
          blocked <b>{blocked.toLocaleString()}</b>
        </span>
      )}
      {failures > 0 && <span className="sr-only">{failures} failed</span>}
    </div>
  );
}

export function TopBar({ view }: { view: View }) {
  const label = useApp((s) => s.info?.demoLabel);
  // Failures nobody handled yet (no retry, no newer take, not cancelled): clears when all are handled.
  const failed = useApp((s) => s.status?.openFailures ?? 0);
  const pick = useImportPicker();
  return (
    <>
      <header className="topbar">
        <div className="brand">
          <span className="logo" aria-hidden>◆</span>
          <span className="brand-name">Shotfarm</span>
          {label && <span className="badge badge-demo" data-testid="demo-badge">{label}</span>}
        </div>
        <nav className="tabs" aria-label="Views">
          {VIEWS.map((v) => (
            <a key={v} href={`#/${v}`} className={`tab${v === view ? ' tab-active' : ''}`} onClick={(e) => (e.preventDefault(), go(v))} data-tab={v}>
              {VIEW_LABEL[v]}
              {v === 'failures' && failed > 0 && <span className="tab-count">{failed}</span>}
            </a>
          ))}
        </nav>
        <div className="topbar-right">
          <Counts />
          <button className="btn" onClick={pick} data-testid="import-button">Import…</button>
          <FarmButtons />
          <Connection />
        </div>
      </header>
      <FarmBanner />
    </>
  );
}
