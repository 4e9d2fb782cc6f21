/**
 * The store's SQL is written for better-sqlite3: positional `?` parameters, or named `@name`
 * (`:name`, `$name`) ones bound from one object. PostgreSQL numbers its parameters (`$1`, `$2`…),
 * so each statement is translated once (cached by its text, as the statements are constants) and
 * its values are put in that order at each call. String literals, quoted names, comments and
 * PostgreSQL's `::type` casts are left alone. `LIKE` becomes `ILIKE`: SQLite's LIKE ignores ASCII
 * case (the queue's search, the id prefixes), PostgreSQL's does not.
 */

export interface Translated {
  text: string;
  /** Positional: how many `?` the statement has. Named: the names, one per `$n`, in order. */
  params: { kind: 'positional'; count: number } | { kind: 'named'; names: string[] } | { kind: 'none' };
}

const cache = new Map<string, Translated>();

export function translate(sql: string): Translated {
  let t = cache.get(sql);
  if (!t) {
    t = scan(sql);
    cache.set(sql, t);
  }
  return t;
}

function scan(sql: string): Translated {
  let out = '';
  let count = 0;
  const names: string[] = [];
  const slot = new Map<string, number>();
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i] as string;
    const next = sql[i + 1];
    if (c === "'" || c === '"') {
      // A literal or a quoted name: doubled quotes inside it are the quote itself.
      let j = i + 1;
      for (; j < n; j++) {
        if (sql[j] === c) {
          if (sql[j + 1] === c) j++;
          else break;
        }
      }
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (c === '-' && next === '-') {
      const j = sql.indexOf('\n', i);
      const end = j === -1 ? n : j;
      out += sql.slice(i, end);
      i = end;
    } else if (c === '/' && next === '*') {
      const j = sql.indexOf('*/', i + 2);
      const end = j === -1 ? n : j + 2;
      out += sql.slice(i, end);
      i = end;
    } else if (c === ':' && next === ':') {
      out += '::';
      i += 2;
    } else if (c === '?') {
      if (names.length) throw mixed(sql);
      count++;
      out += `$${count}`;
      i++;
    } else if ((c === '@' || c === ':' || c === '$') && next !== undefined && /[A-Za-z_]/.test(next)) {
      if (count) throw mixed(sql);
      const m = /^[A-Za-z_]\w*/.exec(sql.slice(i + 1)) as RegExpExecArray;
      const name = m[0];
      let k = slot.get(name);
      if (k === undefined) {
        names.push(name);
        k = names.length;
        slot.set(name, k);
      }
      out += `$${k}`;
      i += 1 + name.length;
    } else if ((c === 'L' || c === 'l') && isLike(sql, i)) {
      // SQLite's LIKE ignores ASCII case; PostgreSQL's does not: ILIKE is the same search there.
      out += 'ILIKE';
      i += 4;
    } else {
      out += c;
      i++;
    }
  }
  const params: Translated['params'] = count
    ? { kind: 'positional', count }
    : names.length
      ? { kind: 'named', names }
      : { kind: 'none' };
  return { text: out, params };
}

/** The keyword LIKE at `i` (not part of a longer word). */
function isLike(sql: string, i: number): boolean {
  if (sql.slice(i, i + 4).toUpperCase() !== 'LIKE') return false;
  const before = sql[i - 1];
  const after = sql[i + 4];
  const word = /[\w$]/;
  return (before === undefined || !word.test(before)) && (after === undefined || !word.test(after));
}

function mixed(sql: string): Error {
  return new Error(`A statement mixes ? and named parameters, which neither store accepts: ${sql.slice(0, 120)}`);
}

/** The values for `$1…$n`, from the arguments the store passed (as better-sqlite3 takes them). */
export function bindValues(t: Translated, args: readonly unknown[], sql: string): unknown[] {
  const p = t.params;
  if (p.kind === 'none') {
    // A filter's parameter object with nothing to bind (no filter given): better-sqlite3 takes it too.
    if (args.length === 1 && isNamedBag(args[0])) return [];
    if (args.length) throw new Error(`The statement takes no parameters but got ${args.length}: ${sql.slice(0, 120)}`);
    return [];
  }
  if (p.kind === 'positional') {
    // better-sqlite3 also takes the positional values as one array.
    const values = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
    if (values.length !== p.count)
      throw new Error(`The statement takes ${p.count} parameters but got ${values.length}: ${sql.slice(0, 120)}`);
    return values.map(toPostgresValue);
  }
  const obj = args[0];
  if (args.length !== 1 || obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new Error(
      `The statement takes named parameters (${p.names.join(', ')}) from one object: ${sql.slice(0, 120)}`,
    );
  }
  const rec = obj as Record<string, unknown>;
  return p.names.map((name) => {
    if (!(name in rec)) throw new Error(`Missing named parameter @${name}: ${sql.slice(0, 120)}`);
    return toPostgresValue(rec[name]);
  });
}

function isNamedBag(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !Buffer.isBuffer(v);
}

/** better-sqlite3 binds bigints as integers; pg sends every value as text, so a bigint goes as its digits. */
function toPostgresValue(v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}
