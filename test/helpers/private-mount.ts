/**
 * Runs `shotfarm` commands on a small file system of their own: a tmpfs mounted in a private mount
 * namespace (`unshare -rm`, as root or through an unprivileged user namespace), so a test can fill
 * the disk or make it read-only without touching the machine. Where the kernel refuses, tests
 * that need it skip with the reason (`privateMountUnavailable`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './engine.js';

let probed: string | null | undefined;

/** Why a private mount cannot be made here, or null when it can. */
export function privateMountUnavailable(scratch: string): string | null {
  if (probed !== undefined) return probed;
  const dir = join(scratch, 'probe-mount');
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('unshare', ['-rm', 'sh', '-c', `mount -t tmpfs -o size=64k tmpfs "${dir}" && touch "${dir}/x"`], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  probed = r.error
    ? `unshare is not available (${r.error.message})`
    : r.status === 0
      ? null
      : `a private tmpfs cannot be mounted here: ${(r.stderr || '').trim().slice(0, 200)}`;
  return probed;
}

export interface MountRun {
  /** Lines `shotfarm` printed, per command (stdout and stderr together), and its exit code. */
  results: { args: string[]; code: number; output: string }[];
}

/**
 * In one namespace: mounts a `sizeKb` tmpfs on `mountPoint`, runs `before` (each a shotfarm argument
 * list, `--data <mountPoint>/data` added), then `between` as shell (e.g. remount read-only), then
 * `after`. Every command's exit code is recorded; the mount vanishes with the namespace.
 */
export async function inPrivateMount(o: {
  mountPoint: string;
  sizeKb: number;
  before: string[][];
  between?: string;
  after: string[][];
}): Promise<MountRun> {
  mkdirSync(o.mountPoint, { recursive: true });
  const data = join(o.mountPoint, 'data');
  const cli = (args: string[], n: number): string => {
    const quoted = ['node', join(REPO, 'bin/shotfarm.js'), '--data', data, ...args]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    return `${quoted} > "$OUT/${n}" 2>&1; echo $? > "$OUT/${n}.code"`;
  };
  const all = [...o.before, ...o.after];
  const script = [
    'set -u',
    `mount -t tmpfs -o size=${o.sizeKb}k tmpfs '${o.mountPoint}' || exit 90`,
    ...o.before.map((a, i) => cli(a, i)),
    o.between ?? ':',
    ...o.after.map((a, i) => cli(a, o.before.length + i)),
  ].join('\n');
  const out = join(o.mountPoint, '..', `${Date.now()}-out`);
  mkdirSync(out, { recursive: true });
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn('unshare', ['-rm', 'sh', '-c', script], {
      env: { ...process.env, OUT: out, SHOTFARM_DATA: '' },
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('exit', (c) => resolve(c ?? 1));
  });
  if (code === 90) throw new Error('the tmpfs could not be mounted');
  return {
    results: all.map((args, n) => ({
      args,
      code: Number(readFileSync(join(out, `${n}.code`), 'utf8').trim()),
      output: readFileSync(join(out, String(n)), 'utf8'),
    })),
  };
}
