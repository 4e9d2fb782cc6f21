/**
 * Where the engine's CPU went, from a V8 CPU profile of its process: every sample is charged to the
 * innermost engine source file on its stack (so a SQLite call made by a claim counts as a commit
 * when it runs inside store/, and as a claim when the scheduler itself spends the time), then that
 * file to a part of the engine. Samples with no engine frame are charged by library (ws frames,
 * the HTTP client, better-sqlite3) or to Node's own machinery, GC and the idle loop.
 */

/** The parts of the engine a breakdown names, in print order. */
export const PARTS = [
  'probes',
  'socket frames',
  'claims',
  'commits',
  'outputs',
  'attempt follow',
  'http client',
  'events & views',
  'other engine',
  'node & libuv',
  'gc',
  'bench harness',
] as const;
export type Part = (typeof PARTS)[number];

/** Engine files (path under electron/engine/) → part; first match wins. */
const ENGINE_RULES: [RegExp, Part][] = [
  [
    /^(health\/|comfy\/(system-stats-check|capabilities|vram)|pools\/comfy-lan\/(contact|node-lists|instance-snapshot|instance-registry))/,
    'probes',
  ],
  [/^comfy\/(ws-|station-socket|event-queue|binary-frames|observation)/, 'socket frames'],
  [/^scheduler\//, 'claims'],
  [/^(store\/|job-state|job-actions)/, 'commits'],
  [/^(files\/|storage\/|comfy\/view-download|pools\/comfy-lan\/collect)/, 'outputs'],
  [/^pools\/comfy-lan\//, 'attempt follow'],
  [/^comfy\//, 'http client'],
  [/^(event-bus|announcer|views\/|queries\/|handlers\/)/, 'events & views'],
];

/** Library files (under node_modules/<pkg>/) → part. */
const LIBRARY_PARTS: Record<string, Part> = {
  ws: 'socket frames',
  'better-sqlite3': 'commits',
  undici: 'http client',
};

export function partOfUrl(url: string): Part | null {
  const engine = /\/electron\/engine\/(.+)$/.exec(url);
  if (engine) {
    const path = engine[1] as string;
    for (const [re, part] of ENGINE_RULES) if (re.test(path)) return part;
    return 'other engine';
  }
  if (url.includes('/test/bench/')) return 'bench harness';
  const lib = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (lib) return LIBRARY_PARTS[lib[1] as string] ?? null;
  return null;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
export interface CpuProfile {
  /** Monotonic µs (process.hrtime's clock) of the first sample's base. */
  startTime?: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Breakdown {
  /** Milliseconds of CPU by part (idle excluded). */
  ms: Record<Part, number>;
  busyMs: number;
  idleMs: number;
}

/** Sums a profile's samples into the engine's parts. */
export function breakdownOf(profile: CpuProfile): Breakdown {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const partOfNode = new Map<number, Part | 'idle'>();
  const resolve = (id: number): Part | 'idle' => {
    const known = partOfNode.get(id);
    if (known) return known;
    const leaf = byId.get(id) as ProfileNode;
    const fn = leaf.callFrame.functionName;
    let part: Part | 'idle' | null =
      fn === '(idle)' ? 'idle' : fn === '(garbage collector)' ? 'gc' : fn === '(program)' ? 'node & libuv' : null;
    // The innermost engine file wins; a library frame counts only when no engine frame is above it.
    let lib: Part | null = null;
    for (let cur: number | undefined = id; part === null && cur !== undefined; cur = parent.get(cur)) {
      const url = (byId.get(cur) as ProfileNode).callFrame.url;
      const p = partOfUrl(url);
      if (p && url.includes('/electron/engine/')) part = p;
      else if (p && lib === null) lib = p;
    }
    const out = part ?? lib ?? 'node & libuv';
    partOfNode.set(id, out);
    return out;
  };
  const ms = Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    const p = resolve(profile.samples[i] as number);
    if (p === 'idle') idle += dt;
    else ms[p] += dt;
  }
  const busyMs = PARTS.reduce((s, p) => s + ms[p], 0);
  return { ms, busyMs, idleMs: idle };
}

/**
 * What ran while the event loop was blocked: the profile's samples inside the given windows
 * (monotonic µs, the clock V8 stamps its samples with and process.hrtime reads: lib/loop-lag.ts
 * gives the windows of the late turns), charged to the outermost engine function on each stack —
 * the entry the loop called (a timer, a socket's handler, a resolved promise, a setImmediate) —
 * or, with no engine frame, to GC, Node's own machinery or the library on the stack. On a starved
 * machine a window also holds time the process was not scheduled, charged to whatever was on the
 * stack then.
 */
export function whatRanIn(
  profile: CpuProfile,
  windows: readonly [number, number][],
): { ms: number; by: [string, number][] } {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const entries = new Map<number, string>();
  const entryOf = (id: number): string => {
    const known = entries.get(id);
    if (known) return known;
    const fn = (byId.get(id) as ProfileNode).callFrame.functionName;
    let outer: ProfileNode | null = null;
    let lib: string | null = null;
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur) as ProfileNode;
      if (n.callFrame.url.includes('/electron/engine/')) outer = n;
      else lib ??= /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(n.callFrame.url)?.[1] ?? null;
    }
    const entry =
      fn === '(idle)' || fn === '(garbage collector)' || fn === '(program)'
        ? fn
        : outer
          ? `${outer.callFrame.url.replace(/^.*\/electron\/engine\//, '')} ${outer.callFrame.functionName || '(anonymous)'}`
          : `(${lib ?? 'node'})`;
    entries.set(id, entry);
    return entry;
  };
  const sorted = [...windows].sort((a, b) => a[0] - b[0]);
  const by = new Map<string, number>();
  let total = 0;
  let t = profile.startTime ?? 0;
  let w = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    while (w < sorted.length && (sorted[w] as [number, number])[1] < t) w++;
    if (w >= sorted.length) break;
    if (t < (sorted[w] as [number, number])[0]) continue;
    // A sample stands for the time until the next one.
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const e = entryOf(profile.samples[i] as number);
    if (e === '(idle)') continue;
    by.set(e, (by.get(e) ?? 0) + ms);
    total += ms;
  }
  return { ms: total, by: [...by].sort((a, b) => b[1] - a[1]) };
}
