/**
 * The main window's size and position, kept in `<userData>/window-state.json` between runs. A
 * saved position is reused only while it is still on a screen (a monitor may have been unplugged);
 * otherwise the window is centred. A missing or damaged file just means default placement.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

export const WINDOW_STATE_FILE = 'window-state.json';

const stateSchema = z.object({
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  width: z.number().int().min(200).max(100_000),
  height: z.number().int().min(200).max(100_000),
  maximized: z.boolean().default(false),
});
export type WindowState = z.infer<typeof stateSchema>;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const DEFAULT_SIZE = { width: 1440, height: 900 };
export const MIN_SIZE = { width: 960, height: 600 };
/** A saved position counts only if this much of the window's top strip (its title bar) is on a screen. */
const TITLE_STRIP = { width: 120, height: 32 };

export function loadWindowState(file: string): WindowState | null {
  try {
    const parsed = stateSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Written to a temp name then renamed, so a crash mid-write leaves the previous state. */
export function saveWindowState(file: string, state: WindowState): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state)}\n`);
  renameSync(tmp, file);
}

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  return {
    width: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)),
    height: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)),
  };
}

/** Where to open the window given the saved state and the screens' work areas. */
export function placeWindow(saved: WindowState | null, workAreas: readonly Rect[]): WindowState {
  const largest = workAreas.reduce<Rect | null>(
    (m, r) => (!m || r.width * r.height > m.width * m.height ? r : m),
    null,
  );
  const maxW = largest?.width ?? Number.MAX_SAFE_INTEGER;
  const maxH = largest?.height ?? Number.MAX_SAFE_INTEGER;
  const width = Math.max(Math.min(saved?.width ?? DEFAULT_SIZE.width, maxW), Math.min(MIN_SIZE.width, maxW));
  const height = Math.max(Math.min(saved?.height ?? DEFAULT_SIZE.height, maxH), Math.min(MIN_SIZE.height, maxH));
  const out: WindowState = { width, height, maximized: saved?.maximized ?? false };
  if (saved?.x !== undefined && saved.y !== undefined) {
    // The title bar must be reachable, or the operator cannot move the window back.
    const strip = { x: saved.x, y: saved.y, width, height: TITLE_STRIP.height };
    const visible = workAreas.some((area) => {
      const o = overlap(strip, area);
      return o.width >= TITLE_STRIP.width && o.height >= TITLE_STRIP.height;
    });
    if (visible) {
      out.x = saved.x;
      out.y = saved.y;
    }
  }
  return out;
}
