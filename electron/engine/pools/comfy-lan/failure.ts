/**
 * Failure classification (SPEC §5) as a pure function: an observation of what happened to an
 * attempt in, a class and a reason an operator can act on out. Workstations report; only this
 * decides what a report means (conventions §4).
 */
import type { ComfyFailure } from '../../comfy/observation.js';
import { describeFailure } from '../../comfy/observation.js';
import { missingNodeClassType, type NodeErrors, type PromptError } from '../../comfy/responses.js';
import { messageText } from './error-detail.js';

export type AttemptObservation =
  /** POST /prompt answered 400: validation failed, nothing was queued. */
  | { kind: 'rejected'; error: PromptError; nodeErrors: NodeErrors }
  /** Pre-dispatch: no workstation has what the workflow needs, or an input file is missing. */
  | { kind: 'unrunnable'; problems: string[] }
  | {
      kind: 'execution_error';
      nodeId: string | null;
      nodeType: string | null;
      exceptionType: string;
      exceptionMessage: string;
      traceback?: string | null;
    }
  /** `execution_interrupted`: `requested` when Shotfarm asked for it (cancel, timeout, stop farm). */
  | { kind: 'interrupted'; requested: boolean; nodeId: string | null; nodeType: string | null }
  /** An HTTP exchange failed: 5xx, refused, reset, timeout, malformed body. */
  | { kind: 'transport'; route: string; failure: ComfyFailure }
  | { kind: 'timeout'; which: 'absolute' | 'stall'; seconds: number }
  /** The instance stopped answering for longer than the grace time during the attempt. */
  | { kind: 'lost'; seconds: number }
  /** The prompt is in neither the server's queue nor its history (the server restarted). */
  | { kind: 'vanished' }
  /** POST /prompt was answered with another prompt id than ours: the server ignores client ids (foreign-prompt.ts). */
  | { kind: 'foreign_prompt_id'; sent: string; got: string }
  /** Outputs could not be downloaded or stored. */
  | { kind: 'collect_failed'; detail: string; diskFull: boolean }
  /** An output is larger than the farm takes (output_max_gb): rendering it again would make it again. */
  | { kind: 'output_too_large'; detail: string };

import type { Classification } from '../attempt/verdict.js';

const OOM_TYPES = new Set(['torch.OutOfMemoryError', 'torch.cuda.OutOfMemoryError', 'OutOfMemoryError']);
const OOM_TEXT = [
  /This error means you ran out of memory on your GPU/i,
  /CUDA out of memory/i,
  /Allocation on device \d+ would exceed allowed memory/i,
  /HIP out of memory/i,
  /MPS backend out of memory/i,
];

/** GPU out-of-memory, per ComfyUI's own `is_oom` (protocol §11). Host-RAM exhaustion is not. */
export function isOutOfMemory(exceptionType: string, message: string): boolean {
  if (OOM_TYPES.has(exceptionType)) return true;
  if (/DefaultCPUAllocator/i.test(message)) return false;
  if (exceptionType === 'torch.AcceleratorError' && /out of memory/i.test(message)) return true;
  return OOM_TEXT.some((re) => re.test(message));
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? '').trim().slice(0, 300);
}

function where(nodeType: string | null, nodeId: string | null): string {
  if (nodeType && nodeId) return `${nodeType} (node ${nodeId})`;
  if (nodeType) return nodeType;
  if (nodeId) return `node ${nodeId}`;
  return 'an unknown node';
}

/** Summarises a 400's node errors: "LoraLoader (node 10): Value not in list: lora_name: …". */
function describeRejection(
  error: PromptError,
  nodeErrors: NodeErrors,
): { text: string; nodeId: string | null; nodeType: string | null } {
  const missing = missingNodeClassType(error);
  if (missing) {
    const id =
      typeof error.extraInfo['node_id'] === 'string'
        ? (error.extraInfo['node_id'] as string)
        : (/#(\S+)'/.exec(error.details)?.[1] ?? null);
    return { text: `node \`${missing}\` is not installed on the workstation`, nodeId: id, nodeType: missing };
  }
  const entries = Object.entries(nodeErrors ?? {});
  if (entries.length) {
    const [id, ne] = entries[0] as [string, { class_type?: string; errors?: { message?: string; details?: string }[] }];
    const errs = (ne.errors ?? []).map((e) => [e.message, e.details].filter(Boolean).join(': ')).join('; ');
    const more = entries.length > 1 ? ` (and ${entries.length - 1} more node(s))` : '';
    return {
      text: `ComfyUI rejected the workflow: ${where(ne.class_type ?? null, id)}: ${errs || error.message}${more}`,
      nodeId: id,
      nodeType: ne.class_type ?? null,
    };
  }
  const details = error.details ? ` (${firstLine(error.details)})` : '';
  return { text: `ComfyUI rejected the workflow: ${error.message}${details}`, nodeId: null, nodeType: null };
}

export function classify(o: AttemptObservation, instanceName: string): Classification {
  const base = { nodeId: null, nodeType: null, exceptionType: null, instanceLevel: false };
  switch (o.kind) {
    case 'rejected': {
      const r = describeRejection(o.error, o.nodeErrors);
      return {
        ...base,
        errorClass: 'permanent',
        reason: r.text.replace('on the workstation', `on ${instanceName}`),
        nodeId: r.nodeId,
        nodeType: r.nodeType,
      };
    }
    case 'unrunnable':
      return { ...base, errorClass: 'permanent', reason: o.problems.join('; ') };
    case 'execution_error': {
      const at = where(o.nodeType, o.nodeId);
      // What ComfyUI said, kept with the attempt for the drawer (bounded: error-detail.ts).
      const node = {
        nodeId: o.nodeId,
        nodeType: o.nodeType,
        exceptionType: o.exceptionType,
        exceptionMessage: messageText(o.exceptionMessage),
        traceback: o.traceback ?? null,
      };
      if (isOutOfMemory(o.exceptionType, o.exceptionMessage)) {
        return { ...base, ...node, errorClass: 'oom', reason: `out of GPU memory in ${at} on ${instanceName}` };
      }
      return {
        ...base,
        ...node,
        errorClass: 'permanent',
        reason: `${at} failed: ${o.exceptionType}: ${firstLine(o.exceptionMessage)}`,
      };
    }
    case 'interrupted':
      return {
        ...base,
        nodeId: o.nodeId,
        nodeType: o.nodeType,
        errorClass: 'transient',
        reason: o.requested
          ? 'interrupted by Shotfarm'
          : `interrupted on ${instanceName} by someone else (Cancel pressed in the ComfyUI page?)`,
      };
    case 'transport': {
      const f = o.failure;
      const what =
        f.kind === 'http'
          ? `answered ${o.route} with HTTP ${f.status}`
          : f.kind === 'malformed'
            ? `answered ${o.route} with something ComfyUI does not send (${f.detail})`
            : `did not answer ${o.route}: ${describeFailure(f)}`;
      return { ...base, errorClass: 'transient', instanceLevel: true, reason: `${instanceName} ${what}` };
    }
    case 'timeout':
      return {
        ...base,
        errorClass: 'timeout',
        instanceLevel: false,
        reason:
          o.which === 'absolute'
            ? `did not finish within its ${o.seconds} s timeout`
            : `no progress for ${o.seconds} s (stall timeout)`,
      };
    case 'lost':
      return {
        ...base,
        errorClass: 'transient',
        instanceLevel: true,
        reason: `lost contact with ${instanceName} for ${o.seconds} s`,
      };
    case 'vanished':
      return {
        ...base,
        errorClass: 'transient',
        instanceLevel: true,
        reason: `the prompt disappeared from ${instanceName} (the server restarted?)`,
      };
    case 'foreign_prompt_id':
      return {
        ...base,
        errorClass: 'transient',
        instanceLevel: true,
        unfit: true,
        reason:
          `${instanceName} answered with prompt id ${o.got.slice(0, 40)} instead of the one Shotfarm sent (${o.sent}): ` +
          `this ComfyUI ignores the client's prompt_id, so its runs cannot be followed or collected — update ComfyUI on ${instanceName}; ` +
          'it takes no new work meanwhile (quarantined), and the job is retried elsewhere',
      };
    case 'output_too_large':
      return { ...base, errorClass: 'permanent', reason: `${o.detail}; not stored` };
    case 'collect_failed':
      return {
        ...base,
        errorClass: 'transient',
        instanceLevel: false,
        reason: o.diskFull
          ? `outputs could not be stored: ${o.detail}`
          : `outputs could not be downloaded: ${o.detail}`,
      };
  }
}
