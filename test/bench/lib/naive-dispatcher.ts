/**
 * The baseline: how studios drive ComfyUI today with a render-farm manager's polling loop or a
 * script — every `pollMs`, ask each server's /queue; an empty one gets the next prompt. No store,
 * no WebSocket, no retries (a fair lower bound on what such a loop costs: it only ever loses time
 * to the poll interval). Plain fetch on loopback.
 */
import { randomUUID } from 'node:crypto';
import { sleep } from './stats.js';

export interface NaivePrompt {
  promptId: string;
  prompt: Record<string, unknown>;
}

export async function runNaive(
  urls: string[],
  prompts: NaivePrompt[],
  pollMs: number,
  deadlineMs: number,
): Promise<{ posted: number; polls: number; finished: boolean }> {
  const todo = [...prompts];
  const clientId = randomUUID();
  let polls = 0;
  let posted = 0;
  const deadline = Date.now() + deadlineMs;
  const busy = new Set<number>();
  for (;;) {
    const states = await Promise.all(
      urls.map(async (url) => {
        const r = await fetch(`${url}/queue`);
        const q = (await r.json()) as { queue_running: unknown[]; queue_pending: unknown[] };
        return q.queue_running.length + q.queue_pending.length;
      }),
    );
    polls++;
    for (const [i, n] of states.entries()) {
      if (n > 0) busy.add(i);
      else busy.delete(i);
    }
    if (todo.length === 0 && busy.size === 0) return { posted, polls, finished: true };
    if (Date.now() > deadline) return { posted, polls, finished: false };
    await Promise.all(
      urls.map(async (url, i) => {
        if (busy.has(i)) return;
        const next = todo.shift();
        if (!next) return;
        const r = await fetch(`${url}/prompt`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: next.prompt, prompt_id: next.promptId, client_id: clientId }),
        });
        await r.arrayBuffer();
        if (r.ok) posted++;
      }),
    );
    await sleep(pollMs);
  }
}
