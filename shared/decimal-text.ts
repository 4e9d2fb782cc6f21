/**
 * Numbers as a person types them: plain decimal only. `Number()` also takes "0x10", "1e3", "0b1",
 * " 16 " and "" (as 0), so a typo or a hex value would silently become another number; here it is
 * refused instead, and the caller says what it wanted.
 */

/** Optional minus, digits, optional fraction: "16", "0.69", "-2", "3.". No exponent, no hex, no sign "+". */
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;

export interface DecimalRule {
  /** Whole numbers only. */
  integer?: boolean;
  /** Above 0 (a price, a size): 0 itself is refused. */
  positive?: boolean;
  min?: number;
  max?: number;
}

/** The number `text` writes in plain decimal within the rule, or null (surrounding blanks are ignored). */
export function parseDecimal(text: string, rule: DecimalRule = {}): number | null {
  const t = text.trim();
  if (!DECIMAL.test(t)) return null;
  const n = Number(t);
  if (!Number.isFinite(n)) return null;
  if (rule.integer && !Number.isInteger(n)) return null;
  if (rule.positive && !(n > 0)) return null;
  if (rule.min !== undefined && n < rule.min) return null;
  if (rule.max !== undefined && n > rule.max) return null;
  return n;
}

/** What the rule asks for, in words: "a whole number from 1 to 16", "a number above 0". */
export function describeDecimal(rule: DecimalRule = {}): string {
  const kind = `${rule.integer ? 'a whole number' : 'a number'}${rule.positive ? ' above 0' : ''}`;
  if (rule.min !== undefined && rule.max !== undefined) return `${kind} from ${rule.min} to ${rule.max}`;
  if (rule.min !== undefined) return `${kind} of at least ${rule.min}`;
  if (rule.max !== undefined) return `${kind} up to ${rule.max}`;
  return kind;
}
