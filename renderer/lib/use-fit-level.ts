/**
 * The least compact level (0 = fullest) at which an element's content fits its box: measured before
 * paint, one level more each pass while it overflows, back to 0 when the window resizes or the
 * content's reset key changes (then it steps up again, still before paint — no flicker). The component draws
 * itself more compactly as the level rises (the top bar's counts: words, then fewer words, then
 * numbers with hover labels).
 */
import { useEffect, useLayoutEffect, useState, type RefObject } from 'react';

/** `resetKey`: changes when the content may fit at a fuller level again (a count lost a digit, an item left). */
export function useFitLevel(ref: RefObject<HTMLElement | null>, max: number, resetKey: string): number {
  const [level, setLevel] = useState(0);
  const [width, setWidth] = useState(() => window.innerWidth);
  useEffect(() => {
    const resized = () => setWidth(window.innerWidth);
    window.addEventListener('resize', resized);
    return () => window.removeEventListener('resize', resized);
  }, []);
  // A resize starts over from the fullest form.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a resize starts over from the fullest form.
  useLayoutEffect(() => setLevel(0), [width]);
  // After every render: still overflowing? One step more compact.
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && level < max && el.scrollWidth > el.clientWidth + 1) setLevel(level + 1);
  });
  // Content that shrank may fit at a fuller level again: try from the fullest.
  // biome-ignore lint/correctness/useExhaustiveDependencies: new content (resetKey) starts over from the fullest form.
  useLayoutEffect(() => setLevel(0), [resetKey]);
  return level;
}
