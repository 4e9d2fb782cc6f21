/**
 * The import preview: every row with its status and errors, file-wide notices, and for CSV the
 * column mapping with editable defaults (project / episode / stage / template / priority).
 * Confirm stores the valid rows in one transaction; a refused file shows why and stores nothing.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ImportPreview, TemplateView } from '../../../shared/domain.js';
import { PRIORITIES, type Priority } from '../../../shared/priorities.js';
import { errorMessage } from '../../client/client.js';
import { Modal } from '../../components/Modal.js';
import { useApp } from '../../store/app-store.js';
import type { ReadResult } from './read-file.js';

interface Mapping {
  project: string;
  episode: string;
  stage: string;
  template: string;
  priority: Priority | '';
}

const SHOWN_ROWS = 1_000;
const isCsvName = (name: string) => /\.(csv|tsv|txt)$/i.test(name);

function cleanMapping(m: Mapping) {
  return {
    project: m.project.trim() || undefined,
    episode: m.episode.trim() || undefined,
    stage: m.stage.trim() || undefined,
    template: m.template || undefined,
    priority: m.priority || undefined,
  };
}

function MappingEditor({ mapping, onChange, templates, onRecheck, busy }: {
  mapping: Mapping; onChange: (m: Mapping) => void; templates: TemplateView[]; onRecheck: () => void; busy: boolean;
}) {
  const field = (key: 'project' | 'episode' | 'stage', label: string, hint: string) => (
    <label className="field">
      <span className="field-label">{label}</span>
      <input className="input" value={mapping[key]} placeholder={hint} onChange={(e) => onChange({ ...mapping, [key]: e.target.value })} data-mapping={key} />
    </label>
  );
  return (
    <div className="mapping" data-testid="mapping">
      <div className="mapping-title">Defaults for columns the file does not have</div>
      <div className="mapping-grid">
        {field('project', 'Project', 'e.g. Moonfall')}
        {field('episode', 'Episode', 'e.g. ep101')}
        {field('stage', 'Stage', 'keyframe / motion')}
        <label className="field">
          <span className="field-label">Template</span>
          <select className="input" value={mapping.template} onChange={(e) => onChange({ ...mapping, template: e.target.value })} data-mapping="template">
            <option value="">(from file)</option>
            {templates.map((t) => <option key={t.name} value={t.name}>{t.name} · {t.stage}</option>)}
          </select>
        </label>
        <label className="field">
          <span className="field-label">Priority</span>
          <select className="input" value={mapping.priority} onChange={(e) => onChange({ ...mapping, priority: e.target.value as Priority | '' })} data-mapping="priority">
            <option value="">(from file / normal)</option>
            {PRIORITIES.map((p) => <option key={p} value={p}>{p}</option>)}
          </select>
        </label>
        <button className="btn" onClick={onRecheck} disabled={busy} data-testid="recheck">Check again</button>
      </div>
    </div>
  );
}

function RowsTable({ preview }: { preview: ImportPreview }) {
  const rows = useMemo(() => [...preview.rows].sort((a, b) => (a.status === 'error' ? 0 : 1) - (b.status === 'error' ? 0 : 1) || a.row - b.row), [preview]);
  return (
    <div className="preview-rows">
      <table className="grid-table" data-testid="preview-rows">
        <thead>
          <tr><th>Row</th><th>Shot</th><th>Stage</th><th>Take</th><th>Template</th><th>Priority</th><th>Status</th><th>Problems</th></tr>
        </thead>
        <tbody>
          {rows.slice(0, SHOWN_ROWS).map((r) => (
            <tr key={`${r.row}-${r.stage}`} className={`status-${r.status}`} data-row-status={r.status} data-shot={r.shot}>
              <td className="num muted">{r.row}{r.line !== null && <span className="small"> · L{r.line}</span>}</td>
              <td><b>{r.shot || '—'}</b> <span className="muted small">{r.project}/{r.episode}</span></td>
              <td>{r.stage}</td>
              <td className="num">{r.take}</td>
              <td>{r.template}</td>
              <td><span className={`prio prio-${r.priority}`}>{r.priority}</span></td>
              <td><span className={`pill import-${r.status}`}>{r.status === 'new' ? 'New' : r.status === 'duplicate' ? 'Already queued' : 'Error'}</span></td>
              <td className="problems">
                {r.errors.map((e, i) => <div key={`e${i}`} className="err">{e}</div>)}
                {r.warnings.map((w, i) => <div key={`w${i}`} className="warn">{w}</div>)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > SHOWN_ROWS && <div className="muted small pad">… and {(rows.length - SHOWN_ROWS).toLocaleString()} more rows (errors are listed first).</div>}
    </div>
  );
}

export function ImportDialog({ file, onClose }: { file: ReadResult; onClose: () => void }) {
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [error, setError] = useState<string | null>(file.ok ? null : file.message);
  const [busy, setBusy] = useState(false);
  const [templates, setTemplates] = useState<TemplateView[]>([]);
  const [mapping, setMapping] = useState<Mapping>({ project: '', episode: '', stage: '', template: '', priority: '' });
  const csv = file.ok && isCsvName(file.name);

  const check = useCallback(async (m: Mapping) => {
    if (!file.ok) return;
    setBusy(true);
    try {
      setPreview(await client.call('import.preview', {
        fileName: file.name, content: file.content, mapping: csv ? cleanMapping(m) : undefined,
        // From the desktop dialog: the file's folder, so relative input images resolve next to it.
        ...(file.baseDir ? { baseDir: file.baseDir } : {}),
        // From a browser or the desktop in studio mode: the images sent with the list (send-inputs.ts).
        ...(file.uploads ? { uploads: file.uploads } : {}),
      }));
      setError(null);
    } catch (err) {
      setPreview(null);
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }, [client, file, csv]);

  useEffect(() => {
    void check(mapping);
    if (csv) client.call('templates.list', {}).then(setTemplates, () => undefined);
    // Only on open; "Check again" re-runs with the edited mapping.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const confirm = async () => {
    if (!preview) return;
    setBusy(true);
    try {
      const r = await client.call('import.commit', { previewId: preview.previewId });
      notify('success', `Imported ${r.imported} job${r.imported === 1 ? '' : 's'} from ${preview.fileName}${r.duplicates ? `, ${r.duplicates} already queued` : ''}${r.rejected ? `, ${r.rejected} rejected` : ''}.`);
      onClose();
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };

  const c = preview?.counts;
  return (
    <Modal
      wide
      title={<>Import <span className="muted">{file.name}</span></>}
      onClose={onClose}
      footer={
        <>
          {c && <span className="muted">{c.new} to import · {c.duplicate} already queued · {c.error} with errors (left out)</span>}
          <span className="spacer" />
          <button className="btn btn-ghost" onClick={onClose}>Cancel</button>
          <button className="btn btn-primary" disabled={busy || !c || c.new === 0} onClick={() => void confirm()} data-testid="import-confirm">
            {c && c.new > 0 ? `Import ${c.new} job${c.new === 1 ? '' : 's'}` : 'Nothing to import'}
          </button>
        </>
      }
    >
      <div data-testid="import-dialog">
        {error && <div className="alert alert-error" role="alert" data-testid="import-error">{error}</div>}
        {busy && !preview && !error && <div className="muted pad">Checking every row…</div>}
        {csv && <MappingEditor mapping={mapping} onChange={setMapping} templates={templates} onRecheck={() => void check(mapping)} busy={busy} />}
        {preview && (
          <>
            <div className="preview-summary">
              <span className="pill import-new">{c?.new} new</span>
              <span className="pill import-duplicate">{c?.duplicate} already queued</span>
              <span className={`pill import-error${c?.error ? '' : ' pill-dim'}`}>{c?.error} errors</span>
              <span className="muted small">{preview.format.toUpperCase()}</span>
              {Object.keys(preview.mapping).length > 0 && (
                <span className="muted small mapping-used">Columns: {Object.entries(preview.mapping).map(([k, v]) => `${k} ← ${v}`).join(' · ')}</span>
              )}
            </div>
            {preview.notices.length > 0 && (
              <ul className="notices" data-testid="import-notices">
                {preview.notices.map((n, i) => <li key={i}>{n}</li>)}
              </ul>
            )}
            <RowsTable preview={preview} />
          </>
        )}
      </div>
    </Modal>
  );
}
