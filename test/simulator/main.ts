// CLI: a simulated ComfyUI farm on loopback, for benchmarks, the engine in another process, and the
// demo farm. Example:
//   npx tsx test/simulator/main.ts --instances 3 --base-port 8300 --vram 24,24,12 --script ok,oom,hang
// Control each instance over HTTP under /__sim/ (counts, script, fault). Stops on SIGINT/SIGTERM or
// after --max-seconds.

import { parseArgs } from 'node:util';
import { startSimFarm } from './farm.js';
import { parseHistoryDelay, type SimInstanceOptions } from './options.js';
import { parseWord } from './script.js';
import { startRunpodSim } from './runpod/server.js';

const USAGE = `usage: tsx test/simulator/main.ts [--instances N] [--base-port P] [--vram 24,24,12] [--other-vram 0,4,0]
  [--gpu "NVIDIA GeForce RTX 4090"] [--script ok,oom,hang] [--protocol 0.3|new] [--duration-ms 2000]
  [--seed 1] [--history-delay-ms A[,B]] [--checkpoints a.safetensors,b.safetensors]
  [--input-files plate.png=path/to/plate.png,…] [--max-seconds N]
   or: tsx test/simulator/main.ts --runpod --api-key KEY [--endpoint ID] [--port P] [--cold-start-ms 3000] [--workers 1]
  [--execution-timeout-s 600] [--rate-per-second 0] [--script ok,lost,timeout,never,invalid] [--duration-ms 2000] [--max-seconds N]`;

function list(v: string | undefined): string[] {
  return v === undefined
    ? []
    : v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
}

function numbers(v: string | undefined, what: string): number[] {
  return list(v).map((s) => {
    const n = Number(s);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${what}: '${s}' is not a number`);
    return n;
  });
}

/** `--runpod`: one simulated RunPod serverless endpoint (worker-comfyui over the simulated ComfyUI core). */
async function mainRunpod(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== '--runpod'),
    options: {
      port: { type: 'string', default: '0' },
      endpoint: { type: 'string', default: 'sim-endpoint' },
      'api-key': { type: 'string' },
      'cold-start-ms': { type: 'string', default: '3000' },
      workers: { type: 'string', default: '1' },
      'execution-timeout-s': { type: 'string', default: '600' },
      'rate-per-second': { type: 'string', default: '0' },
      script: { type: 'string' },
      'duration-ms': { type: 'string', default: '2000' },
      'max-seconds': { type: 'string' },
    },
  });
  const apiKey = values['api-key'] ?? process.env.RUNPOD_API_KEY;
  if (!apiKey)
    throw new Error('--runpod needs --api-key KEY (or RUNPOD_API_KEY): the key the simulated endpoint accepts');
  const sim = await startRunpodSim({
    port: Number(values.port),
    endpointId: values.endpoint,
    apiKey,
    coldStartMs: Number(values['cold-start-ms']),
    workers: Number(values.workers),
    executionTimeoutMs: Number(values['execution-timeout-s']) * 1000,
    ratePerSecond: Number(values['rate-per-second']),
    script: list(values.script),
    comfy: { duration: { fixedMs: Number(values['duration-ms']) } },
  });
  console.log(
    `SIMULATED RunPod endpoint ${sim.endpointId}  --api-base ${sim.apiBase}  (worker-comfyui over the ComfyUI simulator; not a real cloud)`,
  );
  const stop = (): void => void sim.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (values['max-seconds'] !== undefined) setTimeout(stop, Number(values['max-seconds']) * 1000);
}

async function main(): Promise<void> {
  if (process.argv.includes('--runpod')) return mainRunpod(process.argv.slice(2));
  const { values } = parseArgs({
    options: {
      instances: { type: 'string', default: '1' },
      'base-port': { type: 'string', default: '0' },
      vram: { type: 'string' },
      'other-vram': { type: 'string' },
      gpu: { type: 'string' },
      script: { type: 'string' },
      protocol: { type: 'string', default: '0.3' },
      'duration-ms': { type: 'string' },
      seed: { type: 'string' },
      'history-delay-ms': { type: 'string' },
      checkpoints: { type: 'string' },
      'input-files': { type: 'string' },
      'max-seconds': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const count = Number(values.instances);
  const basePort = Number(values['base-port']);
  if (!Number.isInteger(count) || count < 1) throw new Error('--instances must be a positive integer');
  if (!Number.isInteger(basePort) || basePort < 0 || basePort > 65535)
    throw new Error('--base-port must be a port number');
  if (values.protocol !== '0.3' && values.protocol !== 'new') throw new Error("--protocol must be '0.3' or 'new'");
  const script = list(values.script);
  script.forEach(parseWord); // fail fast on a typo
  const vram = numbers(values.vram, 'vram');
  const other = numbers(values['other-vram'], 'other-vram');
  const durationMs = values['duration-ms'] === undefined ? undefined : Number(values['duration-ms']);
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  const historyDelayMs =
    values['history-delay-ms'] === undefined ? undefined : parseHistoryDelay(values['history-delay-ms']);
  const checkpoints = list(values.checkpoints);
  const inputFiles: Record<string, string> = {};
  for (const pair of list(values['input-files'])) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || eq === pair.length - 1) throw new Error(`--input-files takes NAME=FILE pairs; got '${pair}'`);
    inputFiles[pair.slice(0, eq)] = pair.slice(eq + 1);
  }

  const instances: SimInstanceOptions[] = Array.from({ length: count }, (_, i) => ({
    name: `sim${i}`,
    port: basePort ? basePort + i : 0,
    protocol: values.protocol as '0.3' | 'new',
    ...(values.gpu ? { gpuName: values.gpu } : {}),
    // A short list repeats its last value (e.g. `--vram 24` for every instance).
    ...(vram.length ? { vramTotalGb: vram[Math.min(i, vram.length - 1)] } : {}),
    ...(other.length ? { vramOtherGb: other[Math.min(i, other.length - 1)] } : {}),
    ...(script.length ? { script } : {}),
    ...(checkpoints.length ? { models: { checkpoints, loras: [] } } : {}),
    ...(historyDelayMs !== undefined ? { historyDelayMs } : {}),
    inputFiles,
    duration: {
      ...(durationMs !== undefined ? { fixedMs: durationMs } : {}),
      ...(seed !== undefined ? { seed: seed + i, randomMs: [0, (durationMs ?? 30) / 10] as [number, number] } : {}),
    },
  }));
  const farm = await startSimFarm({ instances });
  for (const [i, inst] of farm.instances.entries()) {
    const o = instances[i]!;
    console.log(
      `${inst.name}  ${inst.url}  ${o.gpuName ?? 'NVIDIA GeForce RTX 4090'}  ${o.vramTotalGb ?? 24} GB VRAM (${o.vramOtherGb ?? 0} GB used by others)  protocol ${o.protocol}`,
    );
  }

  let stopping = false;
  const stop = async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log(`stopping (${why})`);
    await farm.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  if (values['max-seconds'] !== undefined) {
    setTimeout(() => void stop('max-seconds'), Number(values['max-seconds']) * 1000);
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  console.error(USAGE);
  process.exit(2);
});
