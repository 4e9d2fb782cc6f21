/**
 * A hand-written check of the common shot shape (shared/shot-list-schema.ts shotEntrySchema), for
 * the 100k-shot list: the schema's own check builds several objects per field and was a third of
 * the preview. It answers "certainly valid, and this is what the schema would return", or null
 * for anything it is not sure of — and the caller then asks the schema, so a bad shot's error
 * messages are the schema's, word for word. It never rejects on its own.
 */
import { MAX_TAKE, type ShotEntry } from '../../../shared/shot-list-schema.js';
import { portableNameProblem } from '../../../shared/portable-name.js';
import { PRIORITIES } from '../../../shared/priorities.js';

const PRIORITY_SET: ReadonlySet<unknown> = new Set(PRIORITIES);
/** nameSchema's refine: no slashes, no control characters. */
const NOT_IN_NAME = /[\\/\u0000-\u001f]/;

/** A plain JSON object (what JSON.parse makes for `{…}`): not null, not an array. */
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** The schema trims names; a name the trim would change is left to the schema. */
function untrimmed(s: string): boolean {
  return s.length === 0 || s.trim().length === s.length;
}

/** portableNameSchema: trimmed already, and the portable-name rule holds. */
function portable(v: unknown): v is string {
  return typeof v === 'string' && untrimmed(v) && portableNameProblem(v) === null;
}

/** nameSchema: trimmed already, 1–120 characters, no slashes or control characters, not "." or "..". */
function name(v: unknown): v is string {
  return (
    typeof v === 'string' &&
    v.length >= 1 &&
    v.length <= 120 &&
    untrimmed(v) &&
    !NOT_IN_NAME.test(v) &&
    v !== '.' &&
    v !== '..'
  );
}

function take(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_TAKE;
}

function seed(v: unknown): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** `{ name: string | finite number | boolean }` (a `__proto__` key is the schema's to judge). */
function parameters(v: unknown): boolean {
  if (!isObject(v)) return false;
  for (const k in v) {
    if (k === '__proto__') return false;
    const p = v[k];
    if (typeof p === 'string' || typeof p === 'boolean') continue;
    if (typeof p === 'number' && Number.isFinite(p)) continue;
    return false;
  }
  return true;
}

/** `{ name: non-empty string }`. */
function inputs(v: unknown): boolean {
  if (!isObject(v)) return false;
  for (const k in v) {
    if (k === '__proto__') return false;
    const p = v[k];
    if (typeof p !== 'string' || p.length === 0) return false;
  }
  return true;
}

/** One entry of `stages`: only its known keys, each valid. */
function stageEntry(v: unknown): boolean {
  if (!isObject(v)) return false;
  let stage = false;
  let template = false;
  for (const k in v) {
    const x = v[k];
    switch (k) {
      case 'stage':
        if (!portable(x)) return false;
        stage = true;
        break;
      case 'template':
        if (!name(x)) return false;
        template = true;
        break;
      case 'take':
        if (!take(x)) return false;
        break;
      case 'priority':
        if (!PRIORITY_SET.has(x)) return false;
        break;
      case 'parameters':
        if (!parameters(x)) return false;
        break;
      case 'inputs':
        if (!inputs(x)) return false;
        break;
      case 'depends_on':
        if (!portable(x)) return false;
        break;
      case 'seed':
        if (!seed(x)) return false;
        break;
      case 'due':
        if (typeof x !== 'string') return false;
        break;
      default:
        return false;
    }
  }
  return stage && template;
}

/**
 * The shot as shotEntrySchema would return it when it is certainly valid (the object itself: every
 * string is already trimmed, so the schema's copy would be equal), else null: ask the schema.
 */
export function plainShotEntry(v: unknown): ShotEntry | null {
  if (!isObject(v)) return null;
  let id = false;
  for (const k in v) {
    const x = v[k];
    switch (k) {
      case 'id':
        if (!portable(x)) return null;
        id = true;
        break;
      case 'description':
      case 'due':
        if (typeof x !== 'string') return null;
        break;
      case 'priority':
        if (!PRIORITY_SET.has(x)) return null;
        break;
      case 'stage':
        if (!portable(x)) return null;
        break;
      case 'template':
        if (!name(x)) return null;
        break;
      case 'take':
        if (!take(x)) return null;
        break;
      case 'parameters':
        if (!parameters(x)) return null;
        break;
      case 'inputs':
        if (!inputs(x)) return null;
        break;
      case 'seed':
        if (!seed(x)) return null;
        break;
      case 'stages':
        if (!Array.isArray(x) || x.length === 0) return null;
        for (const s of x) if (!stageEntry(s)) return null;
        break;
      default:
        return null;
    }
  }
  return id ? (v as ShotEntry) : null;
}
