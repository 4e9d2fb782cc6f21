/**
 * Timestamps on the simulator side, without touching the simulator's code: the bench wraps three
 * seams of a running instance — POST /prompt arrival (`core.postPrompt`), the execution messages
 * it sends (`core.hub.send`: execution_start / _success / _error / _interrupted) and model loads
 * (`core.vram.load`) — and listens on its read-only taps (`core.onHistoryWritten`,
 * `core.onRequestInWindow`). Times
 * are absolute (timeOrigin + performance.now()) so the engine's process can compare its own.
 */
import type { SimInstance } from '../../simulator/index.js';
import type { SimInstanceImpl } from '../../simulator/instance.js';
import { absNow } from './stats.js';

/**
 * P = POST arrived (s: HTTP status, 0 = 500 page), S = execution start, E = execution end (o: outcome),
 * H = history entry written (a moment after E: `historyDelayMs`), W = a request (`path`) answered
 * between E and H (it saw the prompt still running), L = checkpoint load, D = a waiting prompt
 * deleted from the queue (POST /queue {delete}: displaced, or withdrawn; it never starts).
 */
export interface SimEvent {
  k: 'P' | 'S' | 'E' | 'H' | 'W' | 'L' | 'D';
  /** Instance index. */
  i: number;
  t: number;
  id: string;
  s?: number;
  o?: 'success' | 'error' | 'interrupted';
  path?: string;
}

export class SimEventLog {
  events: SimEvent[] = [];
  enabled = true;

  push(e: SimEvent): void {
    if (this.enabled) this.events.push(e);
  }

  take(clear: boolean): SimEvent[] {
    const out = this.events;
    if (clear) this.events = [];
    return out;
  }
}

export function instrumentSim(sim: SimInstance, index: number, log: SimEventLog): void {
  const core = (sim as unknown as SimInstanceImpl).core;
  const post = core.postPrompt.bind(core);
  core.postPrompt = (body: unknown) => {
    const t = absNow();
    const answer = post(body);
    const id =
      typeof body === 'object' && body !== null ? String((body as Record<string, unknown>)['prompt_id'] ?? '') : '';
    log.push({ k: 'P', i: index, t, id, s: answer.kind === '500' ? 0 : answer.status });
    return answer;
  };
  const send = core.hub.send.bind(core.hub);
  core.hub.send = (msg, clientId) => {
    const type = msg.type;
    if (
      type === 'execution_start' ||
      type === 'execution_success' ||
      type === 'execution_error' ||
      type === 'execution_interrupted'
    ) {
      const id = String(msg.data['prompt_id'] ?? '');
      if (type === 'execution_start') log.push({ k: 'S', i: index, t: absNow(), id });
      else
        log.push({
          k: 'E',
          i: index,
          t: absNow(),
          id,
          o: type === 'execution_success' ? 'success' : type === 'execution_error' ? 'error' : 'interrupted',
        });
    }
    send(msg, clientId);
  };
  const del = core.deletePending.bind(core);
  core.deletePending = (ids: string[]) => {
    const waiting = () => core.queue.pending.map((item) => item[1]);
    const before = waiting();
    del(ids);
    const after = waiting();
    for (const id of new Set(ids)) {
      const gone = before.filter((x) => x === id).length - after.filter((x) => x === id).length;
      for (let n = 0; n < gone; n++) log.push({ k: 'D', i: index, t: absNow(), id });
    }
  };
  core.onHistoryWritten = (id) => log.push({ k: 'H', i: index, t: absNow(), id });
  core.onRequestInWindow = (id, path) => log.push({ k: 'W', i: index, t: absNow(), id, path });
  const load = core.vram.load.bind(core.vram);
  core.vram.load = (ckpt: string) => {
    log.push({ k: 'L', i: index, t: absNow(), id: ckpt });
    load(ckpt);
  };
}

/** Per-instance event lists in time order. */
export function byInstance(events: readonly SimEvent[]): Map<number, SimEvent[]> {
  const m = new Map<number, SimEvent[]>();
  for (const e of events) {
    let l = m.get(e.i);
    if (!l) m.set(e.i, (l = []));
    l.push(e);
  }
  for (const l of m.values()) l.sort((a, b) => a.t - b.t);
  return m;
}

/** One execution on one instance: start, end, outcome, and whether it loaded a checkpoint. */
export interface Execution {
  i: number;
  id: string;
  start: number;
  end: number;
  outcome: 'success' | 'error' | 'interrupted';
  loads: number;
}

export function executions(events: readonly SimEvent[]): Execution[] {
  const out: Execution[] = [];
  for (const [i, list] of byInstance(events)) {
    let cur: { id: string; start: number; loads: number } | null = null;
    for (const e of list) {
      if (e.k === 'S') cur = { id: e.id, start: e.t, loads: 0 };
      else if (e.k === 'L' && cur) cur.loads++;
      else if (e.k === 'E' && cur && e.id === cur.id) {
        out.push({ i, id: cur.id, start: cur.start, end: e.t, outcome: e.o as Execution['outcome'], loads: cur.loads });
        cur = null;
      }
    }
  }
  return out;
}

/**
 * For every `from` event on an instance, the time until the next `to` event on that same instance
 * (only when that one came before `horizon`); a `from` with no `to` after it counts nothing.
 */
export function gapsBetween(
  events: readonly SimEvent[],
  from: SimEvent['k'],
  to: SimEvent['k'],
  horizon = Number.POSITIVE_INFINITY,
): number[] {
  const gaps: number[] = [];
  for (const list of byInstance(events).values()) {
    let fromAt: number | null = null;
    for (const e of list) {
      if (e.k === from) fromAt = e.t;
      else if (e.k === to && fromAt !== null) {
        if (e.t <= horizon) gaps.push(e.t - fromAt);
        fromAt = null;
      }
    }
  }
  return gaps;
}

/**
 * Dispatch reaction: for every execution end on an instance, the time until the next POST /prompt
 * arrives at that same instance (only when that POST came before `horizon`, i.e. while work was queued).
 */
export function reactionGaps(events: readonly SimEvent[], horizon = Number.POSITIVE_INFINITY): number[] {
  return gapsBetween(events, 'E', 'P', horizon);
}
