/**
 * A simulator farm in its own process (the engine gets the other core to itself, as it would with
 * real workstations). Driven by IPC from the bench: `start` → urls, `events`, `counts`, `requests`, `script`,
 * `fault`, `close`. Loopback only. Exits when the parent goes away.
 */
import { startSimInstance, type SimInstance, type SimInstanceOptions } from '../../simulator/index.js';
import { instrumentSim, SimEventLog } from './sim-events.js';

type Msg =
  | { op: 'start'; instances: SimInstanceOptions[] }
  | { op: 'events'; clear: boolean; rid: number }
  | { op: 'counts'; rid: number }
  | { op: 'requests'; rid: number }
  | { op: 'script'; index: number; words: string[]; rid: number }
  | { op: 'fault'; index: number; fault: 'restart' | 'crash'; rid: number }
  | { op: 'cpu'; rid: number }
  | { op: 'close'; rid: number };

const log = new SimEventLog();
let sims: SimInstance[] = [];

function reply(rid: number, body: unknown): void {
  process.send?.({ rid, body });
}

process.on('disconnect', () => process.exit(0));
process.on('message', (raw) => {
  const m = raw as Msg;
  void (async () => {
    switch (m.op) {
      case 'start': {
        sims = await Promise.all(m.instances.map((o) => startSimInstance({ port: 0, ...o })));
        for (const [i, s] of sims.entries()) instrumentSim(s, i, log);
        process.send?.({ rid: 0, body: sims.map((s) => s.url) });
        return;
      }
      case 'events':
        return reply(m.rid, log.take(m.clear));
      case 'cpu':
        return reply(m.rid, process.cpuUsage());
      case 'counts':
        return reply(
          m.rid,
          sims.map((s) => s.allCounts()),
        );
      case 'requests':
        return reply(
          m.rid,
          sims.map((s) => s.requestCounts()),
        );
      case 'script':
        sims[m.index]?.setScript(m.words);
        return reply(m.rid, true);
      case 'fault':
        if (m.fault === 'restart') await sims[m.index]?.restart();
        else await sims[m.index]?.crash();
        return reply(m.rid, true);
      case 'close':
        await Promise.all(sims.map((s) => s.close().catch(() => undefined)));
        reply(m.rid, true);
        setTimeout(() => process.exit(0), 50);
        return;
    }
  })().catch((e: unknown) => {
    process.stderr.write(`sim-child: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  });
});
