/**
 * A PostgreSQL store failure as the engine sees it: the server's SQLSTATE when it answered, or
 * "connection" when it could not be reached or went away. Only errors of this class are mapped to
 * storage faults, so a workstation's refused connection (also ECONNREFUSED) is never taken for the
 * database's.
 */

export class PostgresStoreError extends Error {
  /** The SQLSTATE (five characters, e.g. `53100`), or `connection` when there was no answer. */
  readonly code: string;
  /** The server's detail or hint, when it gave one. */
  readonly detail: string | undefined;

  constructor(message: string, code: string, detail?: string) {
    super(message);
    this.name = 'PostgresStoreError';
    this.code = code;
    this.detail = detail;
  }

  /** The connection is gone or never came (also class 08 and the server shutting down). */
  get connectionLost(): boolean {
    return isConnectionCode(this.code);
  }
}

export const CONNECTION = 'connection';

/** SQLSTATEs that mean this connection can no longer be used: a fresh one is needed. */
export function isConnectionCode(code: string): boolean {
  // 08: connection exceptions; 57P01..57P03: the server shuts down, crashed, or is starting up.
  return code === CONNECTION || code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03';
}

/** Serialization failure and deadlock: PostgreSQL rolled the transaction back; running it again may succeed. */
export function isConflictCode(code: string): boolean {
  return code === '40001' || code === '40P01';
}

export type PostgresFaultKind =
  | 'database_unreachable'
  | 'database_busy'
  | 'database_full'
  | 'database_io'
  | 'database_readonly';

/**
 * PostgreSQL's storage faults, the same holds as SQLite's (store/database.ts databaseFault): the farm
 * waits with these words and tries again by itself. Null for anything else — a constraint, a
 * syntax error, a refused password — which waiting does not fix.
 */
export function postgresFault(err: PostgresStoreError): { kind: PostgresFaultKind; words: string } | null {
  const code = err.code;
  if (isConnectionCode(code)) {
    const why =
      code === CONNECTION
        ? err.message
        : code === '57P03'
          ? `the server is starting up (${code})`
          : `the server shut down or dropped the connection (${code})`;
    return { kind: 'database_unreachable', words: `the database is unreachable: ${why}` };
  }
  if (isConflictCode(code)) {
    return {
      kind: 'database_busy',
      words: `the database kept aborting the change as a conflict with another one (${code})`,
    };
  }
  if (code === '53100') return { kind: 'database_full', words: 'the database disk is full' };
  // Out of memory, too many connections, a configured limit: the server's resources, which free up.
  if (code.startsWith('53'))
    return { kind: 'database_busy', words: `the database server is out of resources (${code}: ${err.message})` };
  // A standby, or default_transaction_read_only: writes are refused until the primary takes them.
  if (code === '25006')
    return {
      kind: 'database_readonly',
      words: `the database cannot be written: read-only (${code}, a standby or a read-only server)`,
    };
  // 58: system errors (the server's disk failed a read or a write).
  if (code.startsWith('58'))
    return { kind: 'database_io', words: `the database disk failed a read or a write (${code})` };
  return null;
}
