/**
 * The farm's facts as the store holds them, for a process that runs no farm (the CLI's `jobs why`,
 * `jobs list` and `import`): health and VRAM as the last farm or `shotfarm health` wrote them, what
 * runs where from the jobs table, and the stored node lists. Nothing live: no reservations, and a
 * workstation's health may be as old as its last probe.
 */
import { readFarmState } from '../settings/farm-state.js';
import type { Db } from '../store/database.js';
import type { VramView } from '../../../shared/domain.js';
import { burstWaitOf, jobDispatchableSince } from '../pools/runpod/burst-wait.js';
import { utcDayStart } from '../pools/runpod/runpod-cost.js';
import type { SettingsReader } from '../settings/setting-reader.js';
import { totalSpendSince } from '../store/attempt-store.js';
import { comfyInstanceRows, runpodInstanceRows, type InstanceRow } from '../store/instance-store.js';
import { runningVramGb } from '../store/job-store.js';
import { CapabilityAnswers } from '../scheduler/capability-answers.js';
import { makeFarmFacts, type FarmFacts } from './farm-facts.js';
import { VramKnowledge } from '../templates/vram-knowledge.js';
import { StoredNodeLists } from '../pools/comfy-lan/node-lists.js';
import type { InstanceFacts } from './wait-reasons.js';

/** Per connection: the stored lists (read once per hash) and the answers remembered over them. */
const perDb = new WeakMap<Db, { lists: StoredNodeLists; answers: CapabilityAnswers }>();

export function storedFarmFacts(db: Db, settings: SettingsReader, now: number): FarmFacts {
  let cached = perDb.get(db);
  if (!cached) {
    cached = { lists: new StoredNodeLists(db), answers: new CapabilityAnswers() };
    perDb.set(db, cached);
  }
  const { lists, answers } = cached;
  lists.refresh();
  // The LAN's workstations, as the running farm's registry holds them; the endpoints explain their own wait.
  const rows = comfyInstanceRows(db);
  const instances = rows.map((r) => factsOfRow(db, r, lists.get(r.id) !== null, now));
  const known = rows.map((r) => ({ id: r.id, info: lists.get(r.id), token: lists.hash(r.id) ?? '-' }));
  const farm = readFarmState(db);
  // No farm runs here: the recorded resume is the best known start of dispatching (a farm started since
  // counts from its start; a storage hold is the running farm's own, not stored).
  const burstWait = burstWaitOf({
    endpoints: runpodInstanceRows(db),
    burstAfterS: settings.get('burst_after_s'),
    budgetUsdPerDay: settings.get('burst_budget_usd_per_day'),
    spentTodayUsd: () => totalSpendSince(db, utcDayStart(now)),
    now,
    dispatchingSince: farm.state === 'running' ? (farm.at ?? 0) : null,
    jobSince: (job) => jobDispatchableSince(db, job),
  });
  const learned = new VramKnowledge(db, { now: () => now }, () => ({
    learnAfter: settings.get('vram_learn_after'),
    marginPct: settings.get('vram_learn_margin_pct'),
  }));
  return {
    ...makeFarmFacts('store', instances, known, answers, farm.state, burstWait),
    vram: (t, params) => learned.jobVram(t, params),
  };
}

function factsOfRow(db: Db, r: InstanceRow, hasNodeList: boolean, now: number): InstanceFacts {
  const vram = r.vram_json ? (JSON.parse(r.vram_json) as VramView) : null;
  const running = runningVramGb(db, r.id);
  // A quarantine the store still shows may have run out since; the farm would take it back then.
  const health = r.health === 'quarantined' && (r.quarantined_until ?? 0) <= now ? 'idle' : r.health;
  return {
    id: r.id,
    name: r.name,
    tags: JSON.parse(r.tags_json) as string[],
    maxConcurrency: r.max_concurrency,
    running: running.length,
    runningVramGb: running.reduce((a, b) => a + b, 0),
    largestRunningVramGb: Math.max(0, ...running),
    totalVramBytes: vram?.totalBytes ?? null,
    gpuName: r.gpu_name,
    otherVramBytes: vram?.otherBytes ?? 0,
    serverQueue: r.queue_length ?? 0,
    lastCheckpoint: r.last_checkpoint,
    vramOverrides: JSON.parse(r.vram_overrides_json) as Record<string, number>,
    speed: 0,
    adminState: r.admin_state,
    health,
    capabilityProblems: null,
    nodeListLoaded: hasNodeList,
    reservedFor: null,
    quarantinedUntil: r.quarantined_until,
    lastAnswerAt: r.last_error === null ? r.last_probe_at : null,
    lastError: r.last_error,
  };
}
