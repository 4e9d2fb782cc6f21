/**
 * Which farm the desktop app works on: "This computer" (its own engine, as always) or a "Studio
 * farm" (a `shotfarm serve` elsewhere, reached over the same HTTP/WebSocket contract a browser
 * uses). The choice is a small JSON file in userData — the origin only; the token lives in the
 * token store (token-store.ts), encrypted. Pure parts (origin, CSP, the page's meta tag) are
 * checked in Node.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

export const FARM_CHOICE_FILE = 'farm-choice.json';

const choiceSchema = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('local') }),
  z.strictObject({ mode: z.literal('studio'), origin: z.string().min(1).max(2_048) }),
]);
export type FarmChoice = z.infer<typeof choiceSchema>;

/**
 * The studio farm's origin from what the operator typed ("http://farm:8080", a trailing slash or
 * the printed URL with its ?token= are fine); words naming what to fix otherwise.
 */
export function studioOrigin(text: string): { ok: true; origin: string } | { ok: false; message: string } {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return {
      ok: false,
      message: `"${text.slice(0, 100)}" is not a URL; type the address \`shotfarm serve\` printed, e.g. http://farm-host:8080`,
    };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, message: `The studio farm's address must start with http:// or https://; got ${url.protocol}` };
  if (url.username || url.password)
    return {
      ok: false,
      message: "The studio farm's address must not hold a user name or password; the token goes in its own field",
    };
  if (url.pathname !== '/' && url.pathname !== '')
    return { ok: false, message: `The studio farm's address is the server alone (${url.origin}), without a path` };
  return { ok: true, origin: url.origin };
}

/** The WebSocket origin of an http(s) origin. */
export function socketOrigin(origin: string): string {
  return origin.replace(/^http/, 'ws');
}

export function readFarmChoice(file: string): FarmChoice | null {
  if (!existsSync(file)) return null;
  try {
    const parsed = choiceSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success) return null;
    if (parsed.data.mode === 'studio' && !studioOrigin(parsed.data.origin).ok) return null;
    return parsed.data;
  } catch {
    return null;
  }
}

export function writeFarmChoice(file: string, choice: FarmChoice): void {
  const temp = `${file}.tmp`;
  writeFileSync(temp, `${JSON.stringify(choice)}\n`);
  renameSync(temp, file);
}

/** The page's CSP meta tag with another policy (studio mode: connect-src also the farm's origin). */
export function withMetaCsp(html: string, csp: string): string {
  const re = /(<meta http-equiv="Content-Security-Policy" content=")[^"]*(")/;
  if (!re.test(html)) throw new Error('the app page has no Content-Security-Policy meta tag to set');
  return html.replace(re, (_m, a: string, b: string) => `${a}${csp.replace(/"/g, '&quot;')}${b}`);
}
