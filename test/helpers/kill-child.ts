/** Runs an engine on a data folder in a child process (engine-child.ts) and kills it with SIGKILL at a chosen moment. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { REPO } from './engine.js';
import { waitUntil } from './wait.js';

/** Runs the engine in a child process until `until` holds, then SIGKILLs it. */
export async function runAndKill(dir: string, out: string, until: () => boolean): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'test/helpers/engine-child.ts'), dir, out], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => void (stdout += c.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    await waitUntil(() => stdout.includes('ready'), {
      what: 'the engine child to load',
      timeoutMs: 60_000,
      pollMs: 20,
    });
    child.stdin.write('go\n');
    await waitUntil(until, { what: 'the moment to kill', timeoutMs: 30_000, pollMs: 10 });
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

/** The job's first attempt as the folder's database holds it now (read-only, beside the running child); undefined while it has none. */
export function storedAttempt(dir: string, jobId: string): { runpod_job_id: string | null } | undefined {
  const db = new Database(join(dir, 'shotfarm.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT runpod_job_id FROM attempts WHERE job_id = ? ORDER BY n').get(jobId) as
      | { runpod_job_id: string | null }
      | undefined;
  } catch {
    return undefined; // the child is still migrating
  } finally {
    db.close();
  }
}
