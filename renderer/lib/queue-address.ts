/**
 * The queue's filter, sort and order as the address's query (`#/queue?view=failed&project=Moonfall&q=sh01`),
 * so a filtered view can be reloaded, sent to a colleague and walked back with the back button. DOM-free.
 *
 * The parameters are derived from the contract's jobFilterSchema, field by field: a field added
 * to the filter (a "Mine" filter, say) is in the address with no change here; PARAM_NAMES only
 * gives a few fields a shorter name. Every value read back is validated by its own field's schema
 * and the whole filter once more: a malformed or unknown parameter is dropped, never sent on.
 */
import { z } from 'zod';
import { jobFilterSchema, JOB_SORT_KEYS, type JobFilter } from '../../shared/api.js';
import { DEFAULT_STATES, presetOf, QUEUE_PRESETS } from './queue-views.js';

type FilterKey = keyof JobFilter;
type SortKey = (typeof JOB_SORT_KEYS)[number];

export interface AddressQuery {
  filter: JobFilter;
  sort: SortKey;
  descending: boolean;
}

/** Shorter names in the address for a few fields; every other field is named as in the contract. */
const PARAM_NAMES: Partial<Record<FilterKey, string>> = { search: 'q', instanceId: 'workstation' };

const FIELDS = Object.keys(jobFilterSchema.shape) as FilterKey[];
const paramOf = (k: FilterKey): string => PARAM_NAMES[k] ?? k;

/** The field's schema without its `.optional()`, to tell lists and yes/no fields from text. */
function innerOf(k: FilterKey): z.ZodType {
  const s: z.ZodType = jobFilterSchema.shape[k];
  return s instanceof z.ZodOptional ? (s.unwrap() as z.ZodType) : s;
}

/** A preset's id stands for its states (`view=failed`); `states=` is for a hand-picked set. */
const VIEW_PARAM = 'view';
const SORT_PARAM = 'sort';
const ORDER_PARAM = 'order';
const DEFAULT_SORT: SortKey = 'queue';

function encodeValue(v: unknown): string | null {
  if (v === undefined || v === null || v === '' || v === false) return null;
  if (Array.isArray(v)) return v.join(',');
  if (v === true) return '1';
  return String(v);
}

/** The address's query for a queue view, in a stable order (so equal views have equal addresses); '' for the default view. */
export function queueParamsOf(q: AddressQuery): string {
  const out = new URLSearchParams();
  for (const k of FIELDS) {
    if (k === 'states') {
      const preset = presetOf(q.filter.states);
      if (preset) {
        if (preset.id !== QUEUE_PRESETS[0]?.id) out.set(VIEW_PARAM, preset.id);
      } else out.set(paramOf(k), (q.filter.states ?? []).join(','));
      continue;
    }
    const raw = q.filter[k];
    const v = encodeValue(typeof raw === 'string' ? raw.trim() : raw);
    if (v !== null) out.set(paramOf(k), v);
  }
  if (q.sort !== DEFAULT_SORT) out.set(SORT_PARAM, q.sort);
  if (q.descending) out.set(ORDER_PARAM, 'desc');
  return out.toString();
}

function decodeValue(k: FilterKey, raw: string): unknown {
  const inner = innerOf(k);
  if (inner instanceof z.ZodArray) return raw === '' ? [] : raw.split(',');
  if (inner instanceof z.ZodBoolean)
    return raw === '1' || raw === 'true' ? true : raw === '0' || raw === 'false' ? false : raw;
  return raw;
}

export interface ParsedQueueParams {
  query: AddressQuery;
  /** Parameters left out: unknown names or values their field refuses (for a note, never sent). */
  dropped: string[];
}

/** Reads a queue view from the address's query; what is missing is the default view (Active, dispatch order). */
export function parseQueueParams(search: string): ParsedQueueParams {
  const params = new URLSearchParams(search.replace(/^\?/, ''));
  const byParam = new Map(FIELDS.map((k) => [paramOf(k), k] as const));
  const filter: Record<string, unknown> = { states: [...DEFAULT_STATES] };
  const dropped: string[] = [];
  let sort: SortKey = DEFAULT_SORT;
  let descending = false;
  const seen = new Set<string>();
  for (const [name, raw] of params) {
    // A repeated parameter is ambiguous: the first one counts.
    if (seen.has(name)) {
      dropped.push(name);
      continue;
    }
    seen.add(name);
    if (name === VIEW_PARAM) {
      const preset = QUEUE_PRESETS.find((p) => p.id === raw);
      if (preset && !params.has(paramOf('states'))) filter.states = [...preset.states];
      else dropped.push(name);
      continue;
    }
    if (name === SORT_PARAM) {
      const ok = z.enum(JOB_SORT_KEYS).safeParse(raw);
      if (ok.success) sort = ok.data;
      else dropped.push(name);
      continue;
    }
    if (name === ORDER_PARAM) {
      if (raw === 'desc' || raw === 'asc') descending = raw === 'desc';
      else dropped.push(name);
      continue;
    }
    const k = byParam.get(name);
    if (k && raw === '' && !(innerOf(k) instanceof z.ZodArray)) continue; // `project=` is no filter
    const ok = k ? jobFilterSchema.shape[k].safeParse(decodeValue(k, raw)) : null;
    if (k && ok?.success) filter[k] = ok.data;
    else dropped.push(name);
  }
  // The whole filter once more (a rule across fields would be checked here too); refused → the default view.
  const whole = jobFilterSchema.safeParse(filter);
  if (!whole.success)
    return { query: { filter: { states: [...DEFAULT_STATES] }, sort, descending }, dropped: [...params.keys()] };
  return { query: { filter: whole.data, sort, descending }, dropped };
}

/** Fields a person types letter by letter: a run of changes to these alone is one history entry. */
const TYPED: ReadonlySet<FilterKey> = new Set<FilterKey>(['search', 'projectPrefix', 'episodePrefix', 'shotPrefix']);

/** Whether going from one view to the next changed only typed text (not a preset, a pick, a sort). */
export function onlyTyped(prev: AddressQuery, next: AddressQuery): boolean {
  if (prev.sort !== next.sort || prev.descending !== next.descending) return false;
  const a = parseQueueParams(queueParamsOf(prev)).query.filter;
  const b = parseQueueParams(queueParamsOf(next)).query.filter;
  return FIELDS.every((k) => TYPED.has(k) || JSON.stringify(a[k]) === JSON.stringify(b[k]));
}
