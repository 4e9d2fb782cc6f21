/**
 * Add or edit a RunPod serverless endpoint (worker-comfyui) as a workstation: every field the CLI's
 * `workers add-runpod` has but the API base (set on the farm host only) — endpoint id, name, GPU,
 * VRAM, what a GPU-hour costs, jobs at once, execution timeout, tags (cloud.addRunpod,
 * cloud.updateRunpod — a RunPod card's Edit opens this form). "Test connection" asks /health once
 * with the form's endpoint id and saves nothing. It says what the daily budget means ($0: never).
 * The API key is not asked here: it is set from the CLI (`workers runpod-key`, stored encrypted) or
 * RUNPOD_API_KEY, never through the page.
 */
import { useEffect, useState } from 'react';
import { RUNPOD_EXECUTION_TIMEOUT_S, type RunpodTestView } from '../../../shared/domain.js';
import { errorMessage } from '../../client/client.js';
import { FormError, FormFooter, NumberField, TagsField, TextField } from '../../components/FormParts.js';
import { Modal } from '../../components/Modal.js';
import { useFormSave } from '../../components/use-form-save.js';
import { useApp } from '../../store/app-store.js';
import type { InstanceView } from '../../../shared/domain.js';
import { KindChoice, type WorkstationKind } from './KindChoice.js';
import { parseTagList } from '../../lib/tag-list.js';
import { RunpodTestResult } from './RunpodTestResult.js';
import { budgetWords } from './runpod-words.js';

const FIELDS = {
  endpointId: 'The endpoint id',
  name: 'The name',
  gpuName: 'The GPU',
  vramGb: 'The VRAM',
  pricePerHourUsd: 'The price per hour',
  maxConcurrency: 'Jobs at once',
  executionTimeoutS: 'The execution timeout',
  tags: 'A tag',
};

const ENDPOINT_ID = /^[A-Za-z0-9_-]{1,100}$/;
const ENDPOINT_ID_WORDS = 'The endpoint id is letters, digits, - and _ (RunPod console → Serverless → your endpoint).';

/** The form's own check, before anything is sent; null when it can be sent. */
function problemOf(name: string, endpointId: string, price: number, vram: string, timeout: string): string | null {
  if (!ENDPOINT_ID.test(endpointId)) return ENDPOINT_ID_WORDS;
  if (!name) return 'Give the endpoint a name, e.g. runpod-4090.';
  if (!(price > 0))
    return "Give the price per hour in USD (RunPod console → the endpoint's GPU), so costs and the daily budget mean something.";
  if (vram.trim() !== '' && !(Number(vram) > 0 && Number(vram) <= 1024))
    return "The VRAM is the GPU's memory in GB, e.g. 24 (jobs needing more are not sent), or empty when unknown.";
  if (!(Number.isInteger(Number(timeout)) && Number(timeout) >= 5 && Number(timeout) <= 604_800)) {
    return "The execution timeout is whole seconds from 5 to 604800, the endpoint's own setting (RunPod's default is 600).";
  }
  return null;
}

/** The endpoint being edited (its card), or null to add one; `onKind` only when adding (the kind can change then). */
type Props = {
  endpoint: (InstanceView & { kind: 'runpod' }) | null;
  onKind: ((k: WorkstationKind) => void) | null;
  onClose: () => void;
};

export function RunpodForm({ endpoint, onKind, onClose }: Props) {
  const client = useApp((s) => s.client);
  const notify = useApp((s) => s.notify);
  const [endpointId, setEndpointId] = useState(endpoint?.endpoint.endpointId ?? '');
  const [name, setName] = useState(endpoint?.name ?? '');
  const [price, setPrice] = useState(endpoint ? String(endpoint.endpoint.pricePerHourUsd) : '');
  const [concurrency, setConcurrency] = useState(String(endpoint?.maxConcurrency ?? 1));
  const [tags, setTags] = useState(endpoint?.tags.join(', ') ?? '');
  const [gpu, setGpu] = useState(endpoint?.gpuName ?? '');
  const [vram, setVram] = useState(
    endpoint?.vram ? String(Math.round((endpoint.vram.totalBytes / 1024 ** 3) * 10) / 10) : '',
  );
  const [timeout, setTimeoutS] = useState(String(endpoint?.endpoint.executionTimeoutS ?? RUNPOD_EXECUTION_TIMEOUT_S));
  const { error, setError, busy, save: send } = useFormSave(FIELDS, onClose);
  const [testing, setTesting] = useState(false);
  const [tested, setTested] = useState<RunpodTestView | null>(null);
  const [budget, setBudget] = useState<number | null>(null);

  useEffect(() => {
    let live = true;
    client.call('settings.list', {}).then(
      (rows) => {
        const b = rows.find((r) => r.key === 'burst_budget_usd_per_day');
        if (live && b && typeof b.value === 'number') setBudget(b.value);
      },
      () => undefined, // the general words stand in
    );
    return () => {
      live = false;
    };
  }, [client]);

  const test = async () => {
    if (!ENDPOINT_ID.test(endpointId.trim())) return setError(ENDPOINT_ID_WORDS);
    setError(null);
    setTesting(true);
    setTested(null);
    try {
      setTested(
        await client.call('cloud.testRunpod', {
          endpointId: endpointId.trim(),
          ...(endpoint ? { id: endpoint.id } : {}),
        }),
      );
    } catch (err) {
      setTested({ ok: false, latencyMs: 0, error: errorMessage(err) });
    } finally {
      setTesting(false);
    }
  };

  const save = async () => {
    const pricePerHourUsd = Number(price);
    const problem = problemOf(name.trim(), endpointId.trim(), pricePerHourUsd, vram, timeout);
    if (problem) return setError(problem);
    await send(async () => {
      const fields = {
        name: name.trim(),
        endpointId: endpointId.trim(),
        pricePerHourUsd,
        maxConcurrency: Number(concurrency) || 1,
        tags: parseTagList(tags),
        executionTimeoutS: Number(timeout),
        ...(gpu.trim() ? { gpuName: gpu.trim() } : {}),
        ...(vram.trim() ? { vramGb: Number(vram) } : {}),
      };
      if (endpoint) {
        // An empty GPU or VRAM keeps its stored value; the API base is the farm host's alone.
        const v = await client.call('cloud.updateRunpod', { id: endpoint.id, ...fields });
        notify('success', `${v.name} updated.`);
      } else {
        const v = await client.call('cloud.addRunpod', fields);
        notify(
          'success',
          `${v.name} added; it takes jobs only as cloud burst allows (burst_after_s, the daily budget).`,
        );
      }
    });
  };

  return (
    <Modal
      title={endpoint ? `Edit ${endpoint.name}` : 'Add a workstation'}
      onClose={onClose}
      footer={
        <FormFooter
          test={{
            testing,
            disabled: testing,
            onTest: () => void test(),
            testId: 'runpod-test',
            title: "Ask the endpoint's /health once with the farm's key; nothing is saved",
          }}
          onCancel={onClose}
          onSave={() => void save()}
          disabled={busy}
          testId="runpod-save"
        >
          {endpoint ? 'Save' : 'Add endpoint'}
        </FormFooter>
      }
    >
      <form className="form" onSubmit={(e) => (e.preventDefault(), void save())} data-testid="runpod-form">
        {onKind && <KindChoice kind="runpod" onKind={onKind} />}
        <FormError error={error} testId="runpod-error" />
        {tested && <RunpodTestResult r={tested} />}
        <TextField
          label={
            <>
              Endpoint id <span className="field-hint">(RunPod console → Serverless)</span>
            </>
          }
          value={endpointId}
          onChange={setEndpointId}
          placeholder="abc123xyz"
          data={{ 'data-field': 'endpointId' }}
          autoFocus
        />
        <TextField
          label="Name"
          value={name}
          onChange={setName}
          placeholder="runpod-4090"
          data={{ 'data-field': 'name' }}
        />
        <TextField
          label={
            <>
              GPU <span className="field-hint">(as RunPod names it)</span>
            </>
          }
          value={gpu}
          onChange={setGpu}
          placeholder="RTX 4090"
          data={{ 'data-field': 'gpuName' }}
        />
        <div className="field-row">
          <NumberField
            label="VRAM (GB)"
            title="The GPU's memory: jobs needing more are not sent to this endpoint"
            value={vram}
            onChange={setVram}
            min={1}
            max={1024}
            step={1}
            placeholder="24"
            field="vramGb"
          />
          <NumberField
            label="Price per hour (USD)"
            title="What a GPU-hour of this endpoint costs: the run log's costs and the daily budget"
            value={price}
            onChange={setPrice}
            min={0}
            step={0.01}
            placeholder="1.10"
            field="pricePerHourUsd"
          />
          <NumberField
            label="Jobs at once"
            title="At most the endpoint's max workers"
            value={concurrency}
            onChange={setConcurrency}
            min={1}
            max={64}
            field="maxConcurrency"
          />
          <NumberField
            label="Execution timeout (s)"
            title="The endpoint's own execution timeout (RunPod's default is 600 s): an attempt RunPod never started is retried after it"
            value={timeout}
            onChange={setTimeoutS}
            min={5}
            max={604800}
            step={1}
            field="executionTimeoutS"
          />
        </div>
        <TagsField value={tags} onChange={setTags} placeholder="img2img" />
        <p className="field-hint" data-testid="runpod-budget">
          {budgetWords(budget)}
        </p>
        <p className="field-hint">
          The API key is set from the CLI (<code>shotfarm workers runpod-key</code>, stored encrypted) or
          RUNPOD_API_KEY, never in this page; another API base than RunPod's only on the farm host (
          <code>--api-base</code>).
        </p>
        <button type="submit" hidden />
      </form>
    </Modal>
  );
}
