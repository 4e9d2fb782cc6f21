/** `shotfarm templates add FILE…` / `templates list`: register workflow templates (a changed file is a new version). */
import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { ShotfarmError } from '../../shared/errors.js';
import { printJson, type Io, type Run } from './context.js';
import { formatTable } from './table.js';

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
}
