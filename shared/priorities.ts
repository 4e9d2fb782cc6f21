/** Job priorities (SPEC §3): named for people, numeric underneath so the store can sort on them. */
export const PRIORITIES = ['rush', 'high', 'normal', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** Higher number = taken first. Gaps leave room for finer levels later without a migration. */
export const PRIORITY_VALUE: Readonly<Record<Priority, number>> = { rush: 300, high: 200, normal: 100, low: 0 };

export function isPriority(value: unknown): value is Priority {
  return typeof value === 'string' && (PRIORITIES as readonly string[]).includes(value);
}

export function priorityFromValue(value: number): Priority {
  if (value >= PRIORITY_VALUE.rush) return 'rush';
  if (value >= PRIORITY_VALUE.high) return 'high';
  if (value >= PRIORITY_VALUE.normal) return 'normal';
  return 'low';
}
