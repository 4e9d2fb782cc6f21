/**
 * The import preview: every row with its status and errors, file-wide notices, and for CSV the
 * column mapping with editable defaults (MappingEditor) — each change re-checks the preview by
 * itself, and Import stays off until the preview shown is the one for the defaults shown.
 * Confirm stores the valid rows in one transaction; a refused file shows why and stores nothing.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ImportPreview, TemplateView } from '../../../shared/domain.js';
import { errorMessage } from '../../client/client.js';
import { Modal } from '../../components/Modal.js';
import { useApp } from '../../store/app-store.js';
import { cleanMapping, EMPTY_MAPPING, MappingEditor, stagesOf, type Mapping } from './MappingEditor.js';
import type { ReadResult } from './read-file.js';
import { TemplateDialog } from './TemplateDialog.js';
import { counted } from '../../lib/bulk-confirm.js';

const SHOWN_ROWS = 1_000;
const isCsvName = (name: string) => /\.(csv|tsv|txt)$/i.test(name);
/** Typing a project name re-checks once the typing pauses, not at every key. */
const RECHECK_AFTER_MS = 250;

function RowsTable({ preview }: { preview: ImportPreview }) {
  const rows = useMemo(
    () =>
      [...preview.rows].sort(
        (a, b) => (a.status === 'error' ? 0 : 1) - (b.status === 'error' ? 0 : 1) || a.row - b.row,
      ),
    [preview],
  );
  return (
    <div className="preview-rows">
      <table className="grid-table" data-testid="preview-rows">
        <thead>
          <tr>
            <th>Row</th>
            <th>Shot</th>
            <th>Stage</th>
            <th>Take</th>
            <th>Template</th>
            <th>Priority</th>
            <th>Status</th>
            <th>Problems</th>
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, SHOWN_ROWS).map((r) => (
            <tr
              key={`${r.row}-${r.stage}`}
              className={`status-${r.status}`}
              data-row-status={r.status}
              data-shot={r.shot}
            >
              <td className="num muted">
                {r.row}
                {r.line !== null && <span className="small"> · L{r.line}</span>}
              </td>
              <td>
                <b>{r.shot || '—'}</b>{' '}
                <span className="muted small">
                  {r.project}/{r.episode}
                </span>
              </td>
              <td>{r.stage}</td>
              <td className="num">{r.take}</td>
              <td>{r.template}</td>
              <td>
                <span className={`prio prio-${r.priority}`}>{r.priority}</span>
              </td>
              <td>
                <span className={`pill import-${r.status}`}>
                  {r.status === 'new' ? 'New' : r.status === 'duplicate' ? 'Already queued' : 'Error'}
                </span>
              </td>
              <td className="problems">
                {r.errors.map((e, i) => (
                  <div key={`e${i}`} className="err">
                    {e}
                  </div>
                ))}
                {r.warnings.map((w, i) => (
                  <div key={`w${i}`} className="warn">
                    {w}
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > SHOWN_ROWS && (
        <div className="muted small pad">
          … and {(rows.length - SHOWN_ROWS).toLocaleString()} more rows (errors are listed first).
        </div>
      )}
    </div>
  );
}

export function ImportDialog({ file, onClose }: { file: ReadResult; onClose: () => void }) {
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [error, setError] = useState<string | null>(file.ok ? null : file.message);
  const [checking, setChecking] = useState(false);
  const [committing, setCommitting] = useState(false);
  const [templates, setTemplates] = useState<TemplateView[]>([]);
  const [registering, setRegistering] = useState(false);
  const [mapping, setMapping] = useState<Mapping>(EMPTY_MAPPING);
  /** The defaults the preview on screen was made with: Import commits that preview only while they are the ones shown. */
  const [checkedKey, setCheckedKey] = useState<string | null>(null);
  const csv = file.ok && isCsvName(file.name);
  const key = JSON.stringify(csv ? cleanMapping(mapping) : null);
  const seq = useRef(0);

  const check = useCallback(
    async (m: Mapping, forKey: string) => {
      if (!file.ok) return;
      const mine = ++seq.current;
      setChecking(true);
      try {
        const p = await client.call('import.preview', {
          fileName: file.name,
          content: file.content,
          mapping: csv ? cleanMapping(m) : undefined,
          // From the desktop dialog: the file's folder, so relative input images resolve next to it.
          ...(file.baseDir ? { baseDir: file.baseDir } : {}),
          // From a browser or the desktop in studio mode: the images sent with the list (send-inputs.ts).
          ...(file.uploads ? { uploads: file.uploads } : {}),
        });
        if (mine !== seq.current) return;
        setPreview(p);
        setCheckedKey(forKey);
        setError(null);
      } catch (err) {
        if (mine !== seq.current) return;
        setPreview(null);
        setCheckedKey(null);
        setError(errorMessage(err));
      } finally {
        if (mine === seq.current) setChecking(false);
      }
    },
    [client, file, csv],
  );

  const loadTemplates = useCallback(
    () => client.call('templates.list', {}).then(setTemplates, () => undefined),
    [client],
  );
  useEffect(() => void (csv && loadTemplates()), [csv, loadTemplates]);

  // Every change of the defaults re-checks (the first check runs at once, later ones when typing pauses).
  const first = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the mapping's content: an equal mapping re-typed does not re-check.
  useEffect(() => {
    const wait = first.current ? 0 : RECHECK_AFTER_MS;
    first.current = false;
    if (wait > 0) setChecking(true);
    const t = setTimeout(() => void check(mapping, key), wait);
    return () => clearTimeout(t);
    // `key` stands for the mapping's content: an equal mapping re-typed does not re-check.
  }, [key, check]);

  const confirm = async () => {
    if (!preview) return;
    setCommitting(true);
    try {
      const r = await client.call('import.commit', { previewId: preview.previewId });
      notify(
        'success',
        `Imported ${counted(r.imported, 'job')} from ${preview.fileName}${r.duplicates ? `, ${r.duplicates.toLocaleString()} already queued` : ''}${r.rejected ? `, ${r.rejected.toLocaleString()} rejected` : ''}.`,
      );
      onClose();
    } catch (err) {
      setError(errorMessage(err));
      setCommitting(false);
    }
  };

  const current = checkedKey === key && !checking;
  const c = preview?.counts;
  return (
    <Modal
      wide
      title={
        <>
          Import <span className="muted">{file.name}</span>
        </>
      }
      onClose={onClose}
      footer={
        <>
          {c && (
            <span className="muted">
              {c.new} to import · {c.duplicate} already queued · {c.error} with errors (left out)
            </span>
          )}
          <span className="spacer" />
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={committing || !current || !c || c.new === 0 || preview?.refusal != null}
            title={preview?.refusal ?? undefined}
            onClick={() => void confirm()}
            data-testid="import-confirm"
          >
            {c && c.new > 0 ? `Import ${c.new} job${c.new === 1 ? '' : 's'}` : 'Nothing to import'}
          </button>
        </>
      }
    >
      <div data-testid="import-dialog">
        {error && (
          <div className="alert alert-error" role="alert" data-testid="import-error">
            {error}
          </div>
        )}
        {checking && !preview && !error && <div className="muted pad">Checking every row…</div>}
        {csv && (
          <MappingEditor
            mapping={mapping}
            onChange={setMapping}
            templates={templates}
            checking={checking}
            onRegisterTemplate={() => setRegistering(true)}
          />
        )}
        {preview && (
          <>
            <div className="preview-summary">
              <span className="pill import-new">{c?.new} new</span>
              <span className="pill import-duplicate">{c?.duplicate} already queued</span>
              <span className={`pill import-error${c?.error ? '' : ' pill-dim'}`}>{c?.error} errors</span>
              <span className="muted small">{preview.format.toUpperCase()}</span>
              {Object.keys(preview.mapping).length > 0 && (
                <span className="muted small mapping-used">
                  Columns:{' '}
                  {Object.entries(preview.mapping)
                    .map(([k, v]) => `${k} ← ${v}`)
                    .join(' · ')}
                </span>
              )}
            </div>
            {preview.refusal && (
              <div className="alert alert-error" role="alert" data-testid="import-refusal">
                {preview.refusal.charAt(0).toUpperCase()}
                {preview.refusal.slice(1)} Change the rush rows' priority to high in the
                {preview.format === 'csv' ? ' file (or the Priority above)' : ' file'}, or ask an operator to import it.
              </div>
            )}
            {preview.notices.length > 0 && (
              <ul className="notices" data-testid="import-notices">
                {preview.notices.map((n, i) => (
                  <li key={i}>{n}</li>
                ))}
              </ul>
            )}
            <RowsTable preview={preview} />
          </>
        )}
      </div>
      {registering && (
        <TemplateDialog
          stages={stagesOf(templates)}
          onClose={() => setRegistering(false)}
          onRegistered={(t) => {
            setRegistering(false);
            void loadTemplates().then(() => setMapping((m) => ({ ...m, stage: t.stage, template: t.name })));
          }}
        />
      )}
    </Modal>
  );
}
