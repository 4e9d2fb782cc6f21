/**
 * The cloud domain (issue 18): registering a RunPod endpoint as a workstation, the API key (stored
 * encrypted; the answer only says where the key comes from), and today's spend.
 */
import { dirname } from 'node:path';
import type { InstanceView } from '../../../shared/domain.js';
import { ShotfarmError } from '../../../shared/errors.js';
import { storedNumber } from '../settings/farm-settings.js';
import { normaliseApiBase, RUNPOD_API_BASE } from '../cloud/api-base.js';
import { runpodKeySource, storeRunpodKey } from '../cloud/api-key.js';
import { utcDayStart } from '../cloud/runpod-cost.js';
import { randomId } from '../ids.js';
import { spendSince } from '../store/attempt-store.js';
import { insertRunpodInstance, instanceRow, listInstanceRows, toInstanceView } from '../store/instance-store.js';
import type { DomainHandlers, EngineContext } from './context.js';

/** RunPod's default execution timeout of an endpoint (600 s) when the operator names none. */
const DEFAULT_EXECUTION_TIMEOUT_S = 600;

export function cloudHandlers(ctx: EngineContext): DomainHandlers<'cloud'> {
  const dataDir = dirname(ctx.dbFile);
  return {
    'cloud.addRunpod': async (f) => {
      // A page's transport refuses apiBase (cloud/api-base.ts): one that reaches here was chosen on the farm host.
      const apiBase = normaliseApiBase(f.apiBase ?? RUNPOD_API_BASE);
      const url = `${apiBase}/${f.endpointId}`;
      for (const r of listInstanceRows(ctx.db)) {
        if (r.name === f.name) throw new ShotfarmError('conflict', `A workstation is already named "${f.name}".`);
        if (r.url === url) throw new ShotfarmError('conflict', `Workstation "${r.name}" already uses RunPod endpoint ${f.endpointId}.`);
      }
      const id = randomId();
      insertRunpodInstance(ctx.db, id, {
        name: f.name, endpointId: f.endpointId, apiBase, apiBaseLocal: f.apiBase !== undefined, tags: f.tags ?? [], maxConcurrency: f.maxConcurrency ?? 1, gpuName: f.gpuName ?? null,
        vramGb: f.vramGb ?? null, pricePerHourUsd: f.pricePerHourUsd, executionTimeoutS: f.executionTimeoutS ?? DEFAULT_EXECUTION_TIMEOUT_S,
      }, ctx.clock.now());
      ctx.farm()?.instanceChanged(id);
      const row = instanceRow(ctx.db, id);
      if (!row) throw new ShotfarmError('not_found', `Workstation ${id} vanished.`);
      const v: InstanceView = ctx.farm()?.instanceViews().find((i) => i.id === id) ?? toInstanceView(ctx.db, row);
      ctx.events.emit('instance.changed', { instance: v });
      return v;
    },
    'cloud.setApiKey': async ({ apiKey }) => {
      storeRunpodKey(ctx.db, dataDir, apiKey, ctx.clock.now());
      return { keySource: runpodKeySource(ctx.db, dataDir, process.env) };
    },
    'cloud.spend': async () => {
      const dayStart = utcDayStart(ctx.clock.now());
      const rows = spendSince(ctx.db, dayStart);
      return {
        dayStart,
        totalUsd: rows.reduce((n, r) => n + r.cost_usd, 0),
        budgetUsdPerDay: storedNumber(ctx.db, 'burst_budget_usd_per_day'),
        keySource: runpodKeySource(ctx.db, dataDir, process.env),
        byProjectEpisode: rows.map((r) => ({ project: r.project, episode: r.episode, costUsd: r.cost_usd, attempts: r.attempts })),
      };
    },
  };
}
