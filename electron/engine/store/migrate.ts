/**
 * Applies the migration chain, each migration in its own transaction, and records its SHA-256.
 * Refuses to open a database whose recorded migrations were edited, or that was written by a
 * newer Shotfarm — both would mean running on a schema the code does not know.
 *
 * One schema history on both stores: PostgreSQL applies each migration in its dialect
 * (postgres/schema-dialect.ts) and records the hash of the same (SQLite) text, so an edit to a
 * migration is refused on either.
 */
import { createHash } from 'node:crypto';
import { ShotfarmError } from '../../../shared/errors.js';
import type { Clock } from '../clock.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import { postgresMigrationSql } from './postgres/schema-dialect.js';
import type { SqlDb } from './sql-db.js';
import { all, run } from './statements.js';

export function migrationHash(m: Migration): string {
  return createHash('sha256').update(m.sql).digest('hex');
}

interface AppliedRow {
  id: number;
  name: string;
  sha256: string;
}

export function migrate(db: SqlDb, clock: Clock, chain: readonly Migration[] = MIGRATIONS): number {
  const integer = db.dialect === 'postgres' ? 'BIGINT' : 'INTEGER';
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id ${integer} PRIMARY KEY, name TEXT NOT NULL, sha256 TEXT NOT NULL, applied_at ${integer} NOT NULL)`);
  const applied = all<AppliedRow>(db, 'SELECT id, name, sha256 FROM schema_migrations ORDER BY id');
  const known = new Map(chain.map((m) => [m.id, m]));

  for (const row of applied) {
    const m = known.get(row.id);
    if (!m) {
      throw new ShotfarmError(
        'storage',
        `This database was written by a newer Shotfarm (migration ${row.name} is unknown to this version). Update Shotfarm or open another data folder.`,
      );
    }
    const hash = migrationHash(m);
    if (hash !== row.sha256) {
      throw new ShotfarmError(
        'storage',
        `Migration ${m.name} was edited after it was applied to this database (recorded ${row.sha256.slice(0, 12)}…, now ${hash.slice(0, 12)}…). Restore the original migration file; schema changes go in a new migration.`,
      );
    }
  }

  const done = new Set(applied.map((r) => r.id));
  let count = 0;
  for (const m of chain) {
    if (done.has(m.id)) continue;
    db.transaction(() => {
      db.exec(db.dialect === 'postgres' ? postgresMigrationSql(m) : m.sql);
      run(
        db,
        'INSERT INTO schema_migrations (id, name, sha256, applied_at) VALUES (?, ?, ?, ?)',
        m.id,
        m.name,
        migrationHash(m),
        clock.now(),
      );
    });
    count++;
  }
  return count;
}
