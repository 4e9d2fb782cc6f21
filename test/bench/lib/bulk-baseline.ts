/**
 * The import bench's baseline, measured on the engine's own store connection just before the
 * import: `rows` rows as wide as a job row (the 26 columns an import writes, an id primary key and
 * no other index) bulk-inserted into a scratch table in one transaction, in the same chunks the
 * import writes (store/bulk.ts). What this store and this machine, at this moment, take to write
 * that many rows; the import's time is judged as a multiple of it.
 */
import { inChunks, valueRows } from '../../../electron/engine/store/bulk.js';
import type { SqlDb } from '../../../electron/engine/store/sql-db.js';

const TEXT_COLUMNS = 12;
const INT_COLUMNS = 13;

export function bareBulkInsert(db: SqlDb, rows: number): number {
  const cols = [
    'id TEXT PRIMARY KEY',
    ...Array.from({ length: TEXT_COLUMNS }, (_, i) => `t${i} TEXT`),
    ...Array.from({ length: INT_COLUMNS }, (_, i) => `n${i} BIGINT`),
  ];
  const width = cols.length;
  db.exec('DROP TABLE IF EXISTS bench_bulk');
  db.exec(`CREATE TABLE bench_bulk (${cols.join(', ')})`);
  try {
    const items = Array.from({ length: rows }, (_, i) => i);
    const t0 = performance.now();
    db.transaction(() =>
      inChunks(
        items,
        width,
        (n) => `INSERT INTO bench_bulk VALUES ${valueRows(width, n)}`,
        (chunk, sql) => {
          const values: unknown[] = [];
          for (const i of chunk) {
            // A random-looking id, as job ids (UUIDv5) are: the primary key's inserts land all over it.
            values.push(`${((i * 2654435761) >>> 0).toString(16).padStart(8, '0')}-${i}`);
            for (let c = 0; c < TEXT_COLUMNS; c++) values.push(`value ${c} of row ${i}`);
            for (let c = 0; c < INT_COLUMNS; c++) values.push(i + c);
          }
          db.run(sql, values);
        },
      ),
    );
    return performance.now() - t0;
  } finally {
    db.exec('DROP TABLE IF EXISTS bench_bulk');
  }
}
