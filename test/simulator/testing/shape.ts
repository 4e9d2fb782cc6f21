// Structural fingerprint of a JSON value, for comparing the simulator with recorded ComfyUI answers
// where ids, timestamps and numbers legitimately differ: objects → sorted keys → shapes, arrays →
// the set of their element shapes, scalars → typeof (null stays 'null').

export type Shape = string | { [key: string]: Shape } | { arrayOf: Shape[] };

export function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const seen = new Map<string, Shape>();
    for (const v of value) {
      const s = shapeOf(v);
      seen.set(JSON.stringify(s), s);
    }
    return { arrayOf: [...seen.keys()].sort().map((k) => seen.get(k)!) };
  }
  if (typeof value === 'object') {
    const out: { [key: string]: Shape } = {};
    for (const k of Object.keys(value as object).sort()) out[k] = shapeOf((value as Record<string, unknown>)[k]);
    return out;
  }
  return typeof value;
}

/** Sets `path` (dot-separated keys, `[]` for "every array element") to `replacement` in a shape. */
export function maskShape(shape: Shape, path: string[], replacement: Shape): Shape {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (typeof shape === 'string') return shape;
  if ('arrayOf' in shape && head === '[]')
    return { arrayOf: (shape.arrayOf as Shape[]).map((s) => maskShape(s, rest, replacement)) };
  const obj = shape as { [key: string]: Shape };
  if (head === undefined || !(head in obj)) return shape;
  return { ...obj, [head]: maskShape(obj[head]!, rest, replacement) };
}

/** Deeply renames object keys and string values found in `map` (simulator ids → recorded ids). */
export function renameIds(value: unknown, map: Map<string, string>): unknown {
  if (typeof value === 'string') return map.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => renameIds(v, map));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [map.get(k) ?? k, renameIds(v, map)]));
  }
  return value;
}
