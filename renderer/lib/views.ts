/** The views, as a DOM-free list (the client validates shell commands against it). */
export const VIEWS = ['queue', 'workstations', 'failures', 'timeline', 'ledger', 'settings'] as const;
export type View = (typeof VIEWS)[number];

export function isView(v: unknown): v is View {
  return typeof v === 'string' && (VIEWS as readonly string[]).includes(v);
}
