// The simulated worker-comfyui handler (runpod-workers/worker-comfyui handler.py, as
// docs/runpod-protocol.md describes it): upload the input images to its ComfyUI, queue the
// workflow, wait for its history, fetch every non-temp output image through /view and answer them
// base64-encoded. Its ComfyUI is a real simulated ComfyUI instance, so outputs are real PNGs.

import type { SimInstance } from '../instance.js';

export type WorkerAnswer =
  | { ok: true; output: { images: { filename: string; type: 'base64'; data: string }[] } }
  | { ok: false; error: string };

interface HistoryEntry {
  outputs?: Record<string, { images?: { filename: string; subfolder?: string; type?: string }[] }>;
  status?: { status_str?: string; messages?: [string, Record<string, unknown>][] } | null;
}

export async function runWorkerJob(comfy: SimInstance, input: unknown, signal: AbortSignal): Promise<WorkerAnswer> {
  const i = input as { workflow?: unknown; images?: { name?: unknown; image?: unknown }[] } | null;
  if (!i || typeof i !== 'object') return { ok: false, error: 'Please provide input' };
  if (!i.workflow || typeof i.workflow !== 'object') return { ok: false, error: "Missing 'workflow' parameter" };
  if (
    i.images !== undefined &&
    (!Array.isArray(i.images) || !i.images.every((x) => typeof x.name === 'string' && typeof x.image === 'string'))
  ) {
    return { ok: false, error: "'images' must be a list of objects with 'name' and 'image' keys" };
  }
  for (const img of i.images ?? []) {
    const form = new FormData();
    form.append('image', new Blob([Buffer.from(String(img.image), 'base64')]), String(img.name));
    form.append('overwrite', 'true');
    const up = await fetch(`${comfy.url}/upload/image`, { method: 'POST', body: form, signal });
    if (!up.ok) return { ok: false, error: `Failed to upload one or more input images` };
  }
  const posted = await fetch(`${comfy.url}/prompt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: i.workflow, client_id: 'worker-comfyui' }),
    signal,
  });
  const body = (await posted.json()) as {
    prompt_id?: string;
    error?: { message?: string; type?: string };
    node_errors?: Record<string, unknown>;
  };
  if (posted.status === 400) {
    const details = Object.entries(body.node_errors ?? {})
      .map(([id, e]) => `• Node ${id}: ${JSON.stringify(e).slice(0, 200)}`)
      .join('\n');
    return {
      ok: false,
      error: `Workflow validation failed: ${body.error?.message ?? ''}${details ? `:\n${details}` : ''}`,
    };
  }
  if (!posted.ok || !body.prompt_id) return { ok: false, error: `Error queuing workflow: HTTP ${posted.status}` };
  let entry: HistoryEntry | undefined;
  for (;;) {
    const h = await fetch(`${comfy.url}/history/${body.prompt_id}`, { signal });
    const all = (await h.json()) as Record<string, HistoryEntry>;
    entry = all[body.prompt_id];
    if (entry?.status?.status_str === 'success' || entry?.status?.status_str === 'error') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  if (entry.status?.status_str === 'error') {
    const err = entry.status.messages?.find((m) => m[0] === 'execution_error')?.[1] ?? {};
    return {
      ok: false,
      error: `Workflow execution error: Node Type: ${String(err['node_type'])}, Node ID: ${String(err['node_id'])}, Message: ${String(err['exception_message'])}`,
    };
  }
  const images: { filename: string; type: 'base64'; data: string }[] = [];
  for (const node of Object.values(entry.outputs ?? {})) {
    for (const im of node.images ?? []) {
      if (im.type === 'temp') continue;
      const q = new URLSearchParams({
        filename: im.filename,
        subfolder: im.subfolder ?? '',
        type: im.type ?? 'output',
      });
      const v = await fetch(`${comfy.url}/view?${q}`, { signal });
      if (!v.ok) return { ok: false, error: `Failed to fetch image data for ${im.filename} from /view endpoint.` };
      images.push({
        filename: im.filename,
        type: 'base64',
        data: Buffer.from(await v.arrayBuffer()).toString('base64'),
      });
    }
  }
  return { ok: true, output: { images } };
}
