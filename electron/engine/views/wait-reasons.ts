/**
 * Why a queued job is not running, per workstation (pure: the dispatcher and the CLI feed it what
 * they know). Each workstation gets the first reason it cannot take the job now, and each reason
 * says how long it lasts: `now` (the farm changes by itself — a slot frees, a server comes back),
 * `operator` (someone must enable or un-drain it), `never` (the hardware or its nodes do not offer
 * what the job needs). A job whose every workstation says operator or never cannot progress by
 * itself: `shotfarm run --until-idle` stops waiting for it.
 */
import type { InstanceAdminState, InstanceHealth, WaitKind, WaitLasting } from '../../../shared/domain.js';
import {
  reservationHolds,
  usableVramGb,
  vramNeedGb,
  type InstanceSnapshot,
  type JobSnapshot,
  type Reservation,
} from '../scheduler/policy.js';

export type { WaitKind, WaitLasting } from '../../../shared/domain.js';

const GB = 1024 ** 3;

export interface InstanceWait {
  instanceId: string;
  name: string;
  kind: WaitKind;
  lasting: WaitLasting;
  /** For the operator, without the workstation's name: "lacks tag img2img". */
  text: string;
}

/** What is known of one workstation when a job's wait is explained. */
export interface InstanceFacts extends Omit<InstanceSnapshot, 'totalVramBytes'> {
  adminState: InstanceAdminState;
  health: InstanceHealth;
  /** Last known total VRAM (from this run's probes, else the stored card); null if never answered. */
  totalVramBytes: number | null;
  /** null while no node list is known (live or stored); otherwise the problems that keep it from this job ([] = none). */
  capabilityProblems: readonly string[] | null;
  /** Its live node list is loaded in this run: it may be sent work (a stored list only says what it could run). */
  nodeListLoaded: boolean;
  reservedFor: Reservation | null;
  quarantinedUntil: number | null;
  /** When it last answered a probe (ms), for "offline since". */
  lastAnswerAt: number | null;
  /** What its last failed probe said ("/system_stats reports no GPU …"), for "unhealthy: why". */
  lastError?: string | null;
  /**
   * Several engines on one PostgreSQL farm: the other engine driving it ("studio-02 · 91ab03c2"),
   * whose prompts fill its slots; null or absent when this engine drives it (or none does now).
   */
  drivenBy?: string | null;
}

const LASTING: Record<WaitKind, WaitLasting> = {
  disabled: 'operator',
  draining: 'operator',
  missing_tag: 'never',
  vram_total: 'never',
  capability: 'never',
  unknown: 'now',
  unhealthy: 'now',
  offline: 'now',
  quarantined: 'now',
  node_list_unknown: 'now',
  vram_other: 'now',
  reserved: 'now',
  busy: 'now',
};

/** Reasons that end by themselves when a render finishes: the workstation is up, its slot is taken. */
const FREES_UP: ReadonlySet<WaitKind> = new Set(['busy', 'reserved']);

const gb = (bytes: number): string => `${Math.round((bytes / GB) * 10) / 10} GB`;

/** A time of day for the operator ("14:03:12", local time), as the engine words it. */
export function hhmmss(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}

function wait(inst: InstanceFacts, kind: WaitKind, text: string): InstanceWait {
  // A slot taken by another engine's prompts: which engine, so nobody looks for them in this one.
  const by = inst.drivenBy && FREES_UP.has(kind) ? ` (${drivenWords(inst.drivenBy)})` : '';
  return { instanceId: inst.id, name: inst.name, kind, lasting: LASTING[kind], text: `${text}${by}` };
}

/** "driven by engine studio-02 · 91ab03c2": the other engine a workstation is driven by. */
export function drivenWords(engine: string): string {
  return `driven by engine ${engine}`;
}

/**
 * The first reason this workstation cannot take the job now, or null when it can. Lasting
 * reasons are looked at first, so a workstation that is offline *and* lacks the tag says the
 * tag: coming back would not help.
 */
export function instanceWaitReason(job: JobSnapshot, inst: InstanceFacts): InstanceWait | null {
  const missing = job.tags.filter((t) => !inst.tags.includes(t));
  if (missing.length) return wait(inst, 'missing_tag', `lacks tag ${missing.join(', ')}`);
  const need = vramNeedGb(job, inst);
  if (inst.totalVramBytes !== null && inst.totalVramBytes / GB < need) {
    return wait(inst, 'vram_total', `has ${gb(inst.totalVramBytes)} of VRAM in all; the job needs ${need} GB`);
  }
  if (inst.capabilityProblems?.length) return wait(inst, 'capability', inst.capabilityProblems.slice(0, 2).join('; '));
  if (inst.adminState === 'disabled') return wait(inst, 'disabled', 'is disabled');
  if (inst.adminState === 'draining') return wait(inst, 'draining', 'is draining (takes no new work)');
  if (inst.health === 'quarantined' && inst.quarantinedUntil !== null) {
    return wait(inst, 'quarantined', `is quarantined until ${hhmmss(inst.quarantinedUntil)} after failures in a row`);
  }
  if (inst.health === 'offline' || inst.health === 'unhealthy') {
    const since = inst.lastAnswerAt !== null ? ` (last answer ${hhmmss(inst.lastAnswerAt)})` : '';
    const why =
      inst.health === 'offline' ? 'is offline' : inst.lastError ? `is unhealthy: ${inst.lastError}` : 'does not answer';
    return wait(inst, inst.health, `${why}${since}`);
  }
  if (inst.health === 'unknown' || inst.totalVramBytes === null)
    return wait(inst, 'unknown', 'has not answered a probe yet');
  if (!inst.nodeListLoaded) return wait(inst, 'node_list_unknown', 'has not sent its node list yet');
  const usable = usableVramGb({ ...inst, totalVramBytes: inst.totalVramBytes });
  if (usable < need) {
    return wait(
      inst,
      'vram_other',
      `other processes hold ${gb(inst.otherVramBytes)} of VRAM; ${Math.floor(usable * 10) / 10} GB usable, ${need} GB needed`,
    );
  }
  if (reservationHolds(inst.reservedFor, job)) {
    return wait(
      inst,
      'reserved',
      `is kept free for job ${inst.reservedFor?.jobId.slice(0, 8)}, which is too large for the slots that free up`,
    );
  }
  if (inst.running >= inst.maxConcurrency)
    return wait(
      inst,
      'busy',
      `is busy (${inst.running} of ${inst.maxConcurrency} slot${inst.maxConcurrency > 1 ? 's' : ''} in use)`,
    );
  if (usable - inst.runningVramGb < need)
    return wait(
      inst,
      'busy',
      `is busy: ${Math.floor((usable - inst.runningVramGb) * 10) / 10} GB free beside what runs there`,
    );
  return null;
}

export interface JobWait {
  /** Every workstation's reason; empty when none is registered. */
  perInstance: InstanceWait[];
  /** Some workstation could take the job now (a dispatch is due). */
  dispatchable: boolean;
  /** How long the wait lasts at best: `now` if any workstation may change by itself. */
  lasting: WaitLasting;
  /** One sentence for the operator, the same for every job waiting for the same thing. */
  summary: string;
}

/** The whole farm's answer for one job. */
export function explainWait(job: JobSnapshot, instances: readonly InstanceFacts[]): JobWait {
  const perInstance: InstanceWait[] = [];
  let dispatchable = false;
  for (const inst of instances) {
    const w = instanceWaitReason(job, inst);
    if (w) perInstance.push(w);
    else dispatchable = true;
  }
  if (instances.length === 0)
    return { perInstance, dispatchable, lasting: 'operator', summary: 'no workstation is registered' };
  if (dispatchable) return { perInstance, dispatchable, lasting: 'now', summary: 'a workstation can take it now' };
  const lasting: WaitLasting = perInstance.some((w) => w.lasting === 'now')
    ? 'now'
    : perInstance.some((w) => w.lasting === 'operator')
      ? 'operator'
      : 'never';
  return { perInstance, dispatchable, lasting, summary: summarise(job, perInstance, instances) };
}

function summarise(job: JobSnapshot, waits: readonly InstanceWait[], instances: readonly InstanceFacts[]): string {
  const kinds = new Set(waits.map((w) => w.kind));
  if (kinds.size === 1) {
    const kind = waits[0]?.kind;
    if (kind === 'missing_tag') {
      const tags = [...new Set(job.tags.filter((t) => instances.every((i) => !i.tags.includes(t))))];
      if (tags.length) return `needs tag ${tags.join(', ')}, which no workstation has`;
    }
    if (kind === 'vram_total') {
      const largest = Math.max(...instances.map((i) => i.totalVramBytes ?? 0));
      return `needs ${job.vramGb} GB of VRAM; the largest workstation has ${gb(largest)}`;
    }
    if (kind === 'capability' && new Set(waits.map((w) => w.text)).size === 1)
      return `${waits[0]?.text} on any workstation`;
    if (kind === 'busy') return 'every workstation that can take it is busy';
  }
  // What it waits for first: the reasons that pass by themselves, then those an operator can lift.
  // Among the passing ones a busy (or kept-free) workstation comes first — a slot there frees up
  // on its own — before one that does not answer: on a studio queue every row's cell shows only
  // the start of this sentence, and "gpu-12 is offline" there read as if the job waited on gpu-12.
  const rank: Record<WaitLasting, number> = { now: 0, operator: 2, never: 3 };
  const order = (w: InstanceWait) => rank[w.lasting] + (w.lasting === 'now' && !FREES_UP.has(w.kind) ? 1 : 0);
  const shown = [...waits]
    .sort((a, b) => order(a) - order(b))
    .slice(0, 3)
    .map((w) => `${w.name} ${w.text}`);
  return `${shown.join('; ')}${waits.length > 3 ? `; and ${waits.length - 3} more` : ''}`;
}
