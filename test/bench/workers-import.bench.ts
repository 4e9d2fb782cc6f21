/**
 * Registering a studio's farm in one go: `shotfarm workers import FILE` of 200 simulated ComfyUI
 * servers (a CSV of URLs and tags, names from hosts), through the CLI as an operator runs it —
 * parse, one transaction, every server probed (32 at a time). Target: ≤ 10 s with all probed.
 * The simulators run in a child process so the CLI's time is its own.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../electron/cli/main.js';
import { startRemoteFarm } from './lib/remote-farm.js';
import { info, le, numberFlags, type Benchmark } from './lib/types.js';

export const workersImportBench: Benchmark = {
  name: 'workers-import',
  description: 'workers import of 200 workstations (one transaction, all probed)',
  async run(args) {
    const { count } = numberFlags(args, { count: [200, 50] });
    const farm = await startRemoteFarm(Array.from({ length: count }, (_, i) => ({ name: `g${i}` })));
    const dir = mkdtempSync(join(tmpdir(), 'shotfarm-bench-workers-'));
    try {
      const file = join(dir, 'farm.csv');
      writeFileSync(file, ['url,tags', ...farm.urls.map((u) => `${u},img2img`)].join('\n'));
      const out: string[] = [];
      const err: string[] = [];
      const t0 = performance.now();
      const code = await main(['--data', dir, '--json', 'workers', 'import', file], {
        out: (l) => void out.push(l),
        err: (l) => void err.push(l),
      });
      const seconds = (performance.now() - t0) / 1000;
      if (code !== 0) throw new Error(`workers import exited ${code}: ${err.join('\n').slice(0, 400)}`);
      const r = JSON.parse(out.join('\n')) as { added: number; healthy: number };
      args.log(`${r.added} added, ${r.healthy} answered, in ${seconds.toFixed(2)} s`);
      if (r.added !== count || r.healthy !== count)
        throw new Error(`added ${r.added}, probed healthy ${r.healthy} of ${count}`);
      return {
        figures: [
          le(`workers import of ${count} workstations, all probed`, seconds, 10, 's'),
          info('  answered as ComfyUI', `${r.healthy} of ${r.added}`, r.healthy),
        ],
        details: { count, seconds, added: r.added, healthy: r.healthy },
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await farm.close();
    }
  },
};
