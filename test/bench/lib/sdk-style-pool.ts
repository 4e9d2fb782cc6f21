/**
 * The least a ComfyUI pool client does (in the shape of @saintno/comfyui-sdk's ComfyPool, which the
 * `sdk` bench also runs itself: lib/comfyui-sdk-pool.ts): one WebSocket per server, the next prompt
 * posted as soon as the server says the last one is done (`executing` with node null), then its
 * outputs fetched (/history, then /view per image) and written to a folder. Everything in memory:
 * no store, no retries, no follow-up of a lost server — so its CPU per job is a floor, below the
 * SDK's own, that the engine's durable bookkeeping is shown against beside the SDK.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocket } from 'ws';

export interface SdkPrompt {
  promptId: string;
  prompt: Record<string, unknown>;
}

interface HistoryImage {
  filename: string;
  subfolder: string;
  type: string;
}

async function collect(url: string, promptId: string, outDir: string): Promise<number> {
  const h = (await (await fetch(`${url}/history/${promptId}`)).json()) as Record<
    string,
    { outputs?: Record<string, { images?: HistoryImage[] }> }
  >;
  let files = 0;
  for (const node of Object.values(h[promptId]?.outputs ?? {})) {
    for (const img of node.images ?? []) {
      const q = new URLSearchParams({ filename: img.filename, subfolder: img.subfolder, type: img.type });
      const bytes = Buffer.from(await (await fetch(`${url}/view?${q}`)).arrayBuffer());
      writeFileSync(join(outDir, `${promptId}-${img.filename.replace(/[^\w.-]/g, '_')}`), bytes);
      files++;
    }
  }
  return files;
}

/** Runs every prompt over the servers; resolves when all are done or the deadline passed. */
export function runSdkStylePool(
  urls: string[],
  prompts: SdkPrompt[],
  outDir: string,
  deadlineMs: number,
): Promise<{ completed: number; failed: number; files: number; finished: boolean }> {
  mkdirSync(outDir, { recursive: true });
  const todo = [...prompts];
  const total = prompts.length;
  let completed = 0;
  let failed = 0;
  let files = 0;
  const sockets: WebSocket[] = [];
  return new Promise((resolve) => {
    let settled = false;
    const end = (finished: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const s of sockets) s.terminate();
      resolve({ completed, failed, files, finished });
    };
    const timer = setTimeout(() => end(false), deadlineMs);
    for (const url of urls) {
      const clientId = randomUUID();
      let current: string | null = null;
      const next = async (): Promise<void> => {
        const p = todo.shift();
        current = p?.promptId ?? null;
        if (!p) return;
        const r = await fetch(`${url}/prompt`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: p.prompt, prompt_id: p.promptId, client_id: clientId }),
        });
        await r.arrayBuffer();
        if (!r.ok) {
          failed++;
          await next();
        }
      };
      const done = async (ok: boolean, id: string): Promise<void> => {
        if (ok) files += await collect(url, id, outDir);
        if (ok) completed++;
        else failed++;
        if (completed + failed >= total) return end(true);
        await next();
      };
      const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/ws?clientId=${clientId}`);
      sockets.push(ws);
      ws.on('open', () => void next());
      ws.on('error', () => undefined);
      ws.on('message', (data, isBinary) => {
        if (isBinary) return; // previews
        const m = JSON.parse(data.toString()) as { type: string; data: { node?: string | null; prompt_id?: string } };
        const id = current;
        if (id === null || m.data.prompt_id !== id) return;
        // ComfyUI sends `executing` node null after every prompt, failed ones too: the first end wins.
        const ok = m.type === 'executing' && m.data.node === null;
        if (!ok && m.type !== 'execution_error' && m.type !== 'execution_interrupted') return;
        current = null;
        void done(ok, id);
      });
    }
  });
}
