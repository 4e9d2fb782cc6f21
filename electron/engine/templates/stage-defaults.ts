/** Per-stage defaults from SPEC §3 and §5, used when a template does not say otherwise. */
export const STAGE_VRAM_GB: Readonly<Record<string, number>> = { keyframe: 10, motion: 18 };
export const STAGE_TIMEOUT_S: Readonly<Record<string, number>> = { keyframe: 480, motion: 900 };
export const DEFAULT_VRAM_GB = 8;
export const DEFAULT_TIMEOUT_S = 600;

export function defaultVramGb(stage: string): number {
  return STAGE_VRAM_GB[stage] ?? DEFAULT_VRAM_GB;
}

export function defaultTimeoutS(stage: string): number {
  return STAGE_TIMEOUT_S[stage] ?? DEFAULT_TIMEOUT_S;
}
