/**
 * App name, demo badge, views, the job counts (collapsed into a summary), Import, the farm's
 * pause/stop/resume and the connection indicator — one line that never overflows from 1280 px up
 * (below 1920 px Pause/Stop are icons, the person an initial; the counts drop words while they do not fit) — and the persistent banners below it.
 */
import { useApp } from '../../store/app-store.js';
import { go } from '../../lib/route.js';
import { APP_VIEWS, APP_VIEW_LABEL, type AppView } from '../../../shared/app-views.js';
import { useMay } from '../../store/use-may.js';
import { useImportPicker } from '../import/ImportDropZone.js';
import { Banners } from './Banners.js';
import { CountsSummary } from './CountsSummary.js';
import { FarmButtons } from './FarmControls.js';

/** "mira (artist)" and Sign out when people are defined; nothing for the solo operator. */
function SignedIn() {
  const session = useApp((s) => s.session);
  const signIn = useApp((s) => s.client.signIn);
  if (!session || session.solo) return null;
  // Below 1920 px only the initial shows (and Sign out its icon), a long name is cut with an ellipsis: whole on hover.
  return (
    <>
      <span
        className="signed-in muted small"
        data-testid="signed-in"
        title={`Signed in as ${session.name} (${session.role}); your role decides which actions are shown`}
      >
        <span className="avatar" aria-hidden>
          {session.name.slice(0, 1)}
        </span>
        <span className="signed-in-name">
          {session.name} ({session.role})
        </span>
      </span>
      {signIn && (
        <button
          type="button"
          className="btn btn-ghost btn-sm sign-out"
          onClick={() => void signIn.signOut()}
          data-testid="sign-out"
          title="Sign out: this browser forgets your sign-in"
          aria-label="Sign out"
        >
          <span aria-hidden>↪</span>
          <span className="bar-label">Sign out</span>
        </button>
      )}
    </>
  );
}

function Connection() {
  const c = useApp((s) => s.connection);
  const label = c === 'online' ? 'Live' : c === 'connecting' ? 'Connecting…' : 'Reconnecting…';
  return (
    <span
      className={`conn conn-${c}`}
      data-connection={c}
      title={
        c === 'offline'
          ? 'Lost the server; retrying by itself'
          : c === 'online'
            ? 'Receiving live updates'
            : 'Connecting to the server'
      }
    >
      <span className="conn-dot" />
      <span className="conn-label">{label}</span>
    </span>
  );
}

export function TopBar({ view }: { view: AppView }) {
  const label = useApp((s) => s.info?.demoLabel);
  // Failures nobody handled yet (no retry, no newer take, not cancelled): clears when all are handled.
  const failed = useApp((s) => s.status?.openFailures ?? 0);
  const pick = useImportPicker();
  const { may } = useMay();
  return (
    <>
      <header className="topbar">
        <div className="brand" title={label ? `Shotfarm · ${label}` : 'Shotfarm'}>
          <span className="logo" aria-hidden>
            ◆
          </span>
          <span className="brand-name">Shotfarm</span>
          {label && (
            <span className="badge badge-demo" data-testid="demo-badge" title={label}>
              {label}
            </span>
          )}
        </div>
        <nav className="tabs" aria-label="Views">
          {APP_VIEWS.map((v) => (
            <a
              key={v}
              href={`#/${v}`}
              className={`tab${v === view ? ' tab-active' : ''}`}
              onClick={(e) => (e.preventDefault(), go(v))}
              data-tab={v}
            >
              {APP_VIEW_LABEL[v]}
              {v === 'failures' && failed > 0 && <span className="tab-count">{failed}</span>}
            </a>
          ))}
        </nav>
        <div className="topbar-right">
          <CountsSummary />
          {may('import') && (
            <button type="button" className="btn" onClick={pick} data-testid="import-button" data-needs="import">
              Import…
            </button>
          )}
          {may('farm') && <FarmButtons />}
          <SignedIn />
          <Connection />
        </div>
      </header>
      <Banners />
    </>
  );
}
