/** The templates domain: register a template file (a new version when it changed), list the latest versions. */
import { listLatestTemplates, saveTemplate, toTemplateView } from '../store/template-store.js';
import { parseTemplateFile } from '../templates/template-file.js';
import type { DomainHandlers, EngineContext } from './context.js';

export function templateHandlers(ctx: EngineContext): DomainHandlers<'templates'> {
  return {
    'templates.list': async () => listLatestTemplates(ctx.db).map(toTemplateView),
    'templates.add': async ({ content, fileName }) => {
      const def = parseTemplateFile(content, fileName ?? 'template');
      return toTemplateView(saveTemplate(ctx.db, ctx.clock, def).template);
    },
  };
}
