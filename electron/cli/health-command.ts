/**
 * `shotfarm health`: probes every enabled workstation now and prints one line each. Exit 0 when
 * at least one answers (for service probes), 7 when none does or none is registered.
 */
import type { Engine } from '../engine/engine.js';
import { probeInstance } from '../engine/health/probe.js';
import { listInstanceRows, recordProbe } from '../engine/store/instance-store.js';
import type { Io } from './context.js';
import { EXIT } from './exit-codes.js';

const GB = 1024 ** 3;

export async function runHealth(engine: Engine, io: Io, timeoutMs: number, json: boolean): Promise<number> {
  const rows = listInstanceRows(engine.db).filter((r) => r.admin_state !== 'disabled');
  const results = await Promise.all(rows.map(async (r) => ({ row: r, probe: await probeInstance(r.url, timeoutMs) })));
  for (const { row, probe } of results) recordProbe(engine.db, row.id, probe, engine.clock.now());
  const healthy = results.filter((x) => x.probe.ok).length;
  if (json) {
    io.out(JSON.stringify({ healthy, instances: results.map((x) => ({ name: x.row.name, url: x.row.url, ...x.probe })) }, null, 2));
  } else {
    if (rows.length === 0) io.out('No workstations registered. Add one with: shotfarm workers add URL --name NAME');
    for (const { row, probe } of results) {
      if (probe.ok) {
        const vram = probe.vram
          ? `${(probe.vram.totalBytes / GB).toFixed(0)} GB (ComfyUI ${(probe.vram.comfyBytes / GB).toFixed(1)}, other ${(probe.vram.otherBytes / GB).toFixed(1)}, free ${(probe.vram.freeBytes / GB).toFixed(1)})`
          : 'no GPU reported';
        io.out(`ok        ${row.name}  ${row.url}  ${probe.gpuName ?? '?'}  ${vram}  queue ${probe.queueRunning}+${probe.queuePending}  ${probe.latencyMs} ms${row.admin_state === 'draining' ? '  (draining)' : ''}`);
      } else {
        io.out(`unhealthy ${row.name}  ${row.url}  ${probe.error}`);
      }
    }
    io.out(`${healthy} of ${rows.length} workstation(s) healthy.`);
  }
  return healthy > 0 ? EXIT.ok : EXIT.unhealthy;
}
