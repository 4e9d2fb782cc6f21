/**
 * One farm setting: what it decides, its value, unit, default and bounds. The number settings and
 * the text ones (project_weights) are editable by a role with the settings class (folders stay with
 * the farm host's command line): the value is checked
 * with the same parser the engine uses before it is sent, and the engine's answer is shown in the row.
 */
import { useEffect, useState } from 'react';
import {
  FARM_SETTINGS,
  describeBounds,
  parseSettingValue,
  type FarmSettingView,
} from '../../../shared/farm-settings.js';
import { errorMessage } from '../../client/client.js';
import { dateTime } from '../../lib/format.js';
import { plainError } from '../../lib/plain-error.js';
import { useApp } from '../../store/app-store.js';

const FIELDS = { value: 'The value', key: 'The setting' };

/** A value as the row says it: an empty text setting (none set) in words, not as nothing. */
function shown(v: number | string): string {
  return v === '' ? '(none)' : String(v);
}

function textMax(key: FarmSettingView['key']): number | undefined {
  const def = FARM_SETTINGS[key];
  return def.type === 'text' ? def.maxLength : undefined;
}

export function SettingRow({
  s,
  editable,
  onChanged,
}: {
  s: FarmSettingView;
  editable: boolean;
  onChanged: () => void;
}) {
  const client = useApp((st) => st.client);
  const notify = useApp((st) => st.notify);
  const [draft, setDraft] = useState(String(s.value));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // A value changed elsewhere (the CLI, another window) shows when the list is read again.
  useEffect(() => setDraft(String(s.value)), [s.value]);
  const changed = draft.trim() !== String(s.value);

  const send = async (what: 'set' | 'reset') => {
    if (what === 'set') {
      const parsed = parseSettingValue(s.key, draft);
      if (!parsed.ok) return setError(parsed.message);
    }
    setBusy(true);
    setError(null);
    try {
      const v =
        what === 'set'
          ? await client.call('settings.set', { key: s.key, value: draft.trim() })
          : await client.call('settings.reset', { key: s.key });
      setDraft(String(v.value));
      onChanged();
      notify(
        'success',
        `${s.key} is ${shown(v.value)}${v.unit && v.type === 'number' ? ` ${v.unit}` : ''}${what === 'reset' ? ' (the default)' : ''}; the farm applies it at its next decision.`,
      );
    } catch (err) {
      setError(plainError(errorMessage(err), FIELDS));
    } finally {
      setBusy(false);
    }
  };

  const unit = s.type === 'number' ? s.unit : null;
  return (
    <div className={`setting${s.isSet ? ' setting-set' : ''}`} data-setting={s.key} data-testid="setting">
      <div className="setting-what">
        <div className="mono setting-key">{s.key}</div>
        <div className="small setting-desc">{FARM_SETTINGS[s.key].description}</div>
      </div>
      <div className="setting-value">
        {editable && (s.type === 'number' || s.type === 'text') ? (
          <form className="setting-edit" onSubmit={(e) => (e.preventDefault(), void send('set'))}>
            <input
              className={s.type === 'text' ? 'input setting-text' : 'input'}
              value={draft}
              onChange={(e) => (setDraft(e.target.value), setError(null))}
              inputMode={s.type === 'number' ? 'decimal' : undefined}
              placeholder={s.type === 'text' ? 'none set' : undefined}
              maxLength={textMax(s.key)}
              aria-label={s.key}
              data-setting-input={s.key}
              data-needs="settings"
            />
            {unit && <span className="muted small">{unit}</span>}
            <button className="btn btn-sm btn-primary" type="submit" disabled={!changed || busy} data-action="save">
              Save
            </button>
            {s.isSet && (
              <button
                className="btn btn-sm btn-ghost"
                type="button"
                disabled={busy}
                onClick={() => void send('reset')}
                data-action="reset"
              >
                Reset
              </button>
            )}
          </form>
        ) : (
          <div className="setting-readonly">
            <b className="mono" data-testid="setting-value">
              {shown(s.value)}
            </b>
            {unit && <span className="muted small"> {unit}</span>}
            {editable && s.type === 'folder' && (
              <div className="muted small">
                A folder: <span className="mono">shotfarm settings set {s.key} PATH</span> on the farm host.
              </div>
            )}
          </div>
        )}
        {error && (
          <div className="err small" role="alert" data-testid="setting-error">
            {error}
          </div>
        )}
      </div>
      <div className="setting-meta small muted">
        {s.isSet ? (
          <>
            <div>
              <span className="badge badge-set" data-testid="setting-set-by">
                set{s.updatedAt ? ` ${dateTime(s.updatedAt)}` : ''}
                {s.updatedBy ? ` by ${s.updatedBy}` : ''}
              </span>
            </div>
            <div>
              default {shown(s.default)}
              {unit ? ` ${unit}` : ''} · {describeBounds(FARM_SETTINGS[s.key])}
            </div>
          </>
        ) : (
          <div>the default · {describeBounds(FARM_SETTINGS[s.key])}</div>
        )}
      </div>
    </div>
  );
}
