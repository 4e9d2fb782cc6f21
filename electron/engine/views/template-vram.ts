/**
 * `templates.vram`: a template's declared VRAM beside what the farm learned, per GPU model — the
 * numbers of its latest version's measured runs, and which one admission uses for the template's
 * own size (scheduler/vram-need.ts decides; this only shows it).
 */
import type { TemplateGpuVram, TemplateVramView, VramPin } from '../../../shared/vram-need.js';
import { round1 } from '../../../shared/vram-need.js';
import { jobVram, percentile, vramOn, type LearnRules } from '../scheduler/vram-need.js';
import type { StoredTemplate } from '../store/template-store.js';
import type { LearnedRow } from '../store/vram-sample-store.js';
import { jobPixels } from '../templates/job-size.js';

export function templateVramView(
  t: StoredTemplate,
  rows: readonly LearnedRow[],
  pin: VramPin,
  rules: LearnRules,
): TemplateVramView {
  const v = jobVram(t.vramGb, jobPixels(t.workflow, t.parameters, '{}'), rows, rules, pin);
  const gpus = [...new Set(rows.map((r) => r.gpu))].sort().map((gpu): TemplateGpuVram => {
    const ok = rows.filter((r) => r.gpu === gpu && r.outcome === 'ok').map((r) => r.needGb);
    const oom = rows.filter((r) => r.gpu === gpu && r.outcome === 'oom').map((r) => r.needGb);
    const use = vramOn(v, gpu);
    return {
      gpu,
      samples: ok.length,
      p95Gb: ok.length ? round1(percentile(ok, 95)) : null,
      maxGb: ok.length ? round1(Math.max(...ok)) : null,
      ooms: oom.length,
      oomAboveGb: oom.length ? round1(Math.max(...oom)) : null,
      use: { ...use, gb: round1(use.gb) },
    };
  });
  return {
    name: t.name,
    version: t.version,
    templateId: t.id,
    declaredGb: t.vramGb,
    pin,
    learnAfter: rules.learnAfter,
    marginPct: rules.marginPct,
    gpus,
  };
}
