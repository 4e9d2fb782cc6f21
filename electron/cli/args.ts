/**
 * Parsing the CLI's own argument formats (lists, STAGE=GB pairs, numbers, times). A number flag
 * that is not a plain decimal within its bounds is a usage error (exit 2, with the command's help),
 * caught while the arguments are parsed — before any engine opens. "0x10", "1e3" and "" are refused.
 */
import { InvalidArgumentError } from 'commander';
import { describeDecimal, parseDecimal, type DecimalRule } from '../../shared/decimal-text.js';
import { ShotfarmError } from '../../shared/errors.js';
import { UsageError } from './exit-codes.js';

export const GB = 1024 ** 3;

export function parseTime(value: string, flag: string): number {
  const t = Date.parse(value);
  if (Number.isNaN(t))
    throw new ShotfarmError('bad_input', `${flag} must be a date or time such as 2026-12-01 or 2026-12-01T09:30:00Z.`);
  return t;
}

/** A comma-separated list, blanks dropped. */
export function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A number given to a flag, read in an action: plain decimal within the rule, else a usage error (exit 2). */
export function decimalValue(value: string, flag: string, rule: DecimalRule, example: string): number {
  const n = parseDecimal(value, rule);
  if (n === null) throw new UsageError(decimalWords(flag, rule, example, value));
  return n;
}

function decimalWords(flag: string, rule: DecimalRule, example: string, got?: string): string {
  return `${flag} takes ${describeDecimal(rule)} written in decimal digits, e.g. ${flag} ${example}${got === undefined ? '' : `; got "${got}"`}.`;
}

/**
 * A number flag's parser for commander (`.option('--vram <GB>', …, decimalOption('--vram', {positive: true}, '24'))`):
 * the value in plain decimal, or a usage error naming the flag, what it takes and an example.
 */
export function decimalOption(flag: string, rule: DecimalRule, example: string): (value: string) => number {
  return (value) => {
    const n = parseDecimal(value, rule);
    if (n === null) throw new InvalidArgumentError(decimalWords(flag, rule, example));
    return n;
  };
}

/** `STAGE=GB,…` as a commander parser: each GB a plain decimal above 0, else a usage error. */
export function vramPairs(value: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pair of list(value)) {
    const [stage, gb, extra] = pair.split('=');
    const n = gb === undefined ? null : parseDecimal(gb, { positive: true });
    if (!stage?.trim() || n === null || extra !== undefined)
      throw new InvalidArgumentError(
        `--vram takes STAGE=GB pairs with GB a number above 0, e.g. motion=20; got "${pair}".`,
      );
    out[stage.trim()] = n;
  }
  return out;
}
