/** Parsing the CLI's own argument formats (lists, STAGE=GB pairs, times); a bad value is a bad_input naming the flag. */
import { ShotfarmError } from '../../shared/errors.js';

export const GB = 1024 ** 3;

export function parseTime(value: string, flag: string): number {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new ShotfarmError('bad_input', `${flag} must be a date or time such as 2026-12-01 or 2026-12-01T09:30:00Z.`);
  return t;
}

/** A comma-separated list, blanks dropped. */
export function list(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

export function vramPairs(value: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pair of list(value)) {
    const [stage, gb] = pair.split('=');
    if (!stage || !gb || !(Number(gb) > 0)) throw new ShotfarmError('bad_input', `--vram takes STAGE=GB pairs, e.g. motion=20; got "${pair}".`);
    out[stage] = Number(gb);
  }
  return out;
}
