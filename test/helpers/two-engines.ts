/**
 * A second engine on a PostgreSQL farm's database: engine A, with no scheduler (as a one-shot CLI
 * command, or a host that shows the farm without running it), beside the farm's engine B, whose
 * scheduler runs. What A commits, B must hear (notices/), and the other way round.
 */
import type { TestContext } from 'node:test';
import { Engine } from '../../electron/engine/engine.js';
import type { Farm } from './farm.js';
import { makeTempDir } from './temp-dir.js';

/** Engine A on `farm`'s database, with a data folder of its own; closed when the test ends. */
export function secondEngine(ctx: TestContext, farm: Farm): Engine {
  const dir = makeTempDir('shotfarm-engine-a-');
  const logs: string[] = [];
  const a = new Engine({ dataDir: dir.path, databaseUrl: farm.store.databaseUrl, log: (m) => logs.push(m) });
  ctx.after(async () => {
    await a.close().catch(() => undefined);
    dir.cleanup();
  });
  return a;
}

/** Imports `shots` (txt2img keyframes of project P) through `engine`; resolves with the job ids once committed. */
export async function importThrough(engine: Engine, shots: string[], episode = 'E'): Promise<string[]> {
  const list = {
    project: 'P',
    episode,
    shots: shots.map((id) => ({ id, stage: 'keyframe', template: 'txt2img', priority: 'normal', parameters: {} })),
  };
  const preview = await engine.call('import.preview', { fileName: 'list.json', content: JSON.stringify(list) });
  const bad = preview.rows.filter((r) => r.status === 'error');
  if (bad.length) throw new Error(`import errors: ${JSON.stringify(bad.map((r) => r.errors))}`);
  const result = await engine.call('import.commit', { previewId: preview.previewId });
  return result.jobIds;
}
