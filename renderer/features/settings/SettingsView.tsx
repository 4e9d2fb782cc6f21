/**
 * The farm settings (shared/farm-settings.ts, each defined once there), the registered templates
 * and, for an admin, the people. A role with the settings class (operator, admin, the solo
 * operator) edits the number and text settings here, in the desktop app or a browser; the folder
 * settings and hooks stay on the farm host's command line (programs to run, webhook tokens, where
 * files are written). Other roles see the values read-only, with why.
 */
import { Empty } from '../../components/Empty.js';
import { useLiveQuery } from '../../store/use-live-query.js';
import { useApp } from '../../store/app-store.js';
import { useMay } from '../../store/use-may.js';
import { PeoplePanel } from './PeoplePanel.js';
import { SettingRow } from './SettingRow.js';
import { TemplatesPanel } from './TemplatesPanel.js';

export function SettingsView() {
  const client = useApp((s) => s.client);
  // Editable once the session says the role may (session.whoami); the server decides either way.
  const known = useApp((s) => s.session !== null);
  const { may, why } = useMay();
  const editable = known && may('settings');
  const q = useLiveQuery(() => client.call('settings.list', {}), [], 5_000);
  const rows = q.data ?? [];
  return (
    <section className="view view-settings">
      <div className="view-head">
        <div>
          <h1>Settings</h1>
          <div className="muted">
            How the farm retries, times out, probes and quarantines, shares its GPUs between projects, and where it
            writes outputs.
          </div>
        </div>
      </div>
      <div className={`alert ${editable ? 'alert-ok' : 'alert-warn'} settings-note`} data-testid="settings-note">
        {editable ? (
          <>
            Changes apply at the farm's next decision, without a restart — also to a farm running in{' '}
            <span className="mono">shotfarm serve</span> or <span className="mono">run</span> on this data folder
            (within one probe interval).
          </>
        ) : why('settings') ? (
          <span data-testid="settings-why">Read-only for you. {why('settings')}</span>
        ) : (
          <>
            Read-only here: the settings are changed on the machine that runs the farm, with{' '}
            <span className="mono">shotfarm settings set KEY VALUE</span> (and{' '}
            <span className="mono">shotfarm settings reset KEY</span>), or in the desktop app there. The running farm
            picks a change up within one probe interval.
          </>
        )}
      </div>
      {q.error && (
        <Empty title="Could not load the settings" tone="error">
          {q.error}
        </Empty>
      )}
      <div className="settings" data-testid="settings">
        {rows.map((s) => (
          <SettingRow key={s.key} s={s} editable={editable} onChanged={q.reload} />
        ))}
      </div>
      <TemplatesPanel />
      {known && may('people') && <PeoplePanel />}
      <section className="panel hooks-note">
        <h2>Hooks</h2>
        <p className="muted small">
          Programs and webhooks run when jobs complete or fail for good. They live only in this machine's settings and
          are managed on its command line: <span className="mono">shotfarm hooks list</span>,{' '}
          <span className="mono">hooks add-command</span>, <span className="mono">hooks add-webhook</span>,{' '}
          <span className="mono">hooks deliveries</span>.
        </p>
      </section>
    </section>
  );
}
