/**
 * `jobs why`'s VRAM lines: per GPU model of the registered workstations, the number admission counts
 * for this job and where it comes from — a workstation's override, learned runs, or the declaration.
 */
import { describeVramChoice } from '../../../shared/vram-need.js';
import { vramOn } from '../scheduler/vram-need.js';
import type { JobRow } from '../store/job-rows.js';
import type { TemplateCache } from '../templates/template-cache.js';
import type { FarmFacts } from './farm-facts.js';

export function vramWords(
  job: Pick<JobRow, 'template_id' | 'params_json' | 'stage' | 'vram_gb'>,
  facts: FarmFacts,
  templates: TemplateCache,
): string[] {
  const template = templates.get(job.template_id);
  const v = facts.vram?.(template, job.params_json);
  const seen = new Set<string>();
  const words: string[] = [];
  for (const i of facts.instances) {
    const gpu = i.gpuName ?? null;
    const override = i.vramOverrides[job.stage];
    const key = override === undefined ? (gpu ?? '') : `${i.name}\u001f${override}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (override !== undefined) {
      words.push(describeVramChoice({ gb: override, source: 'override', samples: 0, ooms: 0 }, i.name, job.vram_gb));
      continue;
    }
    const choice = v ? vramOn(v, gpu) : { gb: job.vram_gb, source: 'declared' as const, samples: 0, ooms: 0 };
    words.push(describeVramChoice(choice, gpu ?? 'a GPU not probed yet', job.vram_gb));
  }
  return words;
}
