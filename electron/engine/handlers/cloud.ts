/**
 * The cloud domain (issue 18): registering and editing a RunPod endpoint as a workstation (its
 * defaults applied in the store, once), the API key (stored encrypted; the answer only says where
 * the key comes from), and today's spend.
 */
import { dirname } from 'node:path';
import type { InstanceView } from '../../../shared/domain.js';
import { ShotfarmError } from '../../../shared/errors.js';
import { RUNPOD_API_BASE } from '../../../shared/domain.js';
import { KEY_WITHHELD, keyMayGoTo } from '../pools/runpod/api-base.js';
import { runpodKey, runpodKeySource, storeRunpodKey } from '../pools/runpod/api-key.js';
import { RunpodClient } from '../pools/runpod/runpod-client.js';
import { testHealth } from '../pools/runpod/runpod-health.js';
import { utcDayStart } from '../pools/runpod/runpod-cost.js';
import { randomId } from '../ids.js';
import { spendSince } from '../store/attempt-store.js';
import {
  findInstance,
  insertRunpodInstance,
  instanceRow,
  listInstanceRows,
  runpodUrl,
  toInstanceView,
  updateRunpodInstance,
} from '../store/instance-store.js';
import { type DomainHandlers, type EngineContext, instanceChanged } from './context.js';

/** "Test connection" waits this long for /health (a cold endpoint still answers /health at once). */
const TEST_TIMEOUT_MS = 10_000;

export function cloudHandlers(ctx: EngineContext): DomainHandlers<'cloud'> {
  const dataDir = dirname(ctx.dbFile);
  /** Names and endpoints are unique among workstations (another than `selfId`). */
  const unique = (name: string, url: string, endpointId: string, selfId: string | null): void => {
    for (const r of listInstanceRows(ctx.db)) {
      if (r.id === selfId) continue;
      if (r.name === name) throw new ShotfarmError('conflict', `A workstation is already named "${name}".`);
      if (r.url === url)
        throw new ShotfarmError('conflict', `Workstation "${r.name}" already uses RunPod endpoint ${endpointId}.`);
    }
  };
  /** The farm reloads the endpoint first, so the card sent out is what it now works with. */
  const announce = (id: string): InstanceView => {
    instanceChanged(ctx, id);
    const row = instanceRow(ctx.db, id);
    if (!row) throw new ShotfarmError('not_found', `Workstation ${id} vanished.`);
    const v: InstanceView =
      ctx
        .farm()
        ?.instanceViews()
        .find((i) => i.id === id) ?? toInstanceView(ctx.db, row);
    ctx.events.emit('instance.changed', { instance: v });
    return v;
  };
  return {
    'cloud.addRunpod': async (f) => {
      // A page's transport refuses apiBase (the method table's field rule): one that reaches here was chosen on the farm host.
      unique(f.name, runpodUrl(f.apiBase, f.endpointId), f.endpointId, null);
      const id = randomId();
      insertRunpodInstance(ctx.db, id, { ...f, apiBaseLocal: f.apiBase !== undefined }, ctx.clock.now());
      return announce(id);
    },
    'cloud.updateRunpod': async ({ id: ref, ...f }) => {
      const row = findInstance(ctx.db, ref);
      if (!row) throw new ShotfarmError('not_found', `No workstation named or numbered "${ref}".`);
      if (row.kind !== 'runpod')
        throw new ShotfarmError(
          'bad_input',
          `Workstation "${row.name}" is a ComfyUI server, not a RunPod endpoint: edit it with instances.update.`,
        );
      unique(f.name, runpodUrl(row.runpod.apiBase, f.endpointId), f.endpointId, row.id);
      updateRunpodInstance(ctx.db, row, f, ctx.clock.now());
      return announce(row.id);
    },
    'cloud.testRunpod': async ({ id, endpointId }) => {
      // The endpoint being edited lends its base (chosen on the farm host, or RunPod's); a new one is tried at RunPod's API.
      const row = id === undefined ? null : findInstance(ctx.db, id);
      if (id !== undefined && row?.kind !== 'runpod')
        throw new ShotfarmError('not_found', `No RunPod endpoint named or numbered "${id}".`);
      const base =
        row?.kind === 'runpod'
          ? { runpod: row.runpod, apiBaseLocal: row.apiBaseLocal }
          : { runpod: { apiBase: RUNPOD_API_BASE }, apiBaseLocal: false };
      const keyGoes = keyMayGoTo(base);
      // Nothing to send: said as it is, not as a refusal by RunPod.
      if (!keyGoes) return { ok: false, latencyMs: 0, error: KEY_WITHHELD };
      if (runpodKey(ctx.db, dataDir, ctx.env) === null)
        return {
          ok: false,
          latencyMs: 0,
          error:
            'no RunPod API key is configured on the farm host: set it with shotfarm workers runpod-key or RUNPOD_API_KEY',
        };
      const client = new RunpodClient({
        apiBase: base.runpod.apiBase,
        endpointId,
        apiKey: () => runpodKey(ctx.db, dataDir, ctx.env),
        timeoutMs: TEST_TIMEOUT_MS,
      });
      return testHealth(client, () => ctx.clock.now());
    },
    'cloud.setApiKey': async ({ apiKey }) => {
      storeRunpodKey(ctx.db, dataDir, apiKey, ctx.clock.now());
      return { keySource: runpodKeySource(ctx.db, dataDir, ctx.env) };
    },
    'cloud.spend': async () => {
      const dayStart = utcDayStart(ctx.clock.now());
      const rows = spendSince(ctx.db, dayStart);
      return {
        dayStart,
        totalUsd: rows.reduce((n, r) => n + r.cost_usd, 0),
        budgetUsdPerDay: ctx.settings.get('burst_budget_usd_per_day'),
        keySource: runpodKeySource(ctx.db, dataDir, ctx.env),
        byProjectEpisode: rows.map((r) => ({
          project: r.project,
          episode: r.episode,
          costUsd: r.cost_usd,
          attempts: r.attempts,
        })),
      };
    },
  };
}
