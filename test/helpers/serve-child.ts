/**
 * `shotfarm --data DIR serve --port 0` in a process of its own (the real bin/shotfarm.js), for tests
 * that need the engine in another process: a CSP check on the real server, a kill -9 and restart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './engine.js';

export interface ServeChild {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT`, as serve printed it. */
  url: string;
  /** Resolves when the process has exited (however). */
  exited: Promise<void>;
  /** Everything it printed so far (for failure messages). */
  output: () => string;
}

/** Starts serve; resolves once it printed the URL (it serves, and its scheduler has started). */
export function serveChild(dataDir: string, staticDir: string): Promise<ServeChild> {
  const child = spawn(
    process.execPath,
    [join(REPO, 'bin/shotfarm.js'), '--data', dataDir, 'serve', '--port', '0', '--static', staticDir],
    {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SHOTFARM_DATA: dataDir },
    },
  );
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`shotfarm serve printed no URL within 30 s:\n${out}`)), 30_000);
    const take = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Open (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: m[1], exited, output: () => out });
      }
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`shotfarm serve exited (${child.exitCode ?? child.signalCode}) before serving:\n${out}`));
    });
  });
}
