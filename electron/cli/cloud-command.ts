/**
 * `shotfarm workers add-runpod` (a RunPod serverless endpoint running worker-comfyui as a
 * workstation), `shotfarm workers runpod-key` (the API key, stored encrypted; read from stdin so it
 * stays out of the shell history and the process list), and the spend lines of `status`.
 */
import type { Command } from 'commander';
import type { ApiClient } from '../../shared/api.js';
import { decimalOption, list } from './args.js';
import { printJson, type Io, type Run } from './context.js';
import { UsageError } from './exit-codes.js';

export function registerCloudWorkers(workers: Command, io: Io, run: Run): void {
  workers
    .command('add-runpod')
    .description(
      'register a RunPod serverless endpoint (worker-comfyui) as a cloud workstation; it takes jobs only by the burst policy',
    )
    .requiredOption('--name <name>', 'a short name, e.g. runpod-4090')
    .requiredOption('--endpoint <id>', 'the endpoint id (RunPod console → Serverless)')
    .option('--api-base <url>', "RunPod's API (default https://api.runpod.ai/v2); for tests and proxies")
    .option('--gpu <name>', 'the GPU the endpoint runs, e.g. "RTX 4090"')
    .option(
      '--vram <GB>',
      "the GPU's VRAM in GB (jobs needing more are not sent)",
      decimalOption('--vram', { positive: true }, '24'),
    )
    .option(
      '--price-per-hour <USD>',
      'what a GPU-hour of this endpoint costs (for costs and the daily budget)',
      decimalOption('--price-per-hour', { positive: true }, '0.69'),
    )
    .option(
      '--max-concurrency <n>',
      "jobs at once (default 1; at most the endpoint's max workers)",
      decimalOption('--max-concurrency', { integer: true, min: 1 }, '2'),
    )
    .option(
      '--execution-timeout <s>',
      "the endpoint's execution timeout in seconds (default 600, RunPod's default)",
      decimalOption('--execution-timeout', { integer: true, min: 1 }, '600'),
    )
    .option('--tags <tags>', 'capability tags, comma-separated')
    .action((o) =>
      run(async (e, g) => {
        const v = await e.call('cloud.addRunpod', {
          name: o.name,
          endpointId: o.endpoint,
          apiBase: o.apiBase,
          gpuName: o.gpu,
          vramGb: o.vram,
          pricePerHourUsd: o.pricePerHour,
          maxConcurrency: o.maxConcurrency,
          executionTimeoutS: o.executionTimeout,
          tags: o.tags ? list(o.tags) : undefined,
        });
        if (g.json) return printJson(io, v);
        io.out(
          `Added RunPod endpoint ${v.name} (${v.url}). It bursts only by burst_after_s and burst_budget_usd_per_day (shotfarm settings); the key comes from RUNPOD_API_KEY or shotfarm workers runpod-key.`,
        );
      }),
    );
  workers
    .command('runpod-key')
    .description('store the RunPod API key encrypted in the data folder (read from stdin); --clear removes it')
    .option('--clear', 'remove the stored key')
    .action((o) =>
      run(async (e, g) => {
        let apiKey: string | null = null;
        if (!o.clear) {
          const chunks: Buffer[] = [];
          for await (const c of process.stdin) chunks.push(c as Buffer);
          apiKey = Buffer.concat(chunks).toString('utf8').trim();
          if (!apiKey)
            throw new UsageError(
              'workers runpod-key read no key on stdin; pipe it in: printf %s "$KEY" | shotfarm workers runpod-key (or remove the stored key with --clear)',
            );
        }
        const r = await e.call('cloud.setApiKey', { apiKey });
        if (g.json) return printJson(io, r);
        io.out(
          o.clear
            ? `Stored key removed; key source now: ${r.keySource}.`
            : `Key stored encrypted; key source now: ${r.keySource}.`,
        );
      }),
    );
}

/** The spend lines of `status`: today's cloud spend per project/episode against the budget. */
export async function spendLines(e: ApiClient): Promise<string[]> {
  const s = await e.call('cloud.spend', {});
  if (s.totalUsd === 0 && s.byProjectEpisode.length === 0 && s.budgetUsdPerDay === 0) return [];
  const lines = [
    `cloud spend today (UTC): $${s.totalUsd.toFixed(2)} of $${s.budgetUsdPerDay.toFixed(2)}${s.totalUsd >= s.budgetUsdPerDay && s.budgetUsdPerDay > 0 ? " — today's cloud budget is spent" : ''}`,
  ];
  for (const r of s.byProjectEpisode)
    lines.push(`  ${r.project}/${r.episode}: $${r.costUsd.toFixed(2)} (${r.attempts} attempt(s))`);
  return lines;
}
