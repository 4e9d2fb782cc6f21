/**
 * On an empty farm (no jobs yet), the three steps to a first render, each with its button and
 * ticked when done: register a template → add a workstation → import a shot list. It goes away
 * with the first job, or when hidden (for this tab).
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import type { TemplateView } from '../../../shared/domain.js';
import { useApp } from '../../store/app-store.js';
import { InstanceForm } from '../workstations/InstanceForm.js';
import { useImportPicker } from './ImportDropZone.js';
import { stagesOf } from './MappingEditor.js';
import { useMay } from '../../store/use-may.js';
import { TemplateDialog } from './TemplateDialog.js';

const HIDDEN_KEY = 'shotfarm.firstRunGuide.hidden';

function Step({
  n,
  done,
  title,
  children,
  action,
}: {
  n: number;
  done: boolean;
  title: string;
  children: string;
  action: ReactNode;
}) {
  return (
    <li className={`guide-step${done ? ' guide-step-done' : ''}`} data-step={n} data-done={done ? 'yes' : 'no'}>
      <span className="guide-n" aria-hidden>
        {done ? '✓' : n}
      </span>
      <div className="guide-text">
        <div className="guide-title">{title}</div>
        <div className="muted small">{children}</div>
      </div>
      {action}
    </li>
  );
}

export function FirstRunGuide() {
  const client = useApp((s) => s.client);
  const jobs = useApp((s) => (s.status ? Object.values(s.status.jobsByState).reduce((a, b) => a + b, 0) : null));
  const instances = useApp((s) => Object.keys(s.instances).length);
  const pick = useImportPicker();
  const [templates, setTemplates] = useState<TemplateView[] | null>(null);
  const [open, setOpen] = useState<'template' | 'workstation' | null>(null);
  const { why } = useMay();
  const [hidden, setHidden] = useState(() => window.sessionStorage.getItem(HIDDEN_KEY) === '1');
  const empty = jobs === 0;
  const load = useCallback(() => void client.call('templates.list', {}).then(setTemplates, () => undefined), [client]);
  useEffect(() => {
    if (empty && !hidden) load();
  }, [empty, hidden, load]);

  if (!empty || hidden || templates === null) return null;
  const hide = () => {
    window.sessionStorage.setItem(HIDDEN_KEY, '1');
    setHidden(true);
  };
  return (
    <section className="guide" data-testid="first-run-guide" aria-label="Getting started">
      <div className="guide-head">
        <h2>Three steps to a first render</h2>
        <button type="button" className="btn btn-ghost btn-sm" onClick={hide}>
          Hide
        </button>
      </div>
      <ol className="guide-steps">
        <Step
          n={1}
          done={templates.length > 0}
          title="Register a template"
          action={
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => setOpen('template')}
              disabled={why('templates') !== undefined}
              title={why('templates')}
              data-testid="guide-template"
            >
              Register a template…
            </button>
          }
        >
          {templates.length > 0
            ? `${templates.length} registered: ${templates.map((t) => t.name).join(', ')}.`
            : 'A ComfyUI workflow exported in API format, with the inputs a shot may set.'}
        </Step>
        <Step
          n={2}
          done={instances > 0}
          title="Add a workstation"
          action={
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => setOpen('workstation')}
              disabled={why('workstations') !== undefined}
              title={why('workstations')}
              data-testid="guide-workstation"
            >
              Add a workstation…
            </button>
          }
        >
          {instances > 0
            ? `${instances} registered.`
            : 'The URL of a ComfyUI server on your network, e.g. http://gpu-01:8188 — test it before saving.'}
        </Step>
        <Step
          n={3}
          done={false}
          title="Import a shot list"
          action={
            <button
              type="button"
              className="btn btn-sm btn-primary"
              onClick={pick}
              disabled={why('import') !== undefined}
              title={why('import')}
              data-testid="guide-import"
            >
              Import a shot list…
            </button>
          }
        >
          JSON or CSV (Kitsu, ShotGrid): you see every row checked before anything is stored. You can also drop the file
          on the window.
        </Step>
      </ol>
      {open === 'template' && (
        <TemplateDialog
          stages={stagesOf(templates)}
          onClose={() => setOpen(null)}
          onRegistered={() => (setOpen(null), load())}
        />
      )}
      {open === 'workstation' && <InstanceForm instance={null} onClose={() => setOpen(null)} />}
    </section>
  );
}
