/**
 * Collecting one output ([J] item 3): a /view of 4, 16 and 50 MB from a loopback server into the
 * take's folder, the way collect.ts does it — streamed to the temp file and hashed (SHA-256),
 * counted and its head kept in the same pass (files/output-file.ts), then fsynced. Beside it, the
 * way it was before: the same download, then the file read back once more to hash it. The gap is
 * the pass the engine no longer makes. Median of N rounds (`--rounds 7`) per size.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ComfyClient } from '../../electron/engine/comfy/client.js';
import { OutputFile } from '../../electron/engine/files/output-file.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { round, summary } from './lib/stats.js';
import { info, numberFlags, type Benchmark, type Figure } from './lib/types.js';

const CHUNK = randomBytes(64 * 1024);

export const collectBench: Benchmark = {
  name: 'collect',
  description: 'one output downloaded and stored: hashed while it streams vs read back to hash',
  async run(args) {
    const { rounds } = numberFlags(args, { rounds: [7, 3] });
    const server = createServer((req, res) => {
      const mb = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('filename')?.split('.')[0]);
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(mb * 1024 * 1024) });
      let left = mb * 16;
      const more = (): void => {
        while (left > 0) {
          left--;
          if (!res.write(CHUNK)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new ComfyClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const tmp = makeTempDir('shotfarm-bench-collect-');
    const download = async (mb: number, path: string): Promise<void> => {
      const file = new OutputFile(path, { fileName: `${mb}.png`, maxBytes: 1024 ** 4 });
      await client.downloadView({ filename: `${mb}.png` }, file, { timeoutMs: 60_000, deadlineMs: 120_000 });
      await file.finish();
    };
    const readBack = async (path: string): Promise<void> => {
      const hash = createHash('sha256');
      for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
      hash.digest('hex');
    };
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    try {
      for (const mb of [4, 16, 50]) {
        const onePass: number[] = [];
        const twoPass: number[] = [];
        for (let i = 0; i < rounds; i++) {
          const a = join(tmp.path, `a${i}.tmp`);
          let t = performance.now();
          await download(mb, a);
          onePass.push(performance.now() - t);
          const b = join(tmp.path, `b${i}.tmp`);
          t = performance.now();
          await download(mb, b);
          await readBack(b);
          twoPass.push(performance.now() - t);
          await Promise.all([rm(a), rm(b)]);
        }
        const one = summary(onePass);
        const two = summary(twoPass);
        args.log(`${mb} MB: one pass p50 ${one.p50} ms, with a read-back p50 ${two.p50} ms`);
        figures.push(
          info(
            `${mb} MB output: stored and hashed as it streams, p50`,
            `${one.p50} ms (${round(mb / (one.p50 / 1000), 1)} MB/s)`,
            one.p50,
          ),
        );
        figures.push(info(`  the same with a read-back to hash (before), p50`, `${two.p50} ms`, two.p50));
        details[`${mb}MB`] = { onePassMs: one, withReadBackMs: two };
      }
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      tmp.cleanup();
    }
    return { figures, details };
  },
};
