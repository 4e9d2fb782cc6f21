/** Add or edit a workstation. The engine validates; its message (bad URL, name taken…) is shown as is. */
import { useState } from 'react';
import type { InstanceView } from '../../../shared/domain.js';
import { errorMessage } from '../../client/client.js';
import { Modal } from '../../components/Modal.js';
import { useApp } from '../../store/app-store.js';

export function InstanceForm({ instance, onClose }: { instance: InstanceView | null; onClose: () => void }) {
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  const [name, setName] = useState(instance?.name ?? '');
  const [url, setUrl] = useState(instance?.url ?? 'http://');
  const [tags, setTags] = useState(instance?.tags.join(', ') ?? '');
  const [concurrency, setConcurrency] = useState(String(instance?.maxConcurrency ?? 1));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const save = async () => {
    setBusy(true);
    setError(null);
    const fields = {
      name: name.trim(), url: url.trim(), tags: tags.split(',').map((t) => t.trim()).filter(Boolean),
      maxConcurrency: Number(concurrency) || 1,
    };
    try {
      const v = instance ? await client.call('instances.update', { id: instance.id, ...fields }) : await client.call('instances.add', fields);
      notify('success', `${v.name} ${instance ? 'updated' : 'added'}; probing it now.`);
      onClose();
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };

  return (
    <Modal
      title={instance ? `Edit ${instance.name}` : 'Add a workstation'}
      onClose={onClose}
      footer={
        <>
          <span className="spacer" />
          <button className="btn btn-ghost" onClick={onClose}>Cancel</button>
          <button className="btn btn-primary" onClick={() => void save()} disabled={busy} data-testid="instance-save">{instance ? 'Save' : 'Add workstation'}</button>
        </>
      }
    >
      <form className="form" onSubmit={(e) => (e.preventDefault(), void save())} data-testid="instance-form">
        {error && <div className="alert alert-error" role="alert" data-testid="instance-error">{error}</div>}
        <label className="field">
          <span className="field-label">ComfyUI URL</span>
          <input className="input" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="http://gpu-01:8188" data-field="url" autoFocus />
        </label>
        <label className="field">
          <span className="field-label">Name</span>
          <input className="input" value={name} onChange={(e) => setName(e.target.value)} placeholder="gpu-01" data-field="name" />
        </label>
        <label className="field">
          <span className="field-label">Tags <span className="muted">(capabilities, comma-separated)</span></span>
          <input className="input" value={tags} onChange={(e) => setTags(e.target.value)} placeholder="img2img, i2v_video" data-field="tags" />
        </label>
        <label className="field field-narrow">
          <span className="field-label">Prompts at once</span>
          <input className="input" type="number" min={1} max={16} value={concurrency} onChange={(e) => setConcurrency(e.target.value)} data-field="concurrency" />
        </label>
        <button type="submit" hidden />
      </form>
    </Modal>
  );
}
