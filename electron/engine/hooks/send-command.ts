/**
 * Runs a command hook: the program with its argument list, no shell, the delivery's JSON on
 * stdin. Exit code 0 is success; anything else, a spawn error or running past the deadline is a
 * failed try whose message says which, with the end of what the program wrote to stderr.
 */
import { spawn } from 'node:child_process';
import type { CommandHook } from '../../../shared/hooks.js';
import type { EngineEnv } from '../engine-env.js';

export interface SendContext {
  body: string;
  event: string;
  deliveryId: number;
  jobId: string;
  timeoutMs: number;
  /** Aborted on timeout or when the runner closes. */
  signal: AbortSignal;
  /** True once the signal fired because of the deadline (not a close). */
  timedOut: () => boolean;
  env: EngineEnv;
}

/** Enough of stderr to show why a program failed, without keeping a chatty program's output. */
const STDERR_KEEP = 2048;

function tail(text: string): string {
  const lines = text.trim().split(/\r?\n/).filter(Boolean);
  const last = lines.slice(-3).join(' | ');
  return last.length > 300 ? `…${last.slice(-300)}` : last;
}

export function sendCommand(hook: CommandHook, ctx: SendContext): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let stderr = '';
    const finish = (err?: Error): void => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve();
    };
    const child = spawn(hook.command, hook.args ?? [], {
      shell: false,
      stdio: ['pipe', 'ignore', 'pipe'],
      signal: ctx.signal,
      // Past its deadline the program gets no grace: a hook must never hold up the farm.
      killSignal: 'SIGKILL',
      windowsHide: true,
      env: {
        ...ctx.env,
        SHOTFARM_EVENT: ctx.event,
        SHOTFARM_JOB_ID: ctx.jobId,
        SHOTFARM_DELIVERY_ID: String(ctx.deliveryId),
      },
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (s: string) => {
      stderr = (stderr + s).slice(-STDERR_KEEP);
    });
    // A program that exits without reading stdin closes the pipe under us: not an error by itself.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(ctx.body);
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.name === 'AbortError') {
        finish(
          new Error(
            ctx.timedOut()
              ? `${hook.command} did not finish within ${ctx.timeoutMs / 1000} s and was stopped.`
              : `${hook.command} was stopped (Shotfarm is closing).`,
          ),
        );
      } else if (err.code === 'ENOENT') {
        finish(new Error(`The program ${hook.command} was not found (give its full path, or check PATH).`));
      } else if (err.code === 'EACCES') {
        finish(new Error(`The program ${hook.command} is not executable (permission denied).`));
      } else {
        finish(new Error(`${hook.command} could not be started: ${err.message}`));
      }
    });
    child.on('close', (code, signal) => {
      if (code === 0) return finish();
      const why = tail(stderr);
      const how = code !== null ? `exited with code ${code}` : `was killed by ${signal ?? 'a signal'}`;
      finish(new Error(`${hook.command} ${how}${why ? `: ${why}` : '.'}`));
    });
  });
}
