/**
 * Register a template from the UI: drop or pick a ComfyUI workflow exported in API format (or a
 * Shotfarm template file), name its parameters from the node inputs it shows, see what the
 * engine's template parser says as you edit (a dry run), then register it for the next import.
 */
import { useState, type DragEvent } from 'react';
import type { TemplateView } from '../../../shared/domain.js';
import { errorMessage } from '../../client/client.js';
import { Modal } from '../../components/Modal.js';
import { useApp } from '../../store/app-store.js';
import { useTemplateDraft, type DraftFields, type Verdict } from './use-template-draft.js';
import { WorkflowInputs } from './WorkflowInputs.js';

function VerdictLine({ v }: { v: Verdict }) {
  if (v.status === 'checking')
    return (
      <span className="muted" data-testid="template-verdict" data-status="checking">
        Checking…
      </span>
    );
  if (v.status === 'ok') {
    const t = v.view;
    return (
      <span className="ok-text" data-testid="template-verdict" data-status="ok">
        {t.id ? `Already registered as ${t.name} v${t.version}` : `Ready: ${t.name} v${t.version}`} · {t.stage} ·{' '}
        {t.vramGb} GB · {t.timeoutS} s · {t.parameters.length} parameter{t.parameters.length === 1 ? '' : 's'}
      </span>
    );
  }
  return null;
}

function Fields({ f, set, stages }: { f: DraftFields; set: (f: DraftFields) => void; stages: readonly string[] }) {
  const text = (key: keyof DraftFields, label: string, hint: string, extra: { type?: string; list?: string } = {}) => (
    <label className="field">
      <span className="field-label">{label}</span>
      <input
        className="input"
        value={f[key]}
        placeholder={hint}
        onChange={(e) => set({ ...f, [key]: e.target.value })}
        data-template-field={key}
        {...extra}
      />
    </label>
  );
  return (
    <div className="template-fields">
      {text('name', 'Name', 'e.g. keyframe-img2img')}
      {text('stage', 'Stage', 'keyframe', { list: 'template-stages' })}
      <datalist id="template-stages">
        {stages.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
      {text('vramGb', 'VRAM (GB)', 'stage default', { type: 'number' })}
      {text('timeoutS', 'Time limit (s)', 'stage default', { type: 'number' })}
      {text('tags', 'Tags', 'img2img, i2v_video')}
    </div>
  );
}

export function TemplateDialog({
  stages,
  onClose,
  onRegistered,
}: {
  stages: readonly string[];
  onClose: () => void;
  onRegistered: (t: TemplateView) => void;
}) {
  const notify = useApp((s) => s.notify);
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [registerError, setRegisterError] = useState<string | null>(null);
  const draft = useTemplateDraft(file, stages);

  const take = async (f: File | undefined) => {
    if (!f) return;
    setRegisterError(null);
    try {
      setFile({ name: f.name, text: await f.text() });
      setReadError(null);
    } catch {
      setReadError(`${f.name} could not be read.`);
    }
  };
  // The window's own drop zone imports shot lists: a workflow dropped here is this dialog's.
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    e.stopPropagation();
    void take(e.dataTransfer.files[0]);
  };
  const stop = (e: DragEvent) => (e.preventDefault(), e.stopPropagation());

  const register = async () => {
    setBusy(true);
    setRegisterError(null);
    try {
      const t = await draft.register();
      notify('success', `Template ${t.name} v${t.version} registered; shot lists can use it now.`);
      onRegistered(t);
    } catch (err) {
      setRegisterError(errorMessage(err));
      setBusy(false);
    }
  };

  const v = draft.verdict;
  const problem = registerError ?? (v.status === 'error' ? v.message : null);
  return (
    <Modal
      wide
      title="Register a template"
      onClose={onClose}
      footer={
        <>
          <VerdictLine v={v} />
          <span className="spacer" />
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy || v.status !== 'ok' || v.view.id !== 0}
            onClick={() => void register()}
            data-testid="template-register"
          >
            Register template
          </button>
        </>
      }
    >
      <div
        className="template-dialog"
        data-testid="template-dialog"
        onDragEnter={stop}
        onDragOver={stop}
        onDrop={onDrop}
      >
        <label className={`wf-drop${file ? ' wf-drop-done' : ''}`}>
          <input
            type="file"
            accept=".json,application/json"
            hidden
            onChange={(e) => (void take(e.target.files?.[0]), (e.target.value = ''))}
            data-testid="template-file"
          />
          {file ? (
            <span>
              <b>{file.name}</b> <span className="muted">— drop or pick another to replace it</span>
            </span>
          ) : (
            <span>
              <b>Drop a ComfyUI workflow here, or click to pick one.</b>
              <span className="muted"> In ComfyUI: Workflow → Export (API). A Shotfarm template file works too.</span>
            </span>
          )}
        </label>
        {readError && (
          <div className="alert alert-error" role="alert">
            {readError}
          </div>
        )}
        {file && draft.reading?.kind !== 'other' && <Fields f={draft.fields} set={draft.setFields} stages={stages} />}
        {problem && (
          <pre className="alert alert-error template-errors" role="alert" data-testid="template-errors">
            {problem}
          </pre>
        )}
        {draft.reading && draft.reading.kind !== 'other' && (
          <>
            <div className="muted small wf-hint">
              Tick the inputs a shot may set and name them. A parameter named <span className="mono">seed</span> gets
              each take's seed; <span className="mono">image</span> is where a shot list's input image (or a keyframe,
              for a motion stage) goes.
            </div>
            <WorkflowInputs inputs={draft.reading.inputs} chosen={draft.chosen} onChange={draft.setChosen} />
          </>
        )}
      </div>
    </Modal>
  );
}
