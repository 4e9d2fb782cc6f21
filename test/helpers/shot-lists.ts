/**
 * Shot lists a test builds in code: the studio-sized ones the import-at-scale tests feed through the
 * contract (one definition, so the tests that compare their figures import the same list).
 */

/** `shots` shots of two stages each (a keyframe, and a motion clip that waits for it): 2 × shots rows. */
export function twoStageList(shots: number, o: { prefix?: string; badTemplateEvery?: number } = {}): string {
  const list = [];
  for (let i = 0; i < shots; i++) {
    const bad = o.badTemplateEvery !== undefined && i % o.badTemplateEvery === o.badTemplateEvery - 1;
    list.push({
      id: `${o.prefix ?? 'sh'}${String(i).padStart(6, '0')}`,
      stages: [
        {
          stage: 'keyframe',
          template: bad ? 'no-such-template' : 'keyframe-img2img',
          parameters: { prompt: `shot ${i}` },
        },
        { stage: 'motion', template: 'motion-i2v', depends_on: 'keyframe', parameters: { frames: 25 } },
      ],
    });
  }
  return JSON.stringify({ project: 'Scale', episode: 'ep1', shots: list });
}

/**
 * `rows` one-stage shots (txt2img keyframes, each its own prompt); every `badTemplateEvery`-th names
 * a template that is not registered, so the preview has that many rows with errors.
 */
export function oneStageList(rows: number, o: { project: string; episode: string; badTemplateEvery: number }): string {
  const shots = [];
  for (let i = 0; i < rows; i++)
    shots.push({
      id: `sh${String(i).padStart(6, '0')}`,
      stage: 'keyframe',
      template: i % o.badTemplateEvery === o.badTemplateEvery - 1 ? 'no-such-template' : 'txt2img',
      parameters: { prompt: `shot ${i}` },
    });
  return JSON.stringify({ project: o.project, episode: o.episode, shots });
}
