/**
 * The farm the screenshot tour shows: studio-sized and awkward on purpose. 123,456 queued (copies
 * of one row, test/helpers/job-copies.ts), 12,345 failed, real failures with ComfyUI's traceback
 * from a simulator scripted to error, finished outputs with thumbnails for the Ledger, two renders
 * running with one prompt next (prefetch), long project, episode, shot and workstation names, a
 * workstation that never answers (the offline banner), a draining one and a RunPod endpoint whose
 * daily budget is $0. People are added later (`addPeople`): the solo pages come first.
 */
import type { Role } from '../../shared/people.js';
import { startServer, type RunningServer } from '../../electron/server/server.js';
import { startFarm, type Farm } from '../helpers/farm.js';
import { copyJob } from '../helpers/job-copies.js';
import { addTemplateVariant } from '../helpers/template-variants.js';
import { SIM_KEY } from '../helpers/cloud-farm.js';
import { startSimInstance, type SimInstance } from '../simulator/index.js';
import { startRunpodSim, type RunpodSim } from '../simulator/runpod/server.js';

export const PROJECT = 'Moonfall_The_Long_Winter_Directors_Cut';
export const EPISODE = 'ep101_the_harbour_at_night';
export const LONG_WORKSTATION = 'lighting-dept-floor3-rtx6000-ada-workstation-07';
export const OFFLINE_WORKSTATION = 'compositing-annex-render-node-12';
export const ENDPOINT = 'runpod-rtx4090-studio-burst-endpoint-eu-west';
export const QUEUED = 123_456;
export const FAILED = 12_345;

/** One person per role the tour signs in as: long names, as a studio's directory gives them. */
export const PEOPLE: { name: string; role: Role }[] = [
  { name: 'maximiliana.fitzgerald-okonkwo', role: 'admin' },
  { name: 'bartholomew.vandersloot-ops', role: 'operator' },
  { name: 'anneliese.castellanos-ruiz', role: 'artist' },
];

const shot = (sq: number, sh: number, what: string) =>
  `sq${String(sq).padStart(4, '0')}_sh${String(sh).padStart(4, '0')}_${what}`;

export interface TourFarm {
  farm: Farm;
  server: RunningServer;
  /** A failed job with ComfyUI's traceback, the artist's own jobs. */
  ids: { failed: string; artistJobs: string[] };
  /** A job whose prompt has started on its workstation now (not one waiting there next). */
  rendering(): Promise<string>;
  /** Tokens by role, once `addPeople` ran. */
  tokens: Partial<Record<Role, string>>;
  addPeople(): Promise<void>;
  close(): Promise<void>;
}

async function importList(farm: Farm, shots: string[], template = 'txt2img'): Promise<string[]> {
  const content = JSON.stringify({
    project: PROJECT,
    episode: EPISODE,
    shots: shots.map((id) => ({
      id,
      stage: 'keyframe',
      template,
      parameters: { prompt: `${id.replaceAll('_', ' ')}, anamorphic, volumetric fog`, steps: 8 },
    })),
  });
  const preview = await farm.engine.call('import.preview', { fileName: 'studio.json', content });
  await farm.engine.call('import.commit', { previewId: preview.previewId });
  return preview.rows.map((r) => r.jobId as string);
}

export async function startTourFarm(staticDir: string): Promise<TourFarm> {
  // sim-0 renders for 15 minutes (the running rows); sim-1 errors four times then renders fast.
  const farm = await startFarm({
    instances: [
      { duration: { fixedMs: 900_000 } },
      { script: ['error', 'error', 'error', 'error'], duration: { fixedMs: 80 } },
    ],
    start: false,
    // The 15-minute renders send no progress: no stall kill, and a template with a long time limit.
    // The simulators share this process with the engine and the server; a 123k-row query or the
    // copies' insert holds the event loop for seconds, which the short test grace would call lost contact.
    config: { prefetch: true, runpodPollMs: 500, stallTimeoutS: 3_600, graceMs: 300_000, requestTimeoutMs: 60_000 },
  });
  const extra: SimInstance[] = [];
  let runpod: RunpodSim | undefined;
  let server: RunningServer | undefined;
  try {
    const { engine } = farm;
    const [sim0, sim1] = (await engine.call('instances.list', {})).map((i) => i.id) as [string, string];
    // Phase 1, on sim-1 alone: four real failures (ComfyUI's traceback) and three outputs.
    await engine.call('instances.setAdminState', { id: sim0, adminState: 'disabled' });
    const early = await importList(farm, [
      shot(10, 10, 'harbour_establishing_wide_night_rain'),
      shot(10, 20, 'harbour_master_closeup_lantern_flicker'),
      shot(10, 30, 'ferry_arrival_crane_down_reveal'),
      shot(10, 40, 'crowd_on_pier_long_lens_compression'),
      shot(20, 10, 'lighthouse_exterior_storm_lightning'),
      shot(20, 20, 'lighthouse_keeper_stairs_handheld'),
      shot(20, 30, 'lamp_room_glass_reflections_macro'),
    ]);
    farm.startScheduler();
    const final = await farm.waitForStates(early, ['completed', 'failed_final'], 60_000);
    const failed = final.find((j) => j.state === 'failed_final');
    if (!failed) throw new Error('the scripted workstation made no failure');
    await engine.call('instances.setAdminState', { id: sim1, adminState: 'draining' });
    await engine.call('instances.setAdminState', { id: sim0, adminState: 'active' });

    // Phase 2: a long-named workstation, an offline one, a RunPod endpoint on a $0 budget.
    const long = await startSimInstance({ name: LONG_WORKSTATION, duration: { fixedMs: 900_000 } });
    extra.push(long);
    await engine.call('instances.add', { name: LONG_WORKSTATION, url: long.url, tags: ['keyframe', 'lighting'] });
    await engine.call('instances.add', { name: OFFLINE_WORKSTATION, url: 'http://127.0.0.1:9' });
    runpod = await startRunpodSim({ apiKey: SIM_KEY, workers: 2, comfy: { duration: { fixedMs: 900_000 } } });
    await engine.call('cloud.setApiKey', { apiKey: SIM_KEY });
    await engine.call('cloud.addRunpod', {
      name: ENDPOINT,
      endpointId: runpod.endpointId,
      apiBase: runpod.apiBase,
      gpuName: 'RTX 4090',
      vramGb: 24,
      pricePerHourUsd: 0.69,
      maxConcurrency: 2,
    });

    await addTemplateVariant(engine, 'txt2img', { name: 'keyframe-hero-lighting', timeout_s: 3_600 });
    // The queue: a few real rows, then copies up to 123,456 queued and 12,345 failed.
    const queued = await importList(
      farm,
      Array.from({ length: 8 }, (_, i) => shot(30 + (i % 3) * 10, 10 + i * 10, 'market_square_dolly_through_stalls')),
      'keyframe-hero-lighting',
    );
    await farm.waitFor(
      'two renders and a next prompt',
      async () => {
        const s = await engine.call('farm.status', {});
        return s.jobsByState.running - s.jobsNext >= 2 && s.jobsNext >= 1;
      },
      30_000,
    );
    const still = (await Promise.all(queued.map((id) => engine.call('jobs.get', { id })))).filter(
      (j) => j.state === 'queued',
    );
    const base = still[still.length - 1];
    if (!base) throw new Error('no queued job to copy');
    copyJob(engine.db, base.id, QUEUED - still.length, 'queued', 1_000);
    copyJob(
      engine.db,
      failed.id,
      FAILED - final.filter((j) => j.state === 'failed_final').length,
      'failed_final',
      500_000,
    );

    server = await startServer({ engine, staticDir, demoLabel: 'Demo farm' });
    const tokens: TourFarm['tokens'] = {};
    const s = server;
    const ids: TourFarm['ids'] = { failed: failed.id, artistJobs: [] };
    return {
      farm,
      server: s,
      ids,
      tokens,
      async rendering() {
        const list = await engine.call('jobs.list', { filter: { states: ['running'] } });
        const id = list.rows.find((j) => j.attempt?.startedAt != null)?.id;
        if (!id) throw new Error('nothing is rendering');
        return id;
      },
      async addPeople() {
        for (const p of PEOPLE) tokens[p.role] = (await engine.call('users.add', p)).token;
        // The artist's own jobs (Imported by, Mine, "only my N jobs").
        const artist = PEOPLE.find((p) => p.role === 'artist') as { name: string; role: Role };
        const preview = await engine.call('import.preview', {
          fileName: 'artist.json',
          content: JSON.stringify({
            project: PROJECT,
            episode: 'ep102_the_lighthouse_keepers_daughter',
            shots: [1, 2, 3].map((n) => ({
              id: shot(50, n * 10, 'keeper_daughter_window_rain_streaks'),
              stage: 'keyframe',
              template: 'txt2img',
            })),
          }),
        });
        const r = await engine.call('import.commit', { previewId: preview.previewId }, { kind: 'person', ...artist });
        ids.artistJobs = r.jobIds;
      },
      async close() {
        await s.close().catch(() => undefined);
        await farm.close();
        await Promise.all(extra.map((x) => x.close().catch(() => undefined)));
        await runpod?.close().catch(() => undefined);
      },
    };
  } catch (err) {
    await server?.close().catch(() => undefined);
    await farm.close();
    await Promise.all(extra.map((x) => x.close().catch(() => undefined)));
    await runpod?.close().catch(() => undefined);
    throw err;
  }
}
