/**
 * A second engine process for the PostgreSQL store's tests: opens the store, writes a row inside a
 * transaction, says "locked", and keeps the transaction open for `holdMs` before committing.
 *
 *   node --import tsx test/helpers/postgres-lock-holder.ts URL HOLD_MS
 */
import { openPostgresDb } from '../../electron/engine/store/postgres/postgres-db.js';

const [url, holdMs] = process.argv.slice(2);
if (!url || !holdMs) throw new Error('usage: postgres-lock-holder.ts URL HOLD_MS');
const db = openPostgresDb(url);
db.transaction(() => {
  db.run('INSERT INTO t (id) VALUES (?)', 1);
  // Writes to a pipe are synchronous on Linux: the parent reads this while the transaction is open.
  process.stdout.write('locked\n');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(holdMs));
});
db.close();
process.stdout.write('committed\n');
