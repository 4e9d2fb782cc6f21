// What ComfyUI's PromptExecutor holds while it executes one queue item: the messages it records
// for history (`status.messages`), per-node progress, the values nodes produced, the UI outputs
// (history `outputs`/`meta`), and the two ways it talks to clients — `add_message` (recorded, sent
// to the submitter or broadcast) and plain sends to the submitting client only.

import type { NodeClass } from './node-catalog.js';
import type { SimValue } from './graph.js';
import { signatures } from './graph.js';
import type { HistoryEntry, QueueItem } from './prompt-queue.js';
import type { Behaviour } from './script.js';
import type { Graph } from './validate.js';
import type { CacheEntry, ExecHost } from './exec-host.js';

export type Message = [string, Record<string, unknown>];

/** Words whose fault must hit a node that really runs, so their prompts ignore the cache. */
const FAULT_WORDS = ['error', 'oom', 'hang', 'drop', 'crash'];

export class PromptRun {
  readonly promptId: string;
  readonly graph: Graph;
  readonly outputs: string[];
  readonly clientId: string | null;
  readonly sigs: Map<string, string>;
  readonly messages: Message[] = [];
  readonly values = new Map<string, SimValue>();
  readonly uiOutputs: Record<string, unknown> = {};
  readonly meta: HistoryEntry['meta'] = {};
  /** Nodes done so far, cached ones included (`executed` of an error/interrupt report). */
  readonly executed: string[] = [];
  private readonly progress = new Map<string, Record<string, unknown>>();
  private readonly faulty: boolean;

  constructor(
    readonly host: ExecHost,
    readonly item: QueueItem,
    readonly behaviour: Behaviour,
  ) {
    const [, promptId, graph, extra, outputs] = item;
    this.promptId = promptId;
    this.graph = graph;
    this.outputs = outputs;
    this.clientId = typeof extra['client_id'] === 'string' ? extra['client_id'] : null;
    this.sigs = signatures(graph);
    this.faulty = FAULT_WORDS.includes(behaviour.kind);
  }

  /** `add_message`: recorded for history; sent to the client, or broadcast only when `broadcast`. */
  addMessage(type: string, data: Record<string, unknown>, broadcast: boolean): void {
    this.messages.push([type, data]);
    if (this.clientId !== null || broadcast) this.host.hub.send({ type, data }, this.clientId);
  }

  /** Frames only the submitting client gets; a prompt without client_id sends none. */
  toClient(type: string, data: Record<string, unknown>): void {
    if (this.clientId !== null) this.host.hub.send({ type, data }, this.clientId);
  }

  /** Progress frames go to the client, or to every socket when the prompt has none (0.3.64). */
  toClientOrAll(type: string, data: Record<string, unknown>): void {
    this.host.hub.send({ type, data }, this.clientId);
  }

  /** Updates one node's progress and sends the whole `progress_state` (every node so far). */
  setProgress(id: string, value: number, max: number, state: string): void {
    this.progress.set(id, {
      value,
      max,
      state,
      node_id: id,
      prompt_id: this.promptId,
      display_node_id: id,
      parent_node_id: null,
      real_node_id: id,
    });
    const nodes = Object.fromEntries([...this.progress].map(([k, v]) => [k, { ...v }]));
    this.toClientOrAll('progress_state', { prompt_id: this.promptId, nodes });
  }

  cached(id: string): CacheEntry | undefined {
    return this.faulty ? undefined : this.host.cache.get(this.sigs.get(id) ?? '');
  }

  /** Cached ancestors are not staged: their cached value feeds the nodes that do run. */
  valueOf(id: string): SimValue | undefined {
    return this.values.get(id) ?? this.cached(id)?.value;
  }

  classOf(id: string): NodeClass {
    return this.host.classes.get(String(this.graph[id]?.class_type))!;
  }

  /** An output node's UI dict, as history `outputs` and `meta` list it. */
  recordUi(id: string, ui: Record<string, unknown>): void {
    this.uiOutputs[id] = ui;
    this.meta[id] = { node_id: id, display_node: id, parent_node: null, real_node_id: id };
  }
}
