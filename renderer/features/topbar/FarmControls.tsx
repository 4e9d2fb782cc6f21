/**
 * The farm's durable state in the top bar: Pause dispatch / Stop farm / Resume farm, and a banner
 * that stays while the farm is paused or stopped (set here, from the CLI, the menu or another
 * machine's page — it survives restarts, so the banner says who set it and when).
 */
import { FARM_STATE_WORDS, type FarmState } from '../../../shared/farm-settings.js';
import { dateTime } from '../../lib/format.js';
import { useMay } from '../../store/use-may.js';
import { useApp } from '../../store/app-store.js';

/** Pause dispatch beside Stop farm (which asks first, saying what is rendering); Resume while not running. */
export function FarmButtons() {
  const state = useApp((s) => s.status?.farmState.state);
  const setFarmState = useApp((s) => s.setFarmState);
  const askStop = useApp((s) => s.askStopFarm);
  if (state === undefined) return null;
  const act = (to: FarmState) => () => void setFarmState(to);
  return (
    <>
      {state === 'running' ? (
        <button
          type="button"
          className="btn"
          onClick={act('paused')}
          data-testid="farm-pause"
          data-needs="farm"
          title="Pause dispatch: no new prompts; running prompts finish"
        >
          ❚❚ <span className="long-label">Pause dispatch</span>
          <span className="short-label bar-label">Pause</span>
        </button>
      ) : (
        <button
          type="button"
          className="btn btn-primary"
          onClick={act('running')}
          data-testid="farm-resume"
          data-needs="farm"
          title="Resume the farm: dispatch again"
        >
          ▶ <span className="bar-label">Resume</span>
          <span className="long-label"> farm</span>
        </button>
      )}
      {state !== 'stopped' && (
        <button
          type="button"
          className="btn btn-danger-ghost"
          onClick={() => void askStop()}
          data-testid="farm-stop"
          data-needs="farm"
          title="Stop farm: no new prompts; running prompts are interrupted and requeued (asks first)"
        >
          ■ <span className="bar-label">Stop</span>
          <span className="long-label"> farm…</span>
        </button>
      )}
    </>
  );
}

export function FarmBanner() {
  const farm = useApp((s) => s.status?.farmState);
  const hold = useApp((s) => s.status?.storageHold ?? null);
  const setFarmState = useApp((s) => s.setFarmState);
  const { may } = useMay();
  if (hold && (!farm || farm.state === 'running')) {
    // The farm waits by itself for its storage (a full disk, a locked database): nothing to press, it says why.
    return (
      <div className="farm-banner farm-banner-paused" role="status" data-testid="farm-banner" data-farm-state="storage">
        <span>
          <b>Farm waiting for storage</b>
          <span className="farm-banner-who">
            {' '}
            — {hold.reason}; since {dateTime(hold.since)}, it tries again by itself
          </span>
        </span>
      </div>
    );
  }
  if (!farm || farm.state === 'running') return null;
  const who = [farm.by ? `by ${farm.by}` : '', farm.at !== null ? `at ${dateTime(farm.at)}` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div
      className={`farm-banner farm-banner-${farm.state}`}
      role="status"
      data-testid="farm-banner"
      data-farm-state={farm.state}
    >
      <span>
        <b>Farm {FARM_STATE_WORDS[farm.state]}</b>
        {who && <span className="farm-banner-who"> — set {who}</span>}
      </span>
      {may('farm') && (
        <button
          type="button"
          className="btn btn-sm btn-primary"
          onClick={() => void setFarmState('running')}
          data-needs="farm"
        >
          Resume farm
        </button>
      )}
    </div>
  );
}
