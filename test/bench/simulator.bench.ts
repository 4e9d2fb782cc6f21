/**
 * The simulator's own capacity (issue [B]): 16 instances in one process (a child process, so the
 * load-generating client here does not share its CPU), zero-work prompts posted
 * as fast as they finish (a few in flight per instance), every prompt followed on its WebSocket.
 * It counts prompts per second and checks that every prompt's messages came in the recorded order
 * (execution_start … execution_success, then status, then executing {node: null}).
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { startRemoteFarm } from './lib/remote-farm.js';
import { ge, info, type Benchmark } from './lib/types.js';

const GRAPH = {
  '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '9': { class_type: 'PreviewImage', inputs: { images: ['2', 0] } },
};

/** The order one successful run must show for its own prompt id. */
const EXPECTED = ['execution_start', 'execution_cached', 'execution_success', 'executing:null'];

export const simulatorBench: Benchmark = {
  name: 'simulator',
  description: '16 simulated instances in one process: zero-work prompts per second, messages in order',
  async run({ quick, log }) {
    const instances = 16;
    const seconds = quick ? 3 : 10;
    const inFlight = 4;
    const farm = await startRemoteFarm(
      Array.from({ length: instances }, (_, i) => ({ name: `sim-${i}`, duration: { fixedMs: 0 } })),
    );
    let done = 0;
    let outOfOrder = 0;
    const seen = new Map<string, string[]>();
    try {
      const stopAt = Date.now() + seconds * 1000;
      await Promise.all(
        farm.urls.map(async (url, i) => {
          const sim = { url };
          const clientId = `bench-${i}`;
          const ws = new WebSocket(`${sim.url.replace('http', 'ws')}/ws?clientId=${clientId}`);
          await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
          let waiting: (() => void) | null = null;
          let active = 0;
          ws.on('message', (raw, binary) => {
            if (binary) return;
            const m = JSON.parse(String(raw)) as { type: string; data: { prompt_id?: string; node?: string | null } };
            const id = m.data?.prompt_id;
            if (!id || !seen.has(id)) return;
            const list = seen.get(id) as string[];
            if (['execution_start', 'execution_cached', 'execution_success'].includes(m.type)) list.push(m.type);
            if (m.type === 'executing' && m.data.node === null) {
              list.push('executing:null');
              if (list.join() !== EXPECTED.join()) outOfOrder++;
              seen.delete(id);
              done++;
              active--;
              waiting?.();
            }
          });
          const post = async (): Promise<void> => {
            const id = randomUUID();
            seen.set(id, []);
            active++;
            const prompt = structuredClone(GRAPH);
            prompt['1'].inputs.color = Math.floor(Math.random() * 0xffffff); // defeat the node cache: every prompt runs
            const res = await fetch(`${sim.url}/prompt`, {
              method: 'POST',
              body: JSON.stringify({ prompt, prompt_id: id, client_id: clientId }),
            });
            await res.text();
          };
          while (Date.now() < stopAt) {
            while (active < inFlight) await post();
            await new Promise<void>((resolve) => (waiting = resolve));
          }
          ws.close();
        }),
      );
    } finally {
      await farm.close();
    }
    const rate = done / seconds;
    log(`${done} prompts in ${seconds} s on ${instances} instances`);
    return {
      figures: [
        ge('zero-work prompts per second, 16 instances in one process', rate, 500, '/s', 0),
        info('  prompts whose messages came out of the recorded order', `${outOfOrder} of ${done}`),
      ],
      details: { instances, seconds, done, outOfOrder, rate },
    };
  },
};
