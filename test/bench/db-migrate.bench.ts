/**
 * `shotfarm db migrate --to`: a SQLite farm of 10k jobs with their history (attempts, events,
 * ledger rows, shots) moved into an empty PostgreSQL database on loopback (fsync on, as a real
 * server), through the CLI as a person runs it. Reports the whole command's time and the rate.
 */
import { runCli } from '../helpers/cli.js';
import { farmWithHistory } from '../helpers/farm-with-history.js';
import { startPostgresCluster } from '../helpers/postgres-cluster.js';
import { type Benchmark, info, le, numberFlags } from './lib/types.js';

export const dbMigrateBench: Benchmark = {
  name: 'db-migrate',
  description: 'db migrate --to: a 10k-job SQLite farm with its history into PostgreSQL on loopback',
  async run(args) {
    const { jobs } = numberFlags(args, { jobs: [10_000, 2_000] });
    const cluster = await startPostgresCluster({ durable: true });
    const farm = await farmWithHistory(jobs);
    try {
      await farm.engine.close();
      const url = cluster.createDatabase('bench_migrate');
      const t0 = performance.now();
      const r = await runCli(farm.dir, 'db', 'migrate', '--to', url);
      const s = (performance.now() - t0) / 1000;
      if (r.code !== 0) throw new Error(`db migrate exited ${r.code}: ${r.err}`);
      const rows = Number(/\((\d+) rows in/.exec(r.out)?.[1] ?? 0);
      args.log(r.out.split('\n').at(-1) ?? '');
      return {
        figures: [
          le(`db migrate ${jobs / 1000}k jobs with history`, s * (10_000 / jobs), 10, 's'),
          info('  rows / s', `${Math.round(rows / s)} (${rows} rows)`),
          info('  jobs / s', `${Math.round(jobs / s)}`),
        ],
        details: { jobs, rows, seconds: s },
      };
    } finally {
      await farm.close();
      cluster.close();
    }
  },
};
