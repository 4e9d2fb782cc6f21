/**
 * The instances domain: registering and editing workstations — each change is written, then the
 * running farm (if any) reloads that instance, and the card goes out as an event — a one-off
 * probe of them all (`shotfarm health`), recorded so an import can check VRAM fit without a farm,
 * and a test of a URL before it is saved (nothing recorded).
 */

/** Per-request timeout of a one-off probe when the caller names none. */
const PROBE_TIMEOUT_MS = 2_000;

async function probeAll(ctx: EngineContext, timeoutMs: number): Promise<ProbeReport> {
  // RunPod endpoints have no ComfyUI server to probe (the running farm asks their /health).
  const rows = listInstanceRows(ctx.db).filter((r) => r.admin_state !== 'disabled' && r.kind === 'comfyui');
  const probes = await probeMany(
    rows.map((r) => r.url),
    timeoutMs,
  );
  const instances = rows.map((row, i) => {
    const probe = probes[i] as (typeof probes)[number];
    recordProbe(ctx.db, row.id, probe, ctx.clock.now());
    return {
      id: row.id,
      name: row.name,
      url: row.url,
      adminState: row.admin_state,
      health: healthAfterProbe(row.admin_state, probe),
      probe,
    };
  });
  return { healthy: instances.filter((i) => isHealthy(i.health)).length, instances };
}

import { isHealthy, type InstanceView, type ProbeReport } from '../../../shared/domain.js';
import { ShotfarmError } from '../../../shared/errors.js';
import { testConnection } from '../health/connection-test.js';
import { healthAfterProbe } from '../health/probe.js';
import { probeMany } from '../health/probe-many.js';
import { randomId } from '../ids.js';
import {
  deleteInstance,
  findInstance,
  insertInstance,
  instanceRow,
  listInstanceRows,
  normaliseUrl,
  recordProbe,
  setAdminState,
  toInstanceView,
  updateInstance,
} from '../store/instance-store.js';
import { type DomainHandlers, type EngineContext, instanceChanged } from './context.js';
import { freeVram } from './free-vram.js';
import { addWorkstations } from './instance-batch.js';
import { pinWorkstation } from '../store/lease-store.js';
import { withDrivers } from '../views/farm-engines.js';

export function instanceHandlers(ctx: EngineContext): DomainHandlers<'instances'> {
  const view = (id: string): InstanceView => {
    const r = instanceRow(ctx.db, id);
    if (!r) throw new ShotfarmError('not_found', `Workstation ${id} does not exist.`);
    return toInstanceView(ctx.db, r);
  };
  const resolve = (idOrName: string): string => {
    const r = findInstance(ctx.db, idOrName);
    if (!r) throw new ShotfarmError('not_found', `No workstation named or numbered "${idOrName}".`);
    return r.id;
  };
  const unique = (fields: { name: string; url: string }, selfId: string | null): void => {
    for (const r of listInstanceRows(ctx.db)) {
      if (r.id === selfId) continue;
      if (r.name === fields.name)
        throw new ShotfarmError('conflict', `A workstation is already named "${fields.name}".`);
      if (r.url === normaliseUrl(fields.url))
        throw new ShotfarmError('conflict', `Workstation "${r.name}" already uses ${r.url}.`);
    }
  };
  /** The farm reloads the instance first, so the card sent out is what it now works with. */
  const announce = (id: string): InstanceView => {
    instanceChanged(ctx, id);
    const v = view(id);
    ctx.events.emit('instance.changed', { instance: v });
    return v;
  };
  return {
    'instances.list': async () => {
      // A RunPod endpoint's card carries the running farm's cloud facts (spend, why it waits).
      const cloud = new Map((ctx.farm()?.instanceViews() ?? []).filter((v) => v.cloud).map((v) => [v.id, v]));
      return withDrivers(
        ctx.db,
        listInstanceRows(ctx.db).map((r) => cloud.get(r.id) ?? toInstanceView(ctx.db, r)),
      );
    },
    'instances.pin': async ({ id, engine }) => {
      if (!ctx.db.postgres)
        throw new ShotfarmError(
          'bad_input',
          'Pinning a workstation to an engine is for a farm several engines share on PostgreSQL (docs/postgresql.md); this farm is one SQLite data folder, run by one engine.',
        );
      const instance = resolve(id);
      pinWorkstation(ctx.db, instance, engine);
      // The engines move it at their next lease renewal (a third of lease_s).
      const [card] = withDrivers(ctx.db, [view(instance)]);
      ctx.events.emit('instance.changed', { instance: card as InstanceView });
      return card as InstanceView;
    },
    'instances.add': async (f) => {
      unique(f, null);
      const id = randomId();
      insertInstance(ctx.db, id, f, ctx.clock.now());
      return announce(id);
    },
    'instances.addMany': async (input) => {
      const result = await addWorkstations(ctx, input, input.timeoutMs ?? PROBE_TIMEOUT_MS);
      // The cards go out once probed, so each shows what its server answered.
      for (const i of result.instances) announce(i.id);
      return result;
    },
    'instances.update': async ({ id: ref, ...f }) => {
      const id = resolve(ref);
      // A RunPod endpoint's url is made from its endpoint id: rewriting it here would leave the id the pool uses.
      const row = instanceRow(ctx.db, id);
      if (row?.kind === 'runpod') {
        throw new ShotfarmError(
          'bad_input',
          `Workstation "${row.name}" is a RunPod endpoint: edit it with cloud.updateRunpod (its endpoint id, price, jobs at once, tags), not with a URL.`,
        );
      }
      unique(f, id);
      updateInstance(ctx.db, id, f, ctx.clock.now());
      return announce(id);
    },
    'instances.remove': async ({ id: ref }) => {
      const id = resolve(ref);
      const v = view(id);
      if (v.currentJobIds.length) {
        throw new ShotfarmError(
          'conflict',
          `Workstation "${v.name}" is running ${v.currentJobIds.length} job(s); drain it first and remove it when idle.`,
        );
      }
      const removed = deleteInstance(ctx.db, id);
      instanceChanged(ctx, id);
      ctx.events.emit('instance.removed', { id });
      return { removed };
    },
    'instances.setAdminState': async ({ id: ref, adminState }) => {
      const id = resolve(ref);
      setAdminState(ctx.db, id, adminState, ctx.clock.now());
      return announce(id);
    },
    'instances.freeVram': async ({ id: ref }) => {
      const id = resolve(ref);
      await freeVram(ctx, id);
      const v = view(id);
      ctx.events.emit('instance.changed', { instance: v });
      return v;
    },
    'instances.test': async ({ url, timeoutMs }) => testConnection(normaliseUrl(url), timeoutMs ?? PROBE_TIMEOUT_MS),
    'instances.probeAll': async ({ timeoutMs }) => probeAll(ctx, timeoutMs ?? PROBE_TIMEOUT_MS),
  };
}
