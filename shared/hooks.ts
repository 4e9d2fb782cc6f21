/**
 * Hook configuration (SPEC §8 "Hooks"): run a program or POST a webhook when a job completes or
 * fails for good, or when a forecast group turns late for its due time (issue 28). Hooks live ONLY in the operator's settings (settings key `hooks`): a shot list
 * is a file from outside, and letting it name a program to run would hand code execution to
 * whoever wrote the spreadsheet. Commands are a program plus an argument list, started without a
 * shell, so no job field or setting text is ever interpreted by a shell.
 *
 * Part of the contract: the API's hooks methods validate with these schemas.
 */
import { z } from 'zod';
import { httpUrlSchema, maskUrlSecrets } from './url.js';

export const HOOK_EVENTS = ['completed', 'failed', 'late'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** How a delivery stands: waiting for (another) try, delivered, or failed for good after its retries. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DEFAULT_HOOK_TIMEOUT_MS = 10_000;
export const DEFAULT_HOOK_RETRIES = 3;

const hookId = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be letters, digits, ".", "_" or "-" (e.g. notify-slack)');

const common = {
  id: hookId,
  /**
   * completed = the job completed; failed = it failed for good (failed_final or timeout_kill);
   * late = a project, episode or sequence's forecast passes its due time (once per due time).
   */
  on: z.array(z.enum(HOOK_EVENTS)).min(1, `must name at least one event: ${HOOK_EVENTS.join(', ')}`),
  /** How long one delivery may take before it is stopped and counted as failed. */
  timeoutMs: z
    .number()
    .int()
    .min(100)
    .max(10 * 60_000)
    .optional(),
  /** Further tries after a failed delivery (so retries 3 = at most 4 deliveries). */
  retries: z.number().int().min(0).max(10).optional(),
};

const webUrl = httpUrlSchema('https://chat.example/hooks/renders');

export const commandHookSchema = z.strictObject({
  ...common,
  kind: z.literal('command'),
  /** The program: an absolute path or a name found on PATH. Never run through a shell. */
  command: z.string().trim().min(1, 'must name the program to run'),
  /** Its arguments, each passed as is (no quoting, no globbing, no variables). */
  args: z.array(z.string()).max(100).optional(),
});

export const webhookHookSchema = z.strictObject({
  ...common,
  kind: z.literal('webhook'),
  url: webUrl,
});

export const hookSchema = z.discriminatedUnion('kind', [commandHookSchema, webhookHookSchema]);
export type HookConfig = z.infer<typeof hookSchema>;
export type CommandHook = z.infer<typeof commandHookSchema>;
export type WebhookHook = z.infer<typeof webhookHookSchema>;

export const hooksSchema = z
  .array(hookSchema)
  .max(50)
  .superRefine((hooks, ctx) => {
    const seen = new Set<string>();
    for (const [i, h] of hooks.entries()) {
      if (seen.has(h.id))
        ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `"${h.id}" is used by another hook` });
      seen.add(h.id);
    }
  });

/** The event a job's state notifies, if any. */
export function hookEventFor(state: string): HookEvent | null {
  if (state === 'completed') return 'completed';
  if (state === 'failed_final' || state === 'timeout_kill') return 'failed';
  return null;
}

/** Where a hook sends to, for lists and log lines: a webhook shows only its origin (its path may hold a token). */
export function hookTarget(h: HookConfig, full = false): string {
  if (h.kind === 'command')
    return [h.command, ...(h.args ?? [])]
      .map((a) => (/[\s"'\\]/.test(a) || a === '' ? JSON.stringify(a) : a))
      .join(' ');
  return full ? h.url : `${new URL(h.url).origin}/…`;
}

/** A hook as every answer shows it: a webhook's URL with its secrets masked (shared/url.ts). */
export function maskedHook(h: HookConfig): HookConfig {
  return h.kind === 'webhook' ? { ...h, url: maskUrlSecrets(h.url) } : h;
}
