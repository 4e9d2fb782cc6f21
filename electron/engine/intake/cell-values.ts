/**
 * Reading typed values out of CSV cells, as strictly as the JSON schema reads them: a cell is text,
 * and `Number()` would take `1e308`, `0x10`, ` 12 ` or `1.5e0` as numbers — a take or a seed is
 * written in digits, or it is an error on its row.
 */
import { MAX_TAKE, type ParamValue } from '../../../shared/shot-list-schema.js';

const DIGITS = /^[0-9]+$/;

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** A take: digits only, 1 to MAX_TAKE. */
export function parseTake(cell: string): Parsed<number> {
  const n = DIGITS.test(cell) ? Number(cell) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_TAKE)
    return {
      ok: false,
      message: `take "${clip(cell)}" must be a whole number from 1 to ${MAX_TAKE}, written in digits`,
    };
  return { ok: true, value: n };
}

/** A pinned seed: digits only, 0 up to the largest integer JavaScript and SQLite both hold exactly. */
export function parseSeed(cell: string): Parsed<number> {
  const n = DIGITS.test(cell) ? Number(cell) : Number.NaN;
  if (!Number.isSafeInteger(n))
    return {
      ok: false,
      message: `seed "${clip(cell)}" must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, written in digits`,
    };
  return { ok: true, value: n };
}

/**
 * A template parameter's value: a plain decimal number becomes a number (ComfyUI's INT/FLOAT
 * inputs need one), anything else — `0x10`, `1e3`, digits too long to be exact — stays text, so
 * it reaches the template's own check as written.
 */
export function parameterValue(cell: string): ParamValue {
  if (!/^-?\d+(\.\d+)?$/.test(cell)) return cell;
  const n = Number(cell);
  return Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n)) ? n : cell;
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
