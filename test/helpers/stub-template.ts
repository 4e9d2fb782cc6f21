/**
 * A stored template as the VRAM sampler tests need one: an SDXL-sized empty latent (1024², batch 1)
 * declared at 10 GB, with the parameters a test maps (none by default).
 */
import type { StoredTemplate } from '../../electron/engine/store/template-store.js';

export function latentTemplate(parameters: Record<string, string> = {}): StoredTemplate {
  return {
    id: 7,
    name: 't',
    version: 1,
    workflow: { '5': { class_type: 'EmptyLatentImage', inputs: { width: 1024, height: 1024, batch_size: 1 } } },
    parameters,
    vramGb: 10,
  } as unknown as StoredTemplate;
}
