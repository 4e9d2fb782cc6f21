/**
 * A throwaway PostgreSQL server for tests and benches: `initdb` in a temp folder, `postgres` on a
 * free loopback port (TCP only, trust auth, no Unix socket), stopped and removed on close — and by
 * a guardian process if this one dies first, so a killed test run leaves no server behind.
 *
 * PostgreSQL refuses to run as root; CI runs as root, so there the server runs as the `postgres`
 * user (Debian's package creates it) with the folder given to it. Missing server programs are a
 * failure with a sentence saying how to install them, never a skipped test.
 */
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PostgresCluster {
  /** postgres://shotfarm@127.0.0.1:PORT/DB for a database of this cluster (default `postgres`). */
  url(database?: string): string;
  port: number;
  dataDir: string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): string;
  /** `pg_ctl stop -m <mode>` (the server goes away; `start` brings it back on the same port). */
  stop(mode?: 'smart' | 'fast' | 'immediate'): void;
  start(): void;
  /** Stops the server (if running) and removes its folder. Idempotent. */
  close(): void;
}

export interface ClusterOptions {
  /** fsync and synchronous_commit on, as a real server (benches); off by default (tests: faster, same SQL). */
  durable?: boolean;
}

const SUPERUSER = 'shotfarm';
const TIMEOUT_MS = 60_000;

export const INSTALL_SENTENCE =
  "PostgreSQL's server programs (initdb, pg_ctl, postgres) were not found: the PostgreSQL tests start their own throwaway server. " +
  'Install them — on Debian/Ubuntu `apt-get install -y postgresql`, on macOS `brew install postgresql@16` — ' +
  'or set SHOTFARM_PG_BIN to the folder that holds initdb.';

/** The folder holding initdb/pg_ctl/postgres/psql, or throws INSTALL_SENTENCE. */
export function postgresBinDir(): string {
  const has = (dir: string): boolean => ['initdb', 'pg_ctl', 'postgres', 'psql'].every((p) => existsSync(join(dir, p)));
  const given = process.env.SHOTFARM_PG_BIN;
  if (given) {
    if (has(given)) return given;
    throw new Error(`SHOTFARM_PG_BIN=${given} does not hold initdb, pg_ctl, postgres and psql. ${INSTALL_SENTENCE}`);
  }
  // Debian/Ubuntu keep the server programs off PATH, one folder per major version: the newest wins.
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (has(join(debian, v, 'bin'))) return join(debian, v, 'bin');
  }
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8', timeout: 10_000 });
  const fromConfig = pgConfig.status === 0 ? pgConfig.stdout.trim() : '';
  if (fromConfig && has(fromConfig)) return fromConfig;
  throw new Error(INSTALL_SENTENCE);
}

/** The uid/gid the server runs as: this process's own, or `postgres`'s when this process is root. */
function serverUser(): { uid: number; gid: number } | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const id = (flag: string): number => {
    const r = spawnSync('id', [flag, 'postgres'], { encoding: 'utf8', timeout: 10_000 });
    if (r.status !== 0) {
      throw new Error(
        'PostgreSQL refuses to run as root, and there is no `postgres` user to run it as. ' +
          'Install the server package (`apt-get install -y postgresql` creates the user) or run the tests as another user.',
      );
    }
    return Number(r.stdout.trim());
  };
  return { uid: id('-u'), gid: id('-g') };
}

async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no loopback port');
  return address.port;
}

export async function startPostgresCluster(opts: ClusterOptions = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const user = serverUser();
  // The server's user must reach its folder: under root, /tmp (a TMPDIR in root's home would not do).
  const root = mkdtempSync(join(user && existsSync('/tmp') ? '/tmp' : tmpdir(), 'shotfarm-pg-'));
  const dataDir = join(root, 'data');
  if (user) chownSync(root, user.uid, user.gid);
  const run = (program: string, args: string[], what: string): string => {
    const o: SpawnSyncOptions = {
      encoding: 'utf8',
      timeout: TIMEOUT_MS,
      cwd: root,
      env: { ...process.env, LC_ALL: 'C' },
    };
    if (user) Object.assign(o, user);
    const r = spawnSync(join(bin, program), args, o);
    if (r.status !== 0) {
      const out = `${String(r.stdout ?? '')}${String(r.stderr ?? '')}`.trim().split('\n').slice(-8).join('\n');
      throw new Error(`${what} failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`}):\n${out}`);
    }
    return String(r.stdout ?? '');
  };

  let port = 0;
  let running = false;
  let closed = false;
  const postgresOptions = (): string =>
    [
      `-p ${port}`,
      '-c listen_addresses=127.0.0.1',
      "-c unix_socket_directories=''",
      '-c max_connections=40',
      ...(opts.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
    ].join(' ');
  const start = (): void => {
    run(
      'pg_ctl',
      ['start', '-D', dataDir, '-w', '-t', '30', '-l', join(root, 'server.log'), '-o', postgresOptions()],
      'Starting the test PostgreSQL',
    );
    running = true;
  };
  const stop = (mode: 'smart' | 'fast' | 'immediate' = 'fast'): void => {
    if (!running) return;
    run('pg_ctl', ['stop', '-D', dataDir, '-m', mode, '-w', '-t', '30'], 'Stopping the test PostgreSQL');
    running = false;
  };
  const close = (): void => {
    if (closed) return;
    closed = true;
    try {
      stop('immediate');
    } finally {
      rmSync(root, { recursive: true, force: true });
      process.off('exit', close);
    }
  };

  try {
    run(
      'initdb',
      ['-D', dataDir, '-U', SUPERUSER, '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'],
      'initdb for the test PostgreSQL',
    );
    // A port can be taken between finding it free and the server binding it: one more try then.
    for (let tries = 0; ; tries++) {
      port = await freeLoopbackPort();
      try {
        start();
        break;
      } catch (err) {
        if (tries >= 2) throw err;
      }
    }
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  process.on('exit', close);
  guard(root, dataDir);

  const url = (database = 'postgres'): string => `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`;
  return {
    url,
    port,
    dataDir,
    createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      run(
        'psql',
        ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url(), '-c', `CREATE DATABASE ${name}`],
        `Creating the database ${name}`,
      );
      return url(name);
    },
    stop,
    start,
    close,
  };
}

/**
 * A detached shell that outlives this process only to clean up after it: once this process is gone
 * (killed, crashed), it shuts the server down (SIGQUIT to the postmaster is the immediate mode) and
 * removes the folder. A clean close removes the folder first, and the guardian then just ends.
 */
function guard(root: string, dataDir: string): void {
  const script = `while kill -0 ${process.pid} 2>/dev/null && [ -d "$1" ]; do sleep 1; done
[ -d "$1" ] || exit 0
pid=$(head -n 1 "$2/postmaster.pid" 2>/dev/null) && kill -QUIT "$pid" 2>/dev/null
for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
rm -rf "$1"`;
  const child = spawn('sh', ['-c', script, 'pg-guard', root, dataDir], { detached: true, stdio: 'ignore' });
  child.unref();
}

/** The server's log (for a failing test's message). */
export function serverLog(cluster: PostgresCluster): string {
  try {
    return readFileSync(join(cluster.dataDir, '..', 'server.log'), 'utf8');
  } catch {
    return '';
  }
}
