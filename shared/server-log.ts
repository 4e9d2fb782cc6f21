/**
 * The server's log around a failed attempt (issue 25): the lines a LAN ComfyUI's
 * `GET /internal/logs/raw` held for the attempt's window, or why there are none. The engine stores it
 * as JSON with the attempt and parses it back through this schema before it answers (a row written by
 * another version, or edited by hand, becomes nothing rather than a broken drawer); the renderer
 * parses it again, as every value that crossed a process boundary.
 */
import { z } from 'zod';

/** Lines kept at most (the end of the window: where the failure is). */
export const SERVER_LOG_MAX_LINES = 200;
/** Characters kept at most over all lines (their `text`). */
export const SERVER_LOG_MAX_CHARS = 32 * 1024;
/** Characters kept of one line (a custom node can print a tensor on one line). */
export const SERVER_LOG_LINE_MAX_CHARS = 1_000;

export const serverLogLineSchema = z.strictObject({
  /** When the server wrote it, on the farm's clock (epoch ms; placed from the server's naive local time). */
  at: z.number().int().nonnegative(),
  text: z.string().max(SERVER_LOG_LINE_MAX_CHARS + 40),
});

export const serverLogSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('lines'),
    /** The window read, on the farm's clock: the attempt's start and end, widened by a few seconds. */
    from: z.number().int().nonnegative(),
    to: z.number().int().nonnegative(),
    lines: z.array(serverLogLineSchema).max(SERVER_LOG_MAX_LINES),
    /** Lines of the window left out by the bounds (the oldest ones). */
    cut: z.number().int().nonnegative(),
  }),
  /** The route is not there (an older ComfyUI, or a proxy that does not forward `/internal/`). */
  z.strictObject({ kind: z.literal('not_offered'), detail: z.string().max(500) }),
  /** The route did not answer in time, or answered something that is not its shape. */
  z.strictObject({ kind: z.literal('unread'), detail: z.string().max(500) }),
]);

export type ServerLogLine = z.infer<typeof serverLogLineSchema>;
export type ServerLog = z.infer<typeof serverLogSchema>;

/** A stored or received server log, or null when it is absent or not this shape. */
export function parseServerLog(value: unknown): ServerLog | null {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v) as unknown;
    } catch {
      return null;
    }
  }
  const r = serverLogSchema.safeParse(v);
  return r.success ? r.data : null;
}
