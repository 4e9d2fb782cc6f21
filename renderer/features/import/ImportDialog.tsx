/**
 * The import preview: every row with its status and errors, file-wide notices, and for CSV the
 * column mapping with editable defaults (MappingEditor) — each change re-checks the preview by
 * itself, and Import stays off until the preview shown is the one for the defaults shown.
 * Confirm stores the valid rows in one transaction; a refused file shows why and stores nothing.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ImportPreview, TemplateView } from '../../../shared/domain.js';
import { errorMessage } from '../../client/client.js';
import { Modal } from '../../components/Modal.js';
import { useApp } from '../../store/app-store.js';
import { cleanMapping, EMPTY_MAPPING, MappingEditor, stagesOf, type Mapping } from './MappingEditor.js';
import type { ReadResult } from './read-file.js';
import { TemplateDialog } from './TemplateDialog.js';
import { counted } from '../../lib/bulk-confirm.js';
import { ImportProgressBar, newProgressId, useImportProgress, useShownAfter } from './ImportProgress.js';
import { PAGE_ROWS, PreviewRows } from './PreviewRows.js';

const isCsvName = (name: string) => /\.(csv|tsv|txt)$/i.test(name);
/** Typing a project name re-checks once the typing pauses, not at every key. */
const RECHECK_AFTER_MS = 250;

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
  /** The token of the check or commit running now: its `import.progress` events carry it. */
  const [progressId, setProgressId] = useState<string | null>(null);
  const progress = useImportProgress(client, progressId);

  const check = useCallback(
    async (m: Mapping, forKey: string) => {
      if (!file.ok) return;
      const mine = ++seq.current;
      const token = newProgressId();
      setProgressId(token);
      setChecking(true);
      try {
        const p = await client.call('import.preview', {
          progressId: token,
          // The counts and the first page: further pages are fetched as the operator turns them.
          firstRows: PAGE_ROWS,
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
    const token = newProgressId();
    setProgressId(token);
    try {
      const r = await client.call('import.commit', { previewId: preview.previewId, progressId: token });
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
  // A check or commit that runs past SHOW_AFTER_MS shows how far it is.
  const longRun = useShownAfter(checking || committing);
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
              {c.new.toLocaleString()} to import · {c.duplicate.toLocaleString()} already queued ·{' '}
              {c.error.toLocaleString()} with errors (left out)
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
            {c && c.new > 0 ? `Import ${counted(c.new, 'job')}` : 'Nothing to import'}
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
        {longRun && (checking || committing) && (
          <ImportProgressBar
            step={committing ? 'writing' : 'checking'}
            progress={progress}
            rows={committing ? (c?.new ?? null) : null}
          />
        )}
        {checking && !preview && !error && !longRun && <div className="muted pad">Checking every row…</div>}
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
              <span className="pill import-new">{c?.new.toLocaleString()} new</span>
              <span className="pill import-duplicate">{c?.duplicate.toLocaleString()} already queued</span>
              <span className={`pill import-error${c?.error ? '' : ' pill-dim'}`}>
                {c?.error.toLocaleString()} errors
              </span>
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
            <PreviewRows key={preview.previewId} preview={preview} />
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
