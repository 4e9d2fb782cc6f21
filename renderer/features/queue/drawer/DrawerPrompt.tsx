/**
 * What the prompt sends: every template parameter with its value and where it came from, the input
 * files and their names on the workstation, and the workflow JSON as posted (collapsed, copyable).
 */
import { useState } from 'react';
import type { JobDetail, ParameterSource } from '../../../../shared/domain.js';
import { useApp } from '../../../store/app-store.js';

const SOURCE: Record<ParameterSource, string> = {
  shot: 'shot list',
  seed: "job's seed",
  input: 'uploaded file',
  template: 'template default',
};

function show(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function DrawerPrompt({ d }: { d: JobDetail }) {
  const notify = useApp((s) => s.notify);
  const [open, setOpen] = useState(false);
  const json = d.workflow ? JSON.stringify(d.workflow, null, 2) : '';
  const copy = () => {
    navigator.clipboard.writeText(json).then(
      () => notify('info', 'Workflow JSON copied.'),
      () => notify('error', 'The browser refused the clipboard: select the text and copy it.'),
    );
  };
  return (
    <>
      {d.problem && <div className="alert alert-error">The prompt cannot be built: {d.problem}</div>}
      <table className="grid-table compact params" data-testid="resolved-parameters">
        <thead>
          <tr>
            <th>Parameter</th>
            <th>Sent</th>
            <th>From</th>
          </tr>
        </thead>
        <tbody>
          {d.resolved.map((p) => (
            <tr key={p.name} data-param={p.name} data-source={p.source}>
              <td>
                <b>{p.name}</b>
                <div className="mono tiny muted">{p.path}</div>
              </td>
              <td className="mono small value">
                {p.value === null ? <span className="muted">—</span> : show(p.value)}
              </td>
              <td className="small muted nowrap">{SOURCE[p.source]}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {d.inputs.length > 0 && (
        <table className="grid-table compact" data-testid="inputs">
          <thead>
            <tr>
              <th>Input</th>
              <th>File here</th>
              <th>On the workstation</th>
            </tr>
          </thead>
          <tbody>
            {d.inputs.map((i) => (
              <tr key={i.param}>
                <td>
                  <b>{i.param}</b>
                  <div className="tiny muted">{i.what}</div>
                </td>
                <td className="mono tiny break">{i.file || <span className="muted">not made yet</span>}</td>
                <td className="mono tiny break">{i.sentAs || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {d.workflow && (
        <div className="workflow">
          <div className="workflow-head">
            <button
              type="button"
              className="btn btn-sm btn-ghost"
              onClick={() => setOpen(!open)}
              aria-expanded={open}
              data-testid="workflow-toggle"
            >
              {open ? '▾' : '▸'} Workflow JSON{' '}
              <span className="muted">({Object.keys(d.workflow).length} nodes, as posted)</span>
            </button>
            <button type="button" className="btn btn-sm" onClick={copy} data-testid="workflow-copy">
              Copy
            </button>
          </div>
          {open && (
            <pre className="json" data-testid="workflow-json">
              {json}
            </pre>
          )}
        </div>
      )}
    </>
  );
}
