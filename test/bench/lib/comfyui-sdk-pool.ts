/**
 * The pool SDK issue 30 compared the engine with, run as its README shows: @saintno/comfyui-sdk's
 * ComfyPool (PICK_ZERO: the next prompt to a server with nothing queued) over one ComfyApi per
 * server, each prompt a CallWrapper run for its SaveImage node, then each image fetched with
 * `getImage` and written to a folder — what a user of that SDK writes to run a queue end to end.
 * A dev dependency, pinned, used only by the `sdk` bench.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CallWrapper, ComfyApi, ComfyPool, EQueueMode, type NodeData, PromptBuilder } from '@saintno/comfyui-sdk';
import type { SdkPrompt } from './sdk-style-pool.js';

interface SavedImage {
  filename: string;
  subfolder: string;
  type: string;
}

/** Runs `prompts` through a ComfyPool over `urls`; resolves with how many completed and files written. */
export async function runComfyuiSdkPool(
  urls: readonly string[],
  prompts: readonly SdkPrompt[],
  outDir: string,
  timeoutMs: number,
): Promise<{ completed: number; files: number }> {
  const apis = urls.map((u) => new ComfyApi(u));
  const pool = new ComfyPool(apis, EQueueMode.PICK_ZERO);
  let completed = 0;
  let files = 0;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.all(apis.map((a) => a.waitForReady()));
    const run = pool.batch(
      prompts.map((p) => async (api: ComfyApi) => {
        const save = Object.entries(p.prompt).find(
          ([, n]) => (n as { class_type?: string }).class_type === 'SaveImage',
        )?.[0];
        if (save === undefined) throw new Error('the prompt has no SaveImage node');
        const workflow = new PromptBuilder(p.prompt as NodeData, [], ['images']).setOutputNode('images', save);
        const result = (await new CallWrapper(api, workflow).run()) as { images?: { images?: SavedImage[] } } | false;
        if (!result) throw new Error(`prompt ${p.promptId} did not finish`);
        for (const img of result.images?.images ?? []) {
          const blob = await api.getImage(img);
          writeFileSync(
            join(outDir, `${p.promptId}-${img.filename.replace(/[^\w.-]/g, '_')}`),
            Buffer.from(await blob.arrayBuffer()),
          );
          files++;
        }
        completed++;
      }),
    );
    await Promise.race([
      run,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the ComfyPool run took over ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    pool.destroy();
  }
  return { completed, files };
}
