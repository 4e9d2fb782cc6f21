/**
 * A farm with jobs in every state, for the layout and drawer tests: the finished and failed ones are
 * moved there through the state door (job-state.ts) on a farm whose scheduler has not started, so
 * no render has to fail or time out first; then the scheduler starts and one job really runs.
 */
import type { JobState } from '../../../shared/job-states.js';
import { transitionJob } from '../../../electron/engine/job-state.js';
import type { Farm } from '../../helpers/farm.js';
import { addTemplateVariant } from '../../helpers/template-variants.js';

export type SeededIds = Record<JobState | 'blocked', string[]>;

const by = (state: JobState, reason: string) => ({ to: state, reason, actor: 'e2e seed' });

/** Needs a farm made with `start: false` and one workstation whose prompts take long (the running job). */
export async function seedEveryState(farm: Farm, project = 'Moonfall', episode = 'ep101'): Promise<SeededIds> {
  const { engine } = farm;
  // A template needing a tag no workstation has: its job stays queued, marked blocked.
  await addTemplateVariant(engine, 'txt2img', { name: 'tagged-img2img', tags: ['img2img'] });
  const list = {
    project,
    episode,
    shots: [
      ...[
        'sq010_sh010',
        'sq010_sh020',
        'sq010_sh030',
        'sq020_sh040',
        'sq020_sh050',
        'sq020_sh060',
        'sq030_sh070',
        'sq030_sh080',
        'sq030_sh090',
      ].map((id, i) => ({
        id,
        stage: 'keyframe',
        template: 'txt2img',
        ...(i === 6 ? { priority: 'rush' } : {}),
        parameters: { prompt: `shot ${id}`, steps: 12 },
      })),
      {
        id: 'sq040_sh100',
        stages: [
          { stage: 'keyframe', template: 'txt2img', parameters: { prompt: 'held keyframe' } },
          { stage: 'motion', template: 'video18', depends_on: 'keyframe' },
        ],
      },
      { id: 'sq040_sh110', stage: 'keyframe', template: 'tagged-img2img' },
    ],
  };
  const preview = await engine.call('import.preview', { fileName: 'seed.json', content: JSON.stringify(list) });
  await engine.call('import.commit', { previewId: preview.previewId });
  const bad = preview.rows.filter((r) => r.status !== 'new');
  if (bad.length) throw new Error(`seed rows refused: ${JSON.stringify(bad.map((r) => [r.shot, r.errors]))}`);
  const id = (shot: string, stage = 'keyframe') =>
    preview.rows.find((r) => r.shot === shot && r.stage === stage)?.jobId as string;
  const door = (jobId: string, ...steps: { to: JobState; reason: string; actor: string }[]) => {
    for (const s of steps)
      transitionJob(engine.db, engine.clock, {
        jobId,
        ...s,
        ...(s.to === 'failed_retryable' ? { patch: { not_before: engine.clock.now() + 3_600_000, attempts: 1 } } : {}),
      });
  };
  door(id('sq010_sh010'), by('running', 'seed'), by('completed', 'rendered'));
  door(
    id('sq010_sh020'),
    by('failed_final', 'KSampler (node 3) failed: RuntimeError: mat1 and mat2 shapes cannot be multiplied'),
  );
  door(
    id('sq010_sh030'),
    by('running', 'seed'),
    by('timeout_kill', 'no progress for 300 s (stall timeout); no attempts left'),
  );
  door(
    id('sq020_sh040'),
    by('running', 'seed'),
    by('failed_retryable', 'sim-0 answered HTTP 500; retry 2 of 4 after a short wait'),
  );
  await engine.call('jobs.hold', { ids: [id('sq020_sh050'), id('sq040_sh100')] });
  await engine.call('jobs.cancel', { ids: [id('sq020_sh060')] });
  farm.startScheduler();
  const rush = id('sq030_sh070');
  await farm.waitForStates([rush], ['running']);
  await farm.waitFor('the tagged job to be marked blocked', async () => (await farm.job(id('sq040_sh110'))).blocked);
  return {
    completed: [id('sq010_sh010')],
    failed_final: [id('sq010_sh020')],
    timeout_kill: [id('sq010_sh030')],
    failed_retryable: [id('sq020_sh040')],
    held: [id('sq020_sh050'), id('sq040_sh100')],
    cancelled: [id('sq020_sh060')],
    running: [rush],
    queued: [id('sq030_sh080'), id('sq030_sh090'), id('sq040_sh110')],
    pending: [id('sq040_sh100', 'motion')],
    blocked: [id('sq040_sh110')],
  };
}
