/**
 * Many rows per statement (an import's 100k jobs, their events, their shots): one statement a row
 * costs a round trip each on PostgreSQL (the synchronous bridge) and a call each on SQLite. Rows go
 * in chunks of a few fixed sizes, so each statement's text is one of a few — prepared once per
 * connection, never one text per import — and every chunk stays far inside PostgreSQL's 65,535
 * parameters per statement and SQLite's 32,766.
 */

/** Chunk sizes, largest first: a list of n rows is ⌊n/256⌋ statements of 256, then of 16, then single rows. */
const SIZES = [256, 16, 1] as const;

/** The most parameters one statement of this module may carry (PostgreSQL's limit is 65,535). */
const MAX_PARAMS = 16_384;

/** `(?, ?, ?), (?, ?, ?)`: `rows` groups of `columns` positional parameters. */
export function valueRows(columns: number, rows: number): string {
  const one = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
  return Array.from({ length: rows }, () => one).join(', ');
}

/** `?, ?, ?`: a list of `n` positional parameters (an IN list). */
export function paramList(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/**
 * Calls `write(chunk, sqlFor)` for consecutive chunks of `items` whose sizes come from a fixed set;
 * `sql(size)` gives the statement's text for a chunk of that size (cached here, so a text is built
 * once per size). `paramsPerItem` bounds the chunk so one statement never passes MAX_PARAMS.
 */
export function inChunks<T>(
  items: readonly T[],
  paramsPerItem: number,
  sql: (size: number) => string,
  write: (chunk: readonly T[], text: string) => void,
): void {
  const texts = new Map<number, string>();
  const sizes = SIZES.map((s) => Math.max(1, Math.min(s, Math.floor(MAX_PARAMS / paramsPerItem))));
  let at = 0;
  for (const size of sizes) {
    while (items.length - at >= size) {
      let text = texts.get(size);
      if (text === undefined) texts.set(size, (text = sql(size)));
      write(items.slice(at, at + size), text);
      at += size;
    }
  }
}

/**
 * A lookup over many keys with an IN list of a fixed size: the last chunk is padded by repeating
 * its last key (a key twice in an IN list matches once), so every statement has the one text.
 */
export function inPadded<T>(keys: readonly T[], size: number, read: (chunk: readonly T[]) => void): void {
  for (let at = 0; at < keys.length; at += size) {
    const chunk = keys.slice(at, at + size);
    const last = chunk[chunk.length - 1] as T;
    while (chunk.length < size) chunk.push(last);
    read(chunk);
  }
}
