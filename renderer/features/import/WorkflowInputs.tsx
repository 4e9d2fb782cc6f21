/**
 * The node inputs of a workflow, node by node: tick the ones a shot may set and name them. Links to
 * other nodes are not listed (they are wiring, not values). A parameter named `seed` gets each take's seed.
 */
import type { WorkflowInput } from '../../../shared/template-builder.js';
import { suggestParameterName } from '../../../shared/template-builder.js';

const shown = (v: WorkflowInput['value']) => {
  const s = typeof v === 'string' ? JSON.stringify(v) : String(v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
};

export function WorkflowInputs({
  inputs,
  chosen,
  onChange,
}: {
  inputs: readonly WorkflowInput[];
  chosen: Record<string, string>;
  onChange: (next: Record<string, string>) => void;
}) {
  const toggle = (i: WorkflowInput) => {
    const next = { ...chosen };
    if (i.path in next) delete next[i.path];
    else next[i.path] = suggestParameterName(i, new Set(Object.values(chosen)));
    onChange(next);
  };
  return (
    <div className="wf-inputs" data-testid="workflow-inputs">
      <table className="grid-table">
        <thead>
          <tr>
            <th />
            <th>Node</th>
            <th>Input</th>
            <th>Value in the workflow</th>
            <th>Parameter name</th>
          </tr>
        </thead>
        <tbody>
          {inputs.map((i, n) => {
            const on = i.path in chosen;
            const firstOfNode = n === 0 || inputs[n - 1]?.nodeId !== i.nodeId;
            return (
              <tr
                key={i.path}
                className={`${on ? 'wf-on' : ''}${firstOfNode ? ' wf-node-start' : ''}`}
                data-input={i.path}
              >
                <td>
                  <input
                    type="checkbox"
                    checked={on}
                    onChange={() => toggle(i)}
                    aria-label={`Expose ${i.path}`}
                    data-expose={i.path}
                  />
                </td>
                <td className="wf-node" title={`${i.nodeId} ${i.classType}${i.title ? ` · ${i.title}` : ''}`}>
                  {firstOfNode ? (
                    <>
                      <b>{i.nodeId}</b> {i.classType}
                      {i.title && <span className="muted"> · {i.title}</span>}
                    </>
                  ) : (
                    <span className="muted">{i.nodeId}</span>
                  )}
                </td>
                <td className="mono">{i.input}</td>
                <td className="mono muted wf-value" title={String(i.value)}>
                  {shown(i.value)}
                </td>
                <td>
                  {on && (
                    <input
                      className="input input-sm"
                      value={chosen[i.path] ?? ''}
                      onChange={(e) => onChange({ ...chosen, [i.path]: e.target.value })}
                      aria-label={`Parameter name for ${i.path}`}
                      data-param-name={i.path}
                    />
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
