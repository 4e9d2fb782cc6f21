/** UI figures (Chromium, 100k jobs in the queue view): measured once the renderer exists. */
import type { Benchmark } from './lib/types.js';

export const uiBench: Benchmark = {
  name: 'ui',
  description: 'queue view with 100k jobs in Chromium (stub)',
  async run() {
    return {
      figures: [{ figure: 'queue view, 100k jobs (scroll, filter, live updates)', target: '—', measured: 'not measured yet (UI not built)', verdict: 'N/A' }],
      details: { measured: false },
    };
  },
};
