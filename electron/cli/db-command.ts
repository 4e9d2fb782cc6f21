/**
 * `shotfarm export-db --out FILE` / `shotfarm import-db FILE [--replace]`: moving a solo database
 * to the studio's farm host. Export is a consistent copy (SQLite's backup) even while the farm
 * runs, never overwriting a file; import replaces this data folder's store with such a copy,
 * migrated — refused while a farm runs here, and when this store has jobs unless --replace. Both
 * name files of this terminal, so they open the database themselves (`here`), never through a
 * running farm's engine.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { printJson, type Io, type Run } from './context.js';

export function registerDatabase(program: Command, io: Io, run: Run): void {
  program
    .command('export-db')
    .description("a consistent copy of this data folder's database (the farm may keep running)")
    .requiredOption('--out <file>', 'the new file (never overwritten)')
    .action((o: { out: string }) =>
      run(
        async (e, g) => {
          const r = await e.call('db.export', { path: resolve(o.out) });
          if (g.json) return printJson(io, r);
          io.out(
            `Database copied to ${r.path} (${r.bytes} bytes). On the farm host: shotfarm --data DIR import-db ${r.path}`,
          );
        },
        { here: true },
      ),
    );
  program
    .command('import-db <file>')
    .description("replace this data folder's database with a Shotfarm database file (migrated)")
    .option('--replace', 'replace a database that already has jobs')
    .action((file: string, o: { replace?: boolean }) =>
      run(
        async (e, g) => {
          const r = await e.call('db.import', { path: resolve(file), replace: o.replace === true });
          if (g.json) return printJson(io, r);
          io.out(`Imported ${r.path}: ${r.jobs} jobs${r.replaced ? ' (the previous jobs were replaced)' : ''}.`);
        },
        { here: true },
      ),
    );
}
