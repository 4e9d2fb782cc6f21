/** `shotfarm export runlog|ledger`: the run log (one row per attempt) or the asset ledger as CSV. */
import { Command } from 'commander';
import { resolve } from 'node:path';
import { exportFileName } from '../../shared/exports.js';
import { parseTime } from './args.js';
import { printJson, type Io, type Run } from './context.js';

export function registerExport(program: Command, io: Io, run: Run): void {
  program
    .command('export')
    .description('write the run log (one row per attempt) or the asset ledger as CSV')
    .addArgument(new Command().createArgument('<kind>', 'runlog or ledger').choices(['runlog', 'ledger']))
    .option('--out <file>', 'CSV file to write, never replaced (default: shotfarm-<kind>-<date>_<time>.csv here)')
    .option('--from <time>', 'only from this time (ISO date or date-time)')
    .option('--to <time>', 'only before this time')
    .option('--project <name>')
    .option('--episode <name>')
    .option('--outcome <outcome>', 'runlog: completed, failed, retry, timeout, lost, cancelled, requeued, running')
    .action((kind: 'runlog' | 'ledger', o) =>
      run(async (e, g) => {
        const path = resolve(o.out ?? exportFileName(kind, new Date()));
        const result = await e.call(kind === 'runlog' ? 'export.runlog' : 'export.ledger', {
          path,
          from: o.from ? parseTime(o.from, '--from') : undefined,
          to: o.to ? parseTime(o.to, '--to') : undefined,
          project: o.project,
          episode: o.episode,
          outcome: o.outcome,
        });
        if (g.json) return printJson(io, result);
        io.out(`Wrote ${result.rows} row(s), ${result.bytes} bytes, to ${result.path}`);
      }),
    );
}
