/**
 * What an `execution_error` carries besides its type (protocol §3): the exception's message and
 * the traceback lines, made into bounded text for the attempt row. A custom node can raise with a
 * message of any size; the row keeps the end, where the innermost frame and the error line are.
 */

/** Characters kept of the exception message and of the traceback. */
export const MESSAGE_MAX_CHARS = 4_000;
export const TRACEBACK_MAX_CHARS = 16_000;

/** At most `max` characters: the end of `text`, marked where its start was cut. */
export function keepEnd(text: string, max: number): string {
  if (text.length <= max) return text;
  const mark = `… (${text.length - max} characters cut)\n`;
  return mark + text.slice(text.length - max + mark.length);
}

/** The traceback as ComfyUI sends it (a list of formatted frames), as one bounded text; null when absent. */
export function tracebackText(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  const text = value.filter((l): l is string => typeof l === 'string').join('');
  return text.trim() ? keepEnd(text, TRACEBACK_MAX_CHARS) : null;
}

/** The exception message, bounded; null when absent. */
export function messageText(value: string | null): string | null {
  return value?.trim() ? keepEnd(value, MESSAGE_MAX_CHARS) : null;
}
