/**
 * `shotfarm export-db --out FILE` / `shotfarm import-db FILE [--replace]`: moving a solo database
 * to the studio's farm host. Export is a consistent copy (SQLite's backup) even while the farm
 * runs, never overwriting a file; import replaces this data folder's store with such a copy,
 * migrated — refused while a farm runs here, and when this store has jobs unless --replace. Both
 * name files of this terminal, so they open the database themselves (`here`), never through a
 * running farm's engine.
 *
 * `shotfarm db migrate --to URL [--replace]`: this data folder's SQLite farm copied into a
 * PostgreSQL database, in one transaction, with each table's counts printed. `db export` and
 * `db import` are export-db and import-db under the `db` group.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { printJson, type Io, type Run } from './context.js';
import { UsageError } from './exit-codes.js';
import { formatTable } from './table.js';

export function registerDatabase(program: Command, io: Io, run: Run): void {
  const exportDb = (o: { out: string }) =>
    run(
      async (e, g) => {
        const r = await e.call('db.export', { path: resolve(o.out) });
        if (g.json) return printJson(io, r);
        io.out(
          `Database copied to ${r.path} (${r.bytes} bytes). On the farm host: shotfarm --data DIR import-db ${r.path}`,
        );
      },
      { here: true },
    );
  const importDb = (file: string, o: { replace?: boolean }) =>
    run(
      async (e, g) => {
        const r = await e.call('db.import', { path: resolve(file), replace: o.replace === true });
        if (g.json) return printJson(io, r);
        io.out(`Imported ${r.path}: ${r.jobs} jobs${r.replaced ? ' (the previous jobs were replaced)' : ''}.`);
      },
      { here: true },
    );
  const describeExport = "a consistent copy of this data folder's database (the farm may keep running)";
  const describeImport = "replace this data folder's database with a Shotfarm database file (migrated)";
  program
    .command('export-db')
    .description(describeExport)
    .requiredOption('--out <file>', 'the new file (never overwritten)')
    .action(exportDb);
  program
    .command('import-db <file>')
    .description(describeImport)
    .option('--replace', 'replace a database that already has jobs')
    .action(importDb);

  const db = program.command('db').description("the farm's database: copy, replace, move to PostgreSQL");
  db.command('export')
    .description(describeExport)
    .requiredOption('--out <file>', 'the new file (never overwritten)')
    .action(exportDb);
  db.command('import <file>')
    .description(describeImport)
    .option('--replace', 'replace a database that already has jobs')
    .action(importDb);
  db.command('migrate')
    .description(
      "copy this data folder's SQLite farm into an empty PostgreSQL database (one transaction; stop the farm first)",
    )
    .requiredOption('--to <url>', 'the PostgreSQL database: postgres://USER@HOST:5432/DATABASE')
    .option('--replace', 'replace a farm the database already holds')
    .action((o: { to: string; replace?: boolean }) =>
      run(
        async (e, g) => {
          if (!/^postgres(ql)?:\/\//i.test(o.to)) {
            throw new UsageError(
              `--to takes a PostgreSQL URL (postgres://USER@HOST:5432/DATABASE), not "${o.to.replace(/\/\/[^@/]*@/, '//…@')}"; to copy the farm to a SQLite file, use db export.`,
            );
          }
          const r = await e.call('db.migrate', { to: o.to, replace: o.replace === true });
          if (g.json) return printJson(io, r);
          const rows = r.tables.map((t) => [
            t.table,
            t.source,
            t.destination,
            t.source === t.destination ? 'ok' : 'DIFFERENT',
          ]);
          io.out(formatTable(['table', 'SQLite', 'PostgreSQL', ''], rows));
          const total = r.tables.reduce((a, t) => a + t.source, 0);
          const jobs = r.tables.find((t) => t.table === 'jobs')?.source ?? 0;
          io.out(
            `Moved ${jobs} jobs (${total} rows in ${r.tables.length} tables) in ${(r.ms / 1000).toFixed(1)} s${r.replaced ? ', replacing the farm that was there' : ''}. ` +
              "Run the farm on it with --database URL or SHOTFARM_DATABASE_URL; this data folder's SQLite file is left as it was.",
          );
        },
        { here: true },
      ),
    );
}
