// Runs one queue item the way ComfyUI 0.3.64's worker does, with the WebSocket order recorded in
// success.json / three_prompts_in_a_row.json:
//   execution_start → execution_cached → the nodes (run-nodes.ts) → execution_success (or
//   execution_error / execution_interrupted, faults.ts),
// then, a moment later (`historyDelayMs`), history is written, then `status`, then
// `executing {node:null}` (comfyui-protocol.md §3 "History timing").

import type { ExecHost, Outcome } from './exec-host.js';
import { reportStop } from './faults.js';
import type { QueueItem } from './prompt-queue.js';
import { PromptRun } from './prompt-run.js';
import { cachedNodes, runNodes } from './run-nodes.js';
import type { Behaviour } from './script.js';

function now(): number {
  return Date.now();
}

export async function executeItem(host: ExecHost, item: QueueItem, behaviour: Behaviour): Promise<Outcome> {
  const run = new PromptRun(host, item, behaviour);
  host.run.clientId = run.clientId;
  host.run.promptId = run.promptId;
  host.run.lastNodeId = null;
  run.addMessage('execution_start', { prompt_id: run.promptId, timestamp: now() }, false);
  run.addMessage('execution_cached', { nodes: cachedNodes(run), prompt_id: run.promptId, timestamp: now() }, false);
  const began = now();
  const outcome = await execute(run);
  // main.py prompt_worker, after every prompt, whatever its outcome.
  host.log.info(`Prompt executed in ${((now() - began) / 1000).toFixed(2)} seconds`);
  pruneCache(run);
  // The worker thread runs task_done a moment after execution_success was queued: meanwhile GET
  // /history misses the entry and GET /queue still lists the prompt running. 0 keeps it in this turn.
  const delay = host.historyDelayMs();
  if (delay > 0) await host.runAfter(delay, run.promptId, () => taskDone(run, outcome));
  else taskDone(run, outcome);
  return outcome;
}

/** `PromptExecutor.execute`: the nodes, then the one message that says how the run ended. */
async function execute(run: PromptRun): Promise<Outcome> {
  try {
    await runNodes(run);
    run.addMessage('execution_success', { prompt_id: run.promptId, timestamp: now() }, false);
    return 'success';
  } catch (e) {
    return reportStop(run, e, now); // rethrows Aborted (crash/close) or a bug: nothing more is sent
  } finally {
    run.host.run.lastNodeId = null;
  }
}

/** The worker after `execute` returns: history first, then the `status` that announces it, then `executing {node:null}`. */
function taskDone(run: PromptRun, outcome: Outcome): void {
  const { host } = run;
  host.queue.finish({
    prompt: run.item,
    outputs: run.uiOutputs,
    status: {
      status_str: outcome === 'success' ? 'success' : 'error',
      completed: outcome === 'success',
      messages: run.messages,
    },
    meta: run.meta,
  });
  host.historyWritten(run.promptId);
  host.hub.send({ type: 'status', data: { status: host.queueInfo() } }, null);
  run.toClient('executing', { node: null, prompt_id: run.promptId });
  host.run.clientId = null;
  host.run.promptId = null;
}

/** Classic cache: only the entries of the prompt just run survive (`clean_unused`). */
function pruneCache(run: PromptRun): void {
  const keep = new Set(run.sigs.values());
  for (const k of [...run.host.cache.keys()]) if (!keep.has(k)) run.host.cache.delete(k);
}
