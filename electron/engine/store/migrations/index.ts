/**
 * The ordered migration chain. Append a new entry for every schema change; never edit or reorder
 * shipped ones (their text is hashed and checked at every open).
 */
import { sql as m0001 } from './0001-initial.js';

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [{ id: 1, name: '0001-initial', sql: m0001 }];
