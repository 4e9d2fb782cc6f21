/**
 * The PostgreSQL bridge's worker thread: owns one `pg` connection, answers the engine thread's
 * requests one at a time (bridge-protocol.ts), and reconnects on the next request after the
 * connection is lost — never inside a transaction (the session check).
 *
 * Only this file imports `pg`: an engine without a database URL never loads it.
 */
import { type MessagePort, workerData } from 'node:worker_threads';
import pg from 'pg';
import type { BridgeAnswer, BridgeRequest, BridgeWorkerData, NoticeMessage } from './bridge-protocol.js';
import { NoticeLink } from './notice-link.js';
import { CONNECTION } from './postgres-error.js';

const data = workerData as BridgeWorkerData & { port: MessagePort; notices: MessagePort };
const flag = new Int32Array(data.flag);

// SQLite hands integers over as numbers; so does this store: COUNT(*) and BIGINT (int8) columns,
// and NUMERIC (SUM over integers) — as a bigint only past 2^53, which no count or time reaches.
pg.types.setTypeParser(20, (v) => {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : BigInt(v);
});
pg.types.setTypeParser(1700, (v) => Number(v));

let client: pg.Client | null = null;
/** The farm lock's own connection, while it holds the lock (farmLock below). */
let lockClient: pg.Client | null = null;
let sessions = 0;
let session = '';

/** `application_name` says which connection it is (the DBA's pg_stat_activity; the tests find the notice one by it). */
function newClient(name = 'shotfarm'): pg.Client {
  return new pg.Client({
    connectionString: data.url,
    connectionTimeoutMillis: data.connectTimeoutMs,
    keepAlive: true,
    application_name: name,
  });
}

async function connection(): Promise<pg.Client> {
  if (client) return client;
  const c = newClient();
  // An idle connection that dies (server stopped, network) reports here: forget it, the next request reconnects.
  const drop = (): void => {
    if (client === c) client = null;
  };
  c.on('error', drop);
  c.on('end', drop);
  try {
    await c.connect();
  } catch (err) {
    c.end().catch(() => undefined);
    throw err;
  }
  client = c;
  sessions++;
  session = `${data.generation}.${sessions}`;
  return c;
}

/** The LISTEN/NOTIFY connection (notice-link.ts): engines on one database hear each other through it. */
const notices = new NoticeLink({
  open: () => newClient('shotfarm-notices'),
  post: (m: NoticeMessage) => data.notices.postMessage(m),
});
if (data.listen !== null) void notices.listen(data.listen);

/**
 * The farm's lock (pg_try_advisory_lock, session-level): held as long as its connection lives. A
 * held lock is checked by a round trip on that connection (a server restart ends the session and
 * so the lock); a lost one is taken again on a fresh connection — or refused, if another engine
 * took it meanwhile.
 */
async function farmLock(key: number, shared: boolean): Promise<boolean> {
  if (lockClient) {
    try {
      await lockClient.query('SELECT 1');
      return true;
    } catch {
      dropLock();
    }
  }
  const c = newClient();
  c.on('error', () => {
    if (lockClient === c) lockClient = null;
  });
  c.on('end', () => {
    if (lockClient === c) lockClient = null;
  });
  try {
    await c.connect();
    const r = await c.query<{ held: boolean }>(
      shared ? 'SELECT pg_try_advisory_lock_shared($1) AS held' : 'SELECT pg_try_advisory_lock($1) AS held',
      [key],
    );
    if (r.rows[0]?.held === true) {
      lockClient = c;
      return true;
    }
  } catch (err) {
    c.end().catch(() => undefined);
    throw err;
  }
  await c.end().catch(() => undefined);
  return false;
}

function dropLock(): void {
  const c = lockClient;
  lockClient = null;
  c?.end().catch(() => undefined);
}

/** Runs on the transaction's own connection, or fails as a lost connection when that one is gone. */
async function pinned(want: string | null): Promise<pg.Client> {
  if (want === null) return connection();
  if (client && session === want) return client;
  throw Object.assign(new Error('the connection was lost during this transaction (it was rolled back)'), {
    lost: true,
  });
}

async function handle(req: BridgeRequest): Promise<BridgeAnswer> {
  switch (req.op) {
    case 'query': {
      const c = await pinned(req.session);
      // pg prepares a named statement once per connection and reuses it.
      // An empty name is PostgreSQL's unnamed statement (a cursor's DECLARE: prepared for one use).
      const r = await c.query(
        req.name ? { name: req.name, text: req.text, values: req.values } : { text: req.text, values: req.values },
      );
      return { ok: true, rows: r.rows as Record<string, unknown>[], rowCount: r.rowCount ?? 0, session };
    }
    case 'exec': {
      const c = await pinned(req.session);
      const r = await c.query(req.text);
      const last = Array.isArray(r) ? r[r.length - 1] : r;
      return {
        ok: true,
        rows: (last?.rows ?? []) as Record<string, unknown>[],
        rowCount: last?.rowCount ?? 0,
        session,
      };
    }
    case 'begin': {
      const c = await connection();
      await c.query(req.text);
      return { ok: true, rows: [], rowCount: 0, session };
    }
    case 'end': {
      if (!client || session !== req.session) {
        // The connection went away with the transaction: a rollback is done; a commit is not.
        if (req.text === 'ROLLBACK') return { ok: true, rows: [], rowCount: 0, session };
        throw Object.assign(new Error('the connection was lost before the commit (the transaction was rolled back)'), {
          lost: true,
        });
      }
      await client.query(req.text);
      return { ok: true, rows: [], rowCount: 0, session };
    }
    case 'ping':
      return { ok: true, rows: [], rowCount: 0, session };
    case 'farmLock':
      return { ok: true, rows: [{ held: await farmLock(req.key, req.shared === true) }], rowCount: 1, session };
    case 'farmUnlock':
      dropLock();
      return { ok: true, rows: [], rowCount: 0, session };
    case 'listen':
      return { ok: true, rows: [{ listening: await notices.listen(req.channel) }], rowCount: 1, session };
    case 'notify':
      // Never reached: a notify is handled as it arrives (below), without an answer.
      return { ok: true, rows: [], rowCount: 0, session };
    case 'close': {
      await notices.close();
      dropLock();
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
      return { ok: true, rows: [], rowCount: 0, session };
    }
  }
}

/** A failure as the engine thread gets it: the SQLSTATE when the server answered, else "connection". */
function failure(err: unknown): BridgeAnswer {
  const e = err as { message?: unknown; code?: unknown; detail?: unknown; hint?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const sqlstate =
    err instanceof pg.DatabaseError && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : null;
  const code = sqlstate ?? CONNECTION;
  // Anything but the server's own answer means this connection is unusable (reset, timeout, protocol).
  if (code === CONNECTION || code.startsWith('08') || code.startsWith('57P')) {
    const c = client;
    client = null;
    c?.end().catch(() => undefined);
  }
  const detail = [e.detail, e.hint].filter((x): x is string => typeof x === 'string').join(' ');
  return { ok: false, message, code, ...(detail ? { detail } : {}) };
}

function answer(a: BridgeAnswer): void {
  try {
    data.port.postMessage(a);
  } catch (err) {
    // A value the thread boundary cannot carry: say so instead of leaving the engine waiting.
    data.port.postMessage({
      ok: false,
      message: `the answer could not be passed back: ${(err as Error).message}`,
      code: 'XX000',
    } satisfies BridgeAnswer);
  }
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

data.port.on('message', (req: BridgeRequest) => {
  if (req.op === 'notify') return notices.notify(req.channel, req.payload);
  handle(req).then(answer, (err: unknown) => answer(failure(err)));
});
