/**
 * "Free VRAM" on an idle LAN workstation: ComfyUI's `POST /free {unload_models, free_memory}` (protocol
 * §6), then a probe recorded on its card so the VRAM figure shows what was freed. The server applies
 * the flags from its worker thread (at once when idle), so the probe is repeated briefly until the
 * models' share drops. Refused while this farm renders there — ComfyUI would unload the models right
 * after the running prompt, and its next prompt would pay the load again — and for a RunPod endpoint,
 * which has no ComfyUI server of ours to ask.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import { ComfyClient } from '../comfy/client.js';
import { describeFailure, settle } from '../comfy/observation.js';
import { probeInstance, type ProbeResult } from '../health/probe.js';
import { instanceRow, recordProbe } from '../store/instance-store.js';
import { runningJobIds } from '../store/job-store.js';
import type { EngineContext } from './context.js';

/** How long to wait for the worker to apply the flags, and how often to look. */
const SETTLE_MS = 3_000;
const LOOK_EVERY_MS = 250;
const REQUEST_TIMEOUT_MS = 5_000;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const comfyBytes = (p: ProbeResult): number | null => (p.ok && p.vram ? p.vram.comfyBytes : null);

/** Frees and records what the server answered after; the running farm (if any) hears it too. */
export async function freeVram(ctx: EngineContext, id: string): Promise<void> {
  const row = instanceRow(ctx.db, id);
  if (!row) throw new ShotfarmError('not_found', `Workstation ${id} does not exist.`);
  if (row.kind === 'runpod') {
    throw new ShotfarmError(
      'bad_input',
      `Workstation "${row.name}" is a RunPod endpoint: its workers are not ours to free (RunPod stops idle workers by itself).`,
    );
  }
  const running = runningJobIds(ctx.db, id);
  if (running.length) {
    throw new ShotfarmError(
      'conflict',
      `Workstation "${row.name}" is rendering ${running.length} job(s): freeing VRAM now would unload the models its prompt uses. Drain it and free VRAM when it is idle.`,
    );
  }
  const before = await probeInstance(row.url, REQUEST_TIMEOUT_MS);
  if (!before.ok) throw new ShotfarmError('unavailable', `Workstation "${row.name}" did not answer: ${before.error}`);
  if (before.queueRunning > 0) {
    throw new ShotfarmError(
      'conflict',
      `Workstation "${row.name}" is running a prompt someone else queued on its ComfyUI: free VRAM when it is idle.`,
    );
  }
  const sent = await settle(() =>
    new ComfyClient(row.url, { timeoutMs: REQUEST_TIMEOUT_MS }).free({ unloadModels: true, freeMemory: true }),
  );
  if (!sent.ok)
    throw new ShotfarmError(
      'unavailable',
      `Workstation "${row.name}" did not take POST /free: ${describeFailure(sent.failure)}`,
    );
  let after = await probeInstance(row.url, REQUEST_TIMEOUT_MS);
  const was = comfyBytes(before);
  for (
    let waited = 0;
    waited < SETTLE_MS && was !== null && was > 0 && (comfyBytes(after) ?? 0) >= was;
    waited += LOOK_EVERY_MS
  ) {
    await pause(LOOK_EVERY_MS);
    after = await probeInstance(row.url, REQUEST_TIMEOUT_MS);
  }
  recordProbe(ctx.db, id, after, ctx.clock.now());
  ctx.farm()?.instanceProbed(id, after);
}
