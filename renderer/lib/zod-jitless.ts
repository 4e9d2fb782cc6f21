/**
 * Zod compiles object parsers with `new Function` when eval is allowed, and probes for it once — a
 * probe a strict CSP (no 'unsafe-eval', see electron/main/security.ts) reports as a violation even
 * though zod catches the error. The renderer never allows eval, so zod is told not to try.
 * Imported first by main.tsx, before anything parses.
 */
import { z } from 'zod';

z.config({ jitless: true });
