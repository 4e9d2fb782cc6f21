/** An http(s) URL with a host, as a schema: workstation endpoints and webhooks share it. */
import { z } from 'zod';

export function httpUrlSchema(example: string) {
  return z
    .string()
    .trim()
    .refine((s) => {
      try {
        const u = new URL(s);
        return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
      } catch {
        return false;
      }
    }, `must be an http:// or https:// URL such as ${example}`);
}
