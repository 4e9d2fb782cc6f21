/**
 * `templates.history`: what the Templates view plots for a template's latest version — each measured
 * run's VRAM against time and each completed run's length per GPU model — beside the figures the
 * farm learned from them, built by the same view builders as `templates.vram` and
 * `templates.runTimes` so the plot's lines are the table's numbers. Bounded: the newest
 * TEMPLATE_HISTORY_LIMIT points of each kind, oldest first, with how many there are in all.
 */
import {
  TEMPLATE_HISTORY_LIMIT,
  type TemplateHistoryView,
  type TemplateRunPoint,
} from '../../../shared/template-history.js';
import type { TemplateVramView } from '../../../shared/vram-need.js';
import type { Db } from '../store/database.js';
import type { StoredTemplate } from '../store/template-store.js';
import { vramPointsOf } from '../store/vram-sample-store.js';
import { runsOfTemplate, templateRunTimeView } from './template-run-time.js';

export function templateHistoryView(
  db: Db,
  t: StoredTemplate,
  vram: TemplateVramView,
  now: number,
): TemplateHistoryView {
  const limit = TEMPLATE_HISTORY_LIMIT;
  const measured = vramPointsOf(db, t.id, limit);
  // The model's samples come in the order they reached their GPU: the newest are the last.
  const runs = runsOfTemplate(db, t, now);
  const runPoints = runs
    .slice(-limit)
    .map((s): TemplateRunPoint => ({ at: s.at, gpu: s.gpuName, ms: Math.round(s.ms), cold: s.cold }));
  return {
    name: t.name,
    version: t.version,
    templateId: t.id,
    limit,
    vram,
    vramTotal: measured.total,
    vramPoints: measured.points,
    runTimes: templateRunTimeView(db, t, now),
    runTotal: runs.length,
    runPoints,
  };
}
