/**
 * Shot lists of the demo farm, in its own episodes (`Moonfall` / `demo-01`, `demo-02`, …) so they
 * never collide with the README's samples (episode `ep101`): dropping those into the demo imports
 * them as new jobs. Shots use the production templates: an SDXL img2img keyframe from one of the
 * sample plates, sometimes followed by an SVD motion clip made from that keyframe.
 */

export const DEMO_PROJECT = 'Moonfall';

/** `demo-01`, `demo-02`, … */
export function demoEpisode(n: number): string {
  return `demo-${String(n).padStart(2, '0')}`;
}

export interface DemoShot {
  /** Shot number within the episode: shot `sh010` is 1. */
  n: number;
  motion: boolean;
  rush: boolean;
}

const PROMPTS = [
  'Mira looks up at the broken moon, dusk',
  'close-up, the lantern flickers',
  'wide shot of the valley under moonlight',
  'the river carries the lantern away',
  'reflections of the broken moon',
  'Mira runs along the ridge',
  'owl takes off from a dead tree',
  'the village lights go out one by one',
  'Mira reaches the old observatory',
  'the telescope turns by itself',
];

/** The sample plates (resources/samples/plates), relative to the demo's import folder. */
const PLATES = ['plates/sh010.png', 'plates/sh020.png', 'plates/sh030.png'];

export function shotId(n: number): string {
  return `sh${String(n * 10).padStart(3, '0')}`;
}

/** A JSON shot list for one demo episode. */
export function demoShotList(episode: string, shots: DemoShot[], description = 'demo farm sample'): string {
  const list = shots.map((s) => {
    const keyframe = {
      stage: 'keyframe',
      template: 'keyframe-img2img',
      parameters: { prompt: PROMPTS[s.n % PROMPTS.length] ?? 'a shot', steps: 20 + (s.n % 3) * 5 },
      inputs: { image: PLATES[s.n % PLATES.length] ?? 'plates/sh010.png' },
    };
    const base = { id: shotId(s.n), description, ...(s.rush ? { priority: 'rush' } : {}) };
    if (!s.motion) return { ...base, ...keyframe };
    return {
      ...base,
      stages: [
        keyframe,
        { stage: 'motion', template: 'motion-i2v', depends_on: 'keyframe', parameters: { frames: 25 } },
      ],
    };
  });
  return JSON.stringify({ project: DEMO_PROJECT, episode, priority: 'normal', shots: list }, null, 2);
}

/** The first demo episode: 18 shots, every third with a motion stage, one rush shot. */
export function firstDemoEpisode(): string {
  return demoShotList(
    demoEpisode(1),
    Array.from({ length: 18 }, (_, i) => ({ n: i + 1, motion: i % 3 === 0, rush: i === 4 })),
  );
}
