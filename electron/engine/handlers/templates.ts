/**
 * The templates domain: register a template file (a new version when it changed), list the latest
 * versions. A dry run checks a file with the same parser and answers what would be stored (id 0
 * when it is not stored yet) — the Studio's template dialog shows the parser's words as you edit.
 */
import { listLatestTemplates, saveTemplate, toTemplateView, versionFor } from '../store/template-store.js';
import { parseTemplateFile } from '../templates/template-file.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function templateHandlers(ctx: EngineContext): DomainHandlers<'templates'> {
  return {
    'templates.list': async () => listLatestTemplates(ctx.db).map(toTemplateView),
    'templates.add': async ({ content, fileName, dryRun }) => {
      const def = parseTemplateFile(content, fileName ?? 'template');
      if (!dryRun) return toTemplateView(saveTemplate(ctx.db, ctx.clock, def).template);
      const { version, existing } = versionFor(ctx.db, def);
      return toTemplateView(existing ?? { ...def, id: 0, version, createdAt: ctx.clock.now() });
    },
  };
}
