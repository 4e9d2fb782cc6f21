/** A waiting job as the forecast's simulation takes it (electron/engine/forecast/simulate.ts): an 8 GB normal job of template 1 on sdxl, unless told. */
import type { SimJob } from '../../electron/engine/forecast/simulate.js';

export const simJob = (id: string, over: Partial<SimJob> = {}): SimJob => ({
  id,
  project: 'p',
  priority: 100,
  rank: 0,
  enqueuedAt: 0,
  templateId: 1,
  bucket: 'b',
  vramGb: 8,
  tags: [],
  checkpoint: 'sdxl',
  dependsOn: null,
  ...over,
});
