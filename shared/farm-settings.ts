/**
 * The farm settings an operator owns (`shotfarm settings …`, `settings.*` over the API), each
 * defined once here: its type, unit, default, bounds and what it means. The engine reads them
 * through one reader and applies them to the scheduler's live config (each key's entry in
 * electron/engine/settings/setting-entries.ts); every host shows them from this table. Also the farm's durable state (running / paused / stopped).
 *
 * The table is checked against its own schema when this module loads, so an entry whose default
 * lies outside its bounds fails every test instead of reaching an operator.
 */
import { parseDecimal } from './decimal-text.js';
import { z } from 'zod';

const numberDef = z
  .strictObject({
    type: z.literal('number'),
    /** Whole numbers only (counts). */
    integer: z.boolean(),
    unit: z.string().min(1),
    default: z.number(),
    min: z.number(),
    max: z.number(),
    description: z.string().min(1),
  })
  .refine((d) => d.min <= d.default && d.default <= d.max, 'default must lie between min and max');

/** A folder on the machine running the engine; null default = the engine's own (`<data>/outputs`, `<data>/releases`). */
const folderDef = z.strictObject({
  type: z.literal('folder'),
  default: z.null(),
  description: z.string().min(1),
});

/** Free text with a per-key format (TEXT_FORMATS below), e.g. project_weights; '' default = none set. */
const textDef = z.strictObject({
  type: z.literal('text'),
  default: z.string(),
  maxLength: z.number().int().positive(),
  description: z.string().min(1),
});

const settingDef = z.union([numberDef, folderDef, textDef]);
export type FarmSettingDef = z.infer<typeof settingDef>;

const TABLE = {
  retry_attempts: {
    type: 'number',
    integer: true,
    unit: 'attempts',
    default: 4,
    min: 1,
    max: 100,
    description:
      'Attempts a job gets for transient failures (out of memory, 5xx, lost workstation, timeout) before it fails for good',
  },
  retry_base_s: {
    type: 'number',
    integer: false,
    unit: 's',
    default: 2,
    min: 0.01,
    max: 3_600,
    description: 'Retry backoff: the wait before retry n is random(0, min(retry_cap_s, retry_base_s × 2^(n−1)))',
  },
  retry_cap_s: {
    type: 'number',
    integer: false,
    unit: 's',
    default: 60,
    min: 0.01,
    max: 86_400,
    description: 'The longest retry backoff',
  },
  stall_timeout_s: {
    type: 'number',
    integer: false,
    unit: 's',
    default: 300,
    min: 1,
    max: 86_400,
    description: 'A running prompt with no progress and no queue change for this long is interrupted and retried',
  },
  grace_s: {
    type: 'number',
    integer: false,
    unit: 's',
    default: 60,
    min: 1,
    max: 86_400,
    description: 'A workstation unreachable this long during an attempt loses the attempt (retried elsewhere)',
  },
  starvation_s: {
    type: 'number',
    integer: false,
    unit: 's',
    default: 600,
    min: 1,
    max: 7 * 86_400,
    description: 'A job waiting this long for hardware gets a workstation reserved for it',
  },
  probe_interval_s: {
    type: 'number',
    integer: false,
    unit: 's',
    default: 2,
    min: 0.2,
    max: 600,
    description:
      'How often every workstation is probed (/system_stats, /queue); also how soon a running farm sees a change made by another process',
  },
  history_poll_s: {
    type: 'number',
    integer: false,
    unit: 's',
    default: 2,
    min: 0.1,
    max: 600,
    description: 'How often a running attempt asks its server for /queue and /history besides the WebSocket',
  },
  quarantine_after: {
    type: 'number',
    integer: true,
    unit: 'failures',
    default: 3,
    min: 1,
    max: 1_000,
    description: 'Workstation-level failures in a row before a workstation is quarantined',
  },
  quarantine_s: {
    type: 'number',
    integer: false,
    unit: 's',
    default: 300,
    min: 1,
    max: 7 * 86_400,
    description: 'How long a quarantined workstation takes no work',
  },
  object_info_max_mb: {
    type: 'number',
    integer: false,
    unit: 'MB',
    default: 64,
    min: 1,
    max: 2_048,
    description:
      'The largest /object_info answer taken from a workstation (its node list: several MB with many custom nodes and models); a larger one is refused, not read',
  },
  output_max_gb: {
    type: 'number',
    integer: false,
    unit: 'GB',
    default: 8,
    min: 0.001,
    max: 1_024,
    description:
      'The largest output file stored; a larger one fails its job for good (the same render would make it again) instead of filling the disk',
  },
  prefetch: {
    type: 'number',
    integer: true,
    unit: '0/1',
    default: 1,
    min: 0,
    max: 1,
    description:
      'Keep the next prompt already queued on each workstation behind the running one (1), so the GPU starts it without waiting for Shotfarm; 0 posts each prompt only once the previous one ended',
  },
  fair_share: {
    type: 'number',
    integer: true,
    unit: '0 off, 1 on',
    default: 1,
    min: 0,
    max: 1,
    description:
      'Fair share: among queued jobs of the same priority (rush and moved-to-top jobs stay first), the next free GPU goes to the project furthest below its share of GPU time over fair_share_window_s',
  },
  forecast_bump_late: {
    type: 'number',
    integer: true,
    unit: '0 off, 1 on',
    default: 0,
    min: 0,
    max: 1,
    description:
      'When the forecast finds a group (project, episode, sequence) late for its due time, raise its waiting jobs to the top of their priority class (normal stays normal), once per turn late',
  },
  fair_share_window_s: {
    type: 'number',
    integer: false,
    unit: 's',
    default: 3_600,
    min: 10,
    max: 7 * 86_400,
    description: "The sliding window over which fair share counts each project's GPU time (attempts' running time)",
  },
  project_weights: {
    type: 'text',
    default: '',
    maxLength: 2_000,
    description:
      'Fair-share weights per project, e.g. "Moonfall=3, Ashen=1" (a project not named weighs 1); empty: all equal',
  },
  upload_file_max_mb: {
    type: 'number',
    integer: false,
    unit: 'MB',
    default: 512,
    min: 0.001,
    max: 100_000,
    description: 'The largest input file a browser or studio-mode desktop may upload with a shot list',
  },
  upload_import_max_mb: {
    type: 'number',
    integer: false,
    unit: 'MB',
    default: 4_096,
    min: 0.001,
    max: 1_000_000,
    description:
      'The most input files one shot list may upload in all; the farm takes a file only after uploads.check announced it, within this total',
  },
  upload_person_max_mb: {
    type: 'number',
    integer: false,
    unit: 'MB',
    default: 51_200,
    min: 0.001,
    max: 100_000_000,
    description:
      'The most uploaded input files one person (or the solo operator) may keep on the farm in all, files their jobs still use included; past it an upload is refused',
  },
  upload_unused_keep_h: {
    type: 'number',
    integer: false,
    unit: 'h',
    default: 24,
    min: 2,
    max: 24 * 365,
    description:
      'An uploaded file no job uses is removed this long after it was last sent or previewed (at least 2 h: longer than a preview is kept)',
  },
  burst_after_s: {
    type: 'number',
    integer: false,
    unit: 's',
    default: 600,
    min: 0,
    max: 7 * 86_400,
    description:
      'Cloud burst: a RunPod endpoint takes a job only once it has waited this long in the queue (a rush job also when no LAN slot is free); LAN workstations are always preferred',
  },
  burst_budget_usd_per_day: {
    type: 'number',
    integer: false,
    unit: 'USD',
    default: 0,
    min: 0,
    max: 1_000_000,
    description:
      "Cloud burst: what RunPod endpoints may cost per day (UTC); once today's spend reaches it, no new cloud attempt starts. 0: never burst",
  },
  vram_learn_after: {
    type: 'number',
    integer: true,
    unit: 'runs',
    default: 5,
    min: 1,
    max: 1000,
    description:
      "Good runs of a template version on a GPU model (at one size) before admission uses their measured VRAM need (p95 + margin) instead of the template's declared vram_gb",
  },
  vram_learn_margin_pct: {
    type: 'number',
    integer: false,
    unit: '%',
    default: 10,
    min: 0,
    max: 200,
    description: 'Added on top of the learned VRAM need (the p95 of the measured runs) and of an out-of-memory floor',
  },
  lease_s: {
    type: 'number',
    integer: false,
    unit: 's',
    default: 10,
    min: 3,
    max: 60,
    description:
      'Several engines on one PostgreSQL farm: each workstation is leased by one engine for this long and renewed every third of it; an engine that stops renewing (killed, frozen, cut off) loses its workstations to the others after at most this long',
  },
  output_root: {
    type: 'folder',
    default: null,
    description:
      'Where outputs are written (<root>/<project>/<episode>/<shot>/<stage>/take-<n>/); an absolute, writable folder on the machine running the farm; unset: <data>/outputs',
  },
  releases_root: {
    type: 'folder',
    default: null,
    description:
      'Where release freezes write their manifests (a folder of its own per release, inside this one) and the only place verify reads manifests and delivery copies from; an absolute, writable folder; unset: <data>/releases',
  },
} as const satisfies Record<string, FarmSettingDef>;

for (const [key, def] of Object.entries(TABLE)) {
  const checked = settingDef.safeParse(def);
  if (!checked.success)
    throw new Error(`farm setting ${key}: ${checked.error.issues.map((i) => i.message).join('; ')}`);
}

export const FARM_SETTINGS: Readonly<Record<FarmSettingKey, FarmSettingDef>> = TABLE;
export type FarmSettingKey = keyof typeof TABLE;
export const FARM_SETTING_KEYS = Object.keys(TABLE) as FarmSettingKey[];

/** The settings that are folders (the rest are numbers). */
export type FolderSettingKey = {
  [K in FarmSettingKey]: (typeof TABLE)[K]['type'] extends 'folder' ? K : never;
}[FarmSettingKey];
export const FOLDER_SETTING_KEYS = FARM_SETTING_KEYS.filter(
  (k): k is FolderSettingKey => FARM_SETTINGS[k].type === 'folder',
);

/** The settings that are text (their format: TEXT_FORMATS). */
export type TextSettingKey = {
  [K in FarmSettingKey]: (typeof TABLE)[K]['type'] extends 'text' ? K : never;
}[FarmSettingKey];

/** The settings that are numbers. */
export type NumberSettingKey = Exclude<FarmSettingKey, FolderSettingKey | TextSettingKey>;

/** The value type of each key: numbers, text, and the folders (a path, or null for the engine's own). */
export type FarmSettingValues = {
  [K in FarmSettingKey]: (typeof TABLE)[K]['type'] extends 'folder'
    ? string | null
    : (typeof TABLE)[K]['type'] extends 'text'
      ? string
      : number;
};

/**
 * project_weights: "Moonfall=3, Ashen=1" (commas or new lines between entries; a project name may
 * hold spaces, not `=` or `,`), or a JSON object {"Moonfall": 3}. Weights are positive numbers.
 */
export function parseProjectWeights(
  text: string,
): { ok: true; weights: Record<string, number> } | { ok: false; message: string } {
  const t = text.trim();
  const weights: Record<string, number> = {};
  let entries: [string, unknown][];
  if (t.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(t);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return { ok: false, message: 'project_weights JSON must be an object of project → weight' };
      entries = Object.entries(parsed);
    } catch {
      return {
        ok: false,
        message: 'project_weights is not valid JSON; write it as "Moonfall=3, Ashen=1" or {"Moonfall": 3}',
      };
    }
  } else {
    entries = [];
    for (const part of t
      .split(/[,\n]/)
      .map((p) => p.trim())
      .filter((p) => p !== '')) {
      const eq = part.indexOf('=');
      if (eq <= 0)
        return {
          ok: false,
          message: `project_weights: "${part.slice(0, 80)}" is not project=weight (e.g. "Moonfall=3, Ashen=1")`,
        };
      entries.push([part.slice(0, eq).trim(), parseDecimal(part.slice(eq + 1)) ?? Number.NaN]);
    }
  }
  for (const [project, w] of entries) {
    if (project === '') return { ok: false, message: 'project_weights: a project name is empty' };
    if (typeof w !== 'number' || !Number.isFinite(w) || w <= 0 || w > 1_000_000)
      return {
        ok: false,
        message: `project_weights: the weight of ${project.slice(0, 80)} must be a positive number (up to 1000000)`,
      };
    weights[project] = w;
  }
  return { ok: true, weights };
}

/** Each text setting's format: '' (the default) always passes; otherwise the words for what is wrong, or null. */
const TEXT_FORMATS: Readonly<Record<TextSettingKey, (text: string) => string | null>> = {
  project_weights: (t) => {
    const r = parseProjectWeights(t);
    return r.ok ? null : r.message;
  },
};

export function isFarmSettingKey(key: unknown): key is FarmSettingKey {
  return typeof key === 'string' && Object.hasOwn(TABLE, key);
}

export const farmSettingKeySchema = z.string().refine(isFarmSettingKey, {
  error: (issue) =>
    `"${String(issue.input).slice(0, 60)}" is not a farm setting; the settings are ${FARM_SETTING_KEYS.join(', ')}`,
});

/** What an operator may send as a value: the CLI sends text, the API a number or text. */
export const rawSettingValueSchema = z.union([z.number(), z.string().max(4_096)]);

/** The words for a setting's bounds, e.g. "a whole number from 1 to 100 (attempts)". */
export function describeBounds(def: FarmSettingDef): string {
  if (def.type === 'folder') return 'an absolute folder path';
  if (def.type === 'text') return `text of at most ${def.maxLength} characters`;
  return `${def.integer ? 'a whole number' : 'a number'} from ${def.min} to ${def.max} (${def.unit})`;
}

/** An absolute path on any of the engine's platforms (the renderer cannot ask node:path). */
function looksAbsolute(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}

/**
 * Parses what an operator typed or sent for `key`. Pure: whether a folder exists and is writable
 * is the engine's to check, on its own machine.
 */
export function parseSettingValue(
  key: FarmSettingKey,
  raw: unknown,
): { ok: true; value: number | string } | { ok: false; message: string } {
  const def = FARM_SETTINGS[key];
  const said = typeof raw === 'string' ? `"${raw.slice(0, 80)}"` : String(raw);
  const bad = { ok: false as const, message: `${key} must be ${describeBounds(def)}; got ${said}` };
  if (def.type === 'folder') {
    if (typeof raw !== 'string') return bad;
    const path = raw.trim();
    if (!looksAbsolute(path) || path.includes('\0')) return bad;
    return { ok: true, value: path };
  }
  if (def.type === 'text') {
    if (typeof raw !== 'string' || raw.length > def.maxLength) return bad;
    const text = raw.trim();
    const wrong = text === '' ? null : TEXT_FORMATS[key as TextSettingKey](text);
    return wrong === null ? { ok: true, value: text } : { ok: false, message: wrong };
  }
  // Text in plain decimal only: "0x10" or "1e3" typed for a setting is refused, not read as 16 or 1000.
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' ? (parseDecimal(raw) ?? Number.NaN) : Number.NaN;
  if (!Number.isFinite(n) || (def.integer && !Number.isInteger(n)) || n < def.min || n > def.max) return bad;
  return { ok: true, value: n };
}

/** One setting as the hosts show it: its definition, its value now, and whether an operator set it. */
export interface FarmSettingView {
  key: FarmSettingKey;
  type: FarmSettingDef['type'];
  unit: string | null;
  /** The value in force: the operator's, else the default (for output_root: the engine's own folder). */
  value: number | string;
  default: number | string;
  min: number | null;
  max: number | null;
  description: string;
  /** True when an operator set it (`reset` returns it to the default). */
  isSet: boolean;
  /** When it was last set (epoch ms); null when it is at its default. */
  updatedAt: number | null;
  /** Who set it (a person's name, or `local` on the farm host); null at its default or for a row from before. */
  updatedBy: string | null;
}

/**
 * The farm's durable state. `paused`: no new dispatch, running prompts finish. `stopped`: no new
 * dispatch, running prompts are interrupted, removed from their servers and their jobs requeued.
 * It survives restarts of the engine and the app.
 */
export const FARM_STATES = ['running', 'paused', 'stopped'] as const;
export type FarmState = (typeof FARM_STATES)[number];

/** What each state means, in the words every host shows (status, health, the UI's banner). */
export const FARM_STATE_WORDS: Readonly<Record<FarmState, string>> = {
  running: 'running: dispatching',
  paused: 'paused: no new dispatch; running prompts finish',
  stopped: 'stopped: no new dispatch; running prompts were interrupted and their jobs requeued',
};

export const farmStateRecordSchema = z.strictObject({
  state: z.enum(FARM_STATES),
  /** Who set it, in words (`cli alice`, `Studio UI`, `desktop menu`). */
  by: z.string().max(200),
  /** When (epoch ms). */
  at: z.number().int(),
});

/** Who set the state and when; `by` and `at` are null while it was never changed (running). */
export interface FarmStateView {
  state: FarmState;
  by: string | null;
  at: number | null;
}

/** The input of farm.stop / farm.pause / farm.resume: who asks (for the record). */
export const farmControlInputSchema = z.strictObject({ by: z.string().trim().min(1).max(200).optional() });

/**
 * The input of farm.stop: as farm.pause's, and, from a dialog that named what it would interrupt,
 * the ids of the running jobs it was shown. The stop is refused (conflict) when a job not among them
 * runs by then, so a person never interrupts a render the question did not name; without the list
 * (the CLI's `stop`, a script) it stops whatever runs.
 */
export const farmStopInputSchema = farmControlInputSchema.extend({
  expectRunning: z.array(z.uuid()).max(100_000).optional(),
});
