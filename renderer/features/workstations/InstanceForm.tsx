/**
 * Add or edit a workstation. "Test connection" probes the URL before anything is saved and shows
 * what answered; errors are in the form's own words (lib/plain-error.ts), never an API method name.
 */
import { useState } from 'react';
import type { ConnectionTestView, InstanceView } from '../../../shared/domain.js';
import { httpUrlSchema } from '../../../shared/url.js';
import { errorMessage } from '../../client/client.js';
import { FormError, FormFooter, NumberField, TagsField, TextField } from '../../components/FormParts.js';
import { Modal } from '../../components/Modal.js';
import { useFormSave } from '../../components/use-form-save.js';
import { plainError } from '../../lib/plain-error.js';
import { useApp } from '../../store/app-store.js';
import { ConnectionResult } from './ConnectionResult.js';
import { KindChoice, type WorkstationKind } from './KindChoice.js';
import { ListForm } from './ListForm.js';
import { RunpodForm } from './RunpodForm.js';
import { parseTagList } from '../../lib/tag-list.js';

const FIELDS = { url: 'The ComfyUI URL', name: 'The name', tags: 'A tag', maxConcurrency: 'Prompts at once' };
const urlCheck = httpUrlSchema('http://gpu-01:8188');

/** The URL's problem in words, before anything is sent; null when it is a URL. */
function urlProblem(url: string): string | null {
  const r = urlCheck.safeParse(url);
  return r.success ? null : `The ComfyUI URL ${r.error.issues[0]?.message ?? 'is not valid'}.`;
}

/** A new workstation is either kind (the form for it); an existing one is edited as what it is (its card's kind). */
export function InstanceForm({ instance, onClose }: { instance: InstanceView | null; onClose: () => void }) {
  const [kind, setKind] = useState<WorkstationKind>('comfyui');
  if (instance?.kind === 'runpod') return <RunpodForm endpoint={instance} onKind={null} onClose={onClose} />;
  if (!instance && kind === 'runpod') return <RunpodForm endpoint={null} onKind={setKind} onClose={onClose} />;
  if (!instance && kind === 'list') return <ListForm onKind={setKind} onClose={onClose} />;
  return <ComfyForm instance={instance} onClose={onClose} onKind={instance ? null : setKind} />;
}

function ComfyForm({
  instance,
  onClose,
  onKind,
}: {
  instance: InstanceView | null;
  onClose: () => void;
  onKind: ((k: WorkstationKind) => void) | null;
}) {
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  const [name, setName] = useState(instance?.name ?? '');
  const [url, setUrlState] = useState(instance?.url ?? 'http://');
  const [tags, setTags] = useState(instance?.tags.join(', ') ?? '');
  const [concurrency, setConcurrency] = useState(String(instance?.maxConcurrency ?? 1));
  const { error, setError, busy, save: send } = useFormSave(FIELDS, onClose);
  const [testing, setTesting] = useState(false);
  const [found, setFound] = useState<ConnectionTestView | null>(null);
  // What was found is about the URL it was found at.
  const setUrl = (u: string) => (setUrlState(u), setFound(null));

  const test = async () => {
    const problem = urlProblem(url.trim());
    if (problem) return setError(problem);
    setError(null);
    setTesting(true);
    try {
      const r = await client.call('instances.test', { url: url.trim() });
      setFound(r);
      if (r.probe.ok && !name.trim()) setName(new URL(r.url).hostname);
    } catch (err) {
      setError(plainError(errorMessage(err), FIELDS));
    } finally {
      setTesting(false);
    }
  };

  const save = async () => {
    const problem = urlProblem(url.trim()) ?? (name.trim() ? null : 'Give the workstation a name, e.g. gpu-01.');
    if (problem) return setError(problem);
    const fields = {
      name: name.trim(),
      url: url.trim(),
      tags: parseTagList(tags),
      maxConcurrency: Number(concurrency) || 1,
    };
    await send(async () => {
      const v = instance
        ? await client.call('instances.update', { id: instance.id, ...fields })
        : await client.call('instances.add', fields);
      notify('success', `${v.name} ${instance ? 'updated' : 'added'}; probing it now.`);
    });
  };

  return (
    <Modal
      title={instance ? `Edit ${instance.name}` : 'Add a workstation'}
      onClose={onClose}
      footer={
        <FormFooter
          test={{ testing, disabled: testing || busy, onTest: () => void test(), testId: 'instance-test' }}
          onCancel={onClose}
          onSave={() => void save()}
          disabled={busy}
          testId="instance-save"
        >
          {instance ? 'Save' : 'Add workstation'}
        </FormFooter>
      }
    >
      <form className="form" onSubmit={(e) => (e.preventDefault(), void save())} data-testid="instance-form">
        {onKind && <KindChoice kind="comfyui" onKind={onKind} />}
        <FormError error={error} testId="instance-error" />
        <TextField
          label="ComfyUI URL"
          value={url}
          onChange={setUrl}
          placeholder="http://gpu-01:8188"
          data={{ 'data-field': 'url' }}
          autoFocus
        />
        {found && <ConnectionResult r={found} />}
        <TextField label="Name" value={name} onChange={setName} placeholder="gpu-01" data={{ 'data-field': 'name' }} />
        <TagsField value={tags} onChange={setTags} placeholder="img2img, i2v_video" />
        <NumberField
          label="Prompts at once"
          size="narrow"
          value={concurrency}
          onChange={setConcurrency}
          min={1}
          max={16}
          field="concurrency"
        />
        <button type="submit" hidden />
      </form>
    </Modal>
  );
}
