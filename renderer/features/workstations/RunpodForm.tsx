/**
 * Add or edit a RunPod serverless endpoint (worker-comfyui) as a workstation: its endpoint id, what
 * a GPU-hour costs (for the run log's costs and the daily budget), how many jobs it runs at once and
 * its tags (cloud.addRunpod, cloud.updateRunpod — a RunPod card's Edit opens this form). The API key is not asked here: it is set from the CLI (`workers runpod-key`, stored
 * encrypted) or RUNPOD_API_KEY, never through the page.
 */
import { useState } from 'react';
import { errorMessage } from '../../client/client.js';
import { Modal } from '../../components/Modal.js';
import { plainError } from '../../lib/plain-error.js';
import { useApp } from '../../store/app-store.js';
import type { InstanceView } from '../../../shared/domain.js';
import { KindChoice, type WorkstationKind } from './KindChoice.js';
import { parseTagList } from '../../lib/tag-list.js';

const FIELDS = { endpointId: 'The endpoint id', name: 'The name', pricePerHourUsd: 'The price per hour', maxConcurrency: 'Jobs at once', tags: 'A tag' };

/** The form's own check, before anything is sent; null when it can be sent. */
function problemOf(name: string, endpointId: string, price: number): string | null {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(endpointId)) return 'The endpoint id is letters, digits, - and _ (RunPod console → Serverless → your endpoint).';
  if (!name) return 'Give the endpoint a name, e.g. runpod-4090.';
  if (!(price > 0)) return 'Give the price per hour in USD (RunPod console → the endpoint\'s GPU), so costs and the daily budget mean something.';
  return null;
}

/** The endpoint being edited (its card), or null to add one; `onKind` only when adding (the kind can change then). */
type Props = { endpoint: (InstanceView & { kind: 'runpod' }) | null; onKind: ((k: WorkstationKind) => void) | null; onClose: () => void };

export function RunpodForm({ endpoint, onKind, onClose }: Props) {
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  const [endpointId, setEndpointId] = useState(endpoint?.endpoint.endpointId ?? '');
  const [name, setName] = useState(endpoint?.name ?? '');
  const [price, setPrice] = useState(endpoint ? String(endpoint.endpoint.pricePerHourUsd) : '');
  const [concurrency, setConcurrency] = useState(String(endpoint?.maxConcurrency ?? 1));
  const [tags, setTags] = useState(endpoint?.tags.join(', ') ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const save = async () => {
    const pricePerHourUsd = Number(price);
    const problem = problemOf(name.trim(), endpointId.trim(), pricePerHourUsd);
    if (problem) return setError(problem);
    setBusy(true);
    setError(null);
    try {
      const fields = { name: name.trim(), endpointId: endpointId.trim(), pricePerHourUsd, maxConcurrency: Number(concurrency) || 1, tags: parseTagList(tags) };
      if (endpoint) {
        // What this form does not show (execution timeout, GPU, VRAM) keeps its stored value.
        const v = await client.call('cloud.updateRunpod', { id: endpoint.id, ...fields });
        notify('success', `${v.name} updated.`);
      } else {
        const v = await client.call('cloud.addRunpod', fields);
        notify('success', `${v.name} added; it takes jobs only as cloud burst allows (burst_after_s, the daily budget).`);
      }
      onClose();
    } catch (err) {
      setError(plainError(errorMessage(err), FIELDS));
      setBusy(false);
    }
  };

  return (
    <Modal
      title={endpoint ? `Edit ${endpoint.name}` : 'Add a workstation'}
      onClose={onClose}
      footer={
        <>
          <span className="spacer" />
          <button className="btn btn-ghost" onClick={onClose}>Cancel</button>
          <button className="btn btn-primary" onClick={() => void save()} disabled={busy} data-testid="runpod-save">{endpoint ? 'Save' : 'Add endpoint'}</button>
        </>
      }
    >
      <form className="form" onSubmit={(e) => (e.preventDefault(), void save())} data-testid="runpod-form">
        {onKind && <KindChoice kind="runpod" onKind={onKind} />}
        {error && <div className="alert alert-error" role="alert" data-testid="runpod-error">{error}</div>}
        <label className="field">
          <span className="field-label">Endpoint id <span className="field-hint">(RunPod console → Serverless)</span></span>
          <input className="input" value={endpointId} onChange={(e) => setEndpointId(e.target.value)} placeholder="abc123xyz" data-field="endpointId" autoFocus />
        </label>
        <label className="field">
          <span className="field-label">Name</span>
          <input className="input" value={name} onChange={(e) => setName(e.target.value)} placeholder="runpod-4090" data-field="name" />
        </label>
        <label className="field field-narrow">
          <span className="field-label">Price per hour (USD)</span>
          <input className="input" type="number" min={0} step={0.01} value={price} onChange={(e) => setPrice(e.target.value)} placeholder="1.10" data-field="pricePerHourUsd" />
        </label>
        <label className="field field-narrow">
          <span className="field-label">Jobs at once</span>
          <input className="input" type="number" min={1} max={64} value={concurrency} onChange={(e) => setConcurrency(e.target.value)} data-field="maxConcurrency" />
        </label>
        <label className="field">
          <span className="field-label">Tags <span className="muted">(capabilities, comma-separated)</span></span>
          <input className="input" value={tags} onChange={(e) => setTags(e.target.value)} placeholder="img2img" data-field="tags" />
        </label>
        <p className="field-hint">The API key is set from the CLI (<code>shotfarm workers runpod-key</code>, stored encrypted) or RUNPOD_API_KEY, never in this page.</p>
        <button type="submit" hidden />
      </form>
    </Modal>
  );
}
