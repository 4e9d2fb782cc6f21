/**
 * The templates domain: register a template file (a new version when it changed), list the latest
 * versions, show and pin what the farm learned of a template's VRAM, show what it learned of its
 * run time, and the runs behind both for the view's plots. A dry run checks a file with
 * the same parser and answers what would be stored (id 0 when it is not stored yet) — the Studio's
 * template dialog shows the parser's words as you edit.
 */
import { ShotfarmError } from '../../../shared/errors.js';
import { actorName } from '../../../shared/people.js';
import type { TemplateVramView } from '../../../shared/vram-need.js';
import {
  latestTemplate,
  listLatestTemplates,
  saveTemplate,
  type StoredTemplate,
  toTemplateView,
  versionFor,
} from '../store/template-store.js';
import { setVramPin, vramPinOf, vramSamplesOf } from '../store/vram-sample-store.js';
import { parseTemplateFile } from '../templates/template-file.js';
import { templateHistoryView } from '../views/template-history.js';
import { templateRunTimeView } from '../views/template-run-time.js';
import { templateVramView } from '../views/template-vram.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function templateHandlers(ctx: EngineContext): DomainHandlers<'templates'> {
  const templateNamed = (name: string): StoredTemplate => {
    const t = latestTemplate(ctx.db, name);
    if (!t) throw new ShotfarmError('not_found', `No template named ${name}: shotfarm templates list shows them.`);
    return t;
  };
  const vramOf = (name: string): TemplateVramView => {
    const t = templateNamed(name);
    return templateVramView(t, vramSamplesOf(ctx.db, t.id), vramPinOf(ctx.db, name), {
      learnAfter: ctx.settings.get('vram_learn_after'),
      marginPct: ctx.settings.get('vram_learn_margin_pct'),
    });
  };
  return {
    'templates.list': async () => listLatestTemplates(ctx.db).map(toTemplateView),
    'templates.add': async ({ content, fileName, dryRun }) => {
      const def = parseTemplateFile(content, fileName ?? 'template');
      if (!dryRun) {
        const saved = toTemplateView(saveTemplate(ctx.db, ctx.clock, def).template);
        ctx.others.templates();
        return saved;
      }
      const { version, existing } = versionFor(ctx.db, def);
      return toTemplateView(existing ?? { ...def, id: 0, version, createdAt: ctx.clock.now() });
    },
    'templates.vram': async ({ name }) => vramOf(name),
    'templates.runTimes': async ({ name }) => templateRunTimeView(ctx.db, templateNamed(name), ctx.clock.now()),
    'templates.history': async ({ name }) =>
      templateHistoryView(ctx.db, templateNamed(name), vramOf(name), ctx.clock.now()),
    'templates.pinVram': async ({ name, pin }, caller) => {
      vramOf(name);
      const farm = ctx.farm()?.vram;
      // Through the running farm when there is one: its next decision already counts the pin.
      if (farm) farm.pin(name, pin, actorName(caller));
      else setVramPin(ctx.db, name, pin, actorName(caller), ctx.clock.now());
      ctx.farm()?.kick();
      return vramOf(name);
    },
  };
}
