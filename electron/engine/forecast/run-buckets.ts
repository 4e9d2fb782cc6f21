/**
 * The parameters that move a run's length — image size, batch, frame count — folded into a coarse
 * bucket, so runs of a template at 1024² are not averaged with its 2048² runs, while small
 * differences (1024×576 vs 1024×640) still share their samples. Pure.
 */

/** The parameter names a shot list uses for each dimension (the sample templates' names first). */
const WIDTH = ['width', 'w'];
const HEIGHT = ['height', 'h'];
const BATCH = ['batch', 'batch_size'];
const FRAMES = ['frames', 'video_frames', 'length', 'frame_count'];

function numberOf(params: Readonly<Record<string, unknown>>, names: readonly string[]): number | null {
  for (const n of names) {
    const v = params[n];
    const x = typeof v === 'number' ? v : typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : NaN;
    if (Number.isFinite(x) && x > 0) return x;
  }
  return null;
}

/** Powers of two: 0.9 and 1.1 megapixels share a bucket, 1 and 4 do not. */
function log2Bin(x: number): number {
  return Math.round(Math.log2(x));
}

/**
 * The bucket of one job's parameters ("px20 b0 f5"; "-" for a dimension the job does not set, which
 * then runs at the template's own value and so shares the template's default bucket).
 */
export function bucketOf(paramsJson: string): string {
  let params: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(paramsJson) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) params = parsed as Record<string, unknown>;
  } catch {
    // Unreadable parameters are reported when the prompt is built; here they are the default bucket.
  }
  const w = numberOf(params, WIDTH);
  const h = numberOf(params, HEIGHT);
  const b = numberOf(params, BATCH);
  const f = numberOf(params, FRAMES);
  const px =
    w !== null && h !== null
      ? `px${log2Bin(w * h)}`
      : w !== null || h !== null
        ? `px~${log2Bin((w ?? h ?? 1) ** 2)}`
        : 'px-';
  return `${px} b${b === null ? '-' : log2Bin(b)} f${f === null ? '-' : log2Bin(f)}`;
}
