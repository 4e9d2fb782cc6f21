/**
 * Taking our prompt off a server (SPEC §5 timeouts, a cancel, "stop farm"): interrupt it if it is
 * the one running — targeted, never a global interrupt — or delete it from the pending queue, and
 * wait until it has left, at most `interruptWaitMs`. Only while this engine holds the workstation's
 * lease — except for a prompt whose attempt is already over (late-post.ts), which whoever sees it
 * takes off.
 */
import { settle } from '../../comfy/observation.js';
import type { AttemptScope } from './attempt-scope.js';
import { watchExecution } from './prompt-watch.js';

/** How often to look again while the prompt is leaving (an interrupt lands at the next node or step). */
const LOOK_AGAIN_MS = 250;

export async function interruptAndRemove(a: AttemptScope): Promise<void> {
  // Several engines: a prompt another engine now follows is never interrupted from here (a fenced
  // write first; LeaseLost when the workstation's lease moved on).
  if (a.deps.lease) await a.deps.batch.add(() => undefined);
  await takeOffServer(a);
}

/**
 * This attempt's execution (its prompt id AND attempt id) off the server, unfenced: interrupted
 * while it runs (targeted: another attempt's run of the same id is not ours to interrupt), deleted
 * while it waits (ComfyUI deletes by prompt id: every waiting item of that id goes), until it has
 * left or `interruptWaitMs` passed.
 */
export async function takeOffServer(a: AttemptScope): Promise<void> {
  const { clock, config } = a.deps;
  a.interruptRequested = true;
  const until = clock.now() + config.interruptWaitMs;
  while (clock.now() < until) {
    // Not on the attempt's signal: a stopped runner still has to take its prompt off the server.
    const state = await settle(() => watchExecution(a.client, a.exec));
    if (state.ok) {
      const s = state.value;
      if (s.kind === 'finished' || s.kind === 'absent') return;
      if (s.kind === 'running') await settle(() => a.client.interrupt(a.job.id));
      else await settle(() => a.client.deleteFromQueue([a.job.id]));
    }
    await a.sleep(LOOK_AGAIN_MS);
  }
}
