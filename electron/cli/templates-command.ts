/** `shotfarm templates add FILE…` / `templates list`: register workflow templates (a changed file is a new version). */
import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { ShotfarmError } from '../../shared/errors.js';
import { printJson, type Io, type Run } from './context.js';
import { formatTable } from './table.js';
import { VRAM_PINS, type TemplateVramView, type VramPin } from '../../shared/vram-need.js';
import { runLength, type TemplateRunTimeView } from '../../shared/template-run-time.js';

export function registerTemplates(program: Command, io: Io, run: Run): void {
  const templates = program.command('templates').description('register and list workflow templates');
  templates
    .command('add')
    .description(
      'register template files (API-format workflow + named parameters); a changed file becomes a new version',
    )
    .argument('<files...>')
    .action((files: string[]) =>
      run(async (e, g) => {
        for (const f of files) {
          const content = await readFile(resolve(f), 'utf8').catch((err: Error) => {
            throw new ShotfarmError('bad_input', `Cannot read ${f}: ${err.message}`);
          });
          const t = await e.call('templates.add', { content, fileName: basename(f) });
          if (g.json) printJson(io, t);
          else
            io.out(
              `Template ${t.name} v${t.version} (${t.stage}, ${t.vramGb} GB, parameters: ${t.parameters.map((p) => `${p.name}=${p.path}`).join(', ')})`,
            );
        }
      }),
    );
  templates
    .command('list')
    .description('list templates (latest versions)')
    .action(() =>
      run(async (e, g) => {
        const rows = await e.call('templates.list', {});
        if (g.json) return printJson(io, rows);
        io.out(
          formatTable(
            ['name', 'version', 'stage', 'vram_gb', 'timeout_s', 'parameters', 'hash'],
            rows.map((t) => [
              t.name,
              t.version,
              t.stage,
              t.vramGb,
              t.timeoutS,
              t.parameters.map((p) => p.name).join(','),
              t.hash.slice(0, 12),
            ]),
          ),
        );
      }),
    );
  registerTemplateVram(templates, io, run);
}

/** Learned run time per GPU model: warm median and p90 from the real start, cold starts apart. */
function printRunTimes(io: Io, r: TemplateRunTimeView): void {
  io.out(
    `Run time of v${r.version} (warm runs from their real start; a median and p90 after ${r.minRuns} runs; cold starts apart):`,
  );
  if (r.gpus.length === 0) return io.out('  no completed run yet');
  io.out(
    formatTable(
      ['gpu', 'runs', 'median', 'p90', 'cold_runs', 'cold_median'],
      r.gpus.map((g) => [
        g.gpu,
        g.runs,
        g.p50Ms === null ? 'not enough runs yet' : runLength(g.p50Ms),
        g.p90Ms === null ? '—' : runLength(g.p90Ms),
        g.coldRuns,
        g.coldMs === null ? '—' : runLength(g.coldMs),
      ]),
    ),
  );
}

/** `templates show NAME` (declared vs learned VRAM and learned run time per GPU model) and `templates pin NAME declared|learned|auto`. */
function registerTemplateVram(templates: Command, io: Io, run: Run): void {
  const print = (v: TemplateVramView): void => {
    const pinned = v.pin === 'auto' ? '' : `, pinned to ${v.pin}`;
    io.out(
      `Template ${v.name} v${v.version}: declared ${v.declaredGb} GB${pinned}; learned after ${v.learnAfter} runs, +${v.marginPct} %`,
    );
    if (v.gpus.length === 0) return io.out('  no run measured yet: admission uses the declared number');
    io.out(
      formatTable(
        ['gpu', 'runs', 'learned_p95_gb', 'max_gb', 'ooms', 'oom_above_gb', 'uses_gb', 'from'],
        v.gpus.map((g) => [
          g.gpu,
          g.samples,
          g.p95Gb ?? '—',
          g.maxGb ?? '—',
          g.ooms,
          g.oomAboveGb ?? '—',
          g.use.gb,
          g.use.source,
        ]),
      ),
    );
  };
  templates
    .command('show')
    .description(
      "a template's declared VRAM beside what the farm learned, and its learned run time, per GPU model, with run counts",
    )
    .argument('<name>')
    .action((name: string) =>
      run(async (e, g) => {
        const v = await e.call('templates.vram', { name });
        const runTimes = await e.call('templates.runTimes', { name });
        if (g.json) return printJson(io, { ...v, runTimes });
        print(v);
        printRunTimes(io, runTimes);
      }),
    );
  templates
    .command('pin')
    .description("pin a template's VRAM to its declared or learned number; auto learns again")
    .argument('<name>')
    .argument('<pin>', `one of ${VRAM_PINS.join(', ')}`)
    .action((name: string, pin: string) =>
      run(async (e, g) => {
        if (!(VRAM_PINS as readonly string[]).includes(pin))
          throw new ShotfarmError('bad_input', `pin must be one of ${VRAM_PINS.join(', ')}; got '${pin}'`);
        const v = await e.call('templates.pinVram', { name, pin: pin as VramPin });
        if (g.json) return printJson(io, v);
        print(v);
      }),
    );
}
