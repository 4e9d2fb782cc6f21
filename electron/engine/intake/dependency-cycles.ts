/**
 * `depends_on` cycles within a shot list (keyframe waits for motion, motion waits for keyframe):
 * every job on the cycle would wait forever, `pending`, so the preview refuses those rows. Pure.
 * The graph is per shot, between stages (any take): the commit links a row to the same take of
 * its dependency, else to the newest take in the file, so a cycle of stages is a cycle of jobs.
 * Stored jobs cannot close a cycle — each was linked to an existing job when it was imported.
 */

export interface DependencyRow {
  project: string;
  episode: string;
  shot: string;
  stage: string;
  dependsOn: string | null;
}

const shotKey = (r: DependencyRow): string => `${r.project}\u001f${r.episode}\u001f${r.shot}`;

/**
 * For each row on a cycle, the stages of that cycle in words ("keyframe, motion"); rows not on one
 * are absent. A stage depending on itself is left to the caller's own message.
 */
export function dependencyCycles(rows: readonly DependencyRow[]): Map<number, string> {
  const byShot = new Map<string, Map<string, string[]>>();
  rows.forEach((r) => {
    if (!r.dependsOn || r.dependsOn === r.stage) return;
    const key = shotKey(r);
    let edges = byShot.get(key);
    if (!edges) byShot.set(key, (edges = new Map()));
    const out = edges.get(r.stage);
    if (out) out.push(r.dependsOn);
    else edges.set(r.stage, [r.dependsOn]);
  });
  const cycleOf = new Map<string, string>();
  for (const [key, edges] of byShot) {
    for (const group of stronglyConnected(edges)) {
      if (group.length < 2) continue;
      const sorted = [...group].sort();
      const words =
        sorted.length > 6 ? `${sorted.slice(0, 6).join(', ')} and ${sorted.length - 6} more` : sorted.join(', ');
      for (const stage of group) cycleOf.set(`${key}\u001f${stage}`, words);
    }
  }
  const found = new Map<number, string>();
  if (cycleOf.size === 0) return found;
  rows.forEach((r, i) => {
    const c = cycleOf.get(`${shotKey(r)}\u001f${r.stage}`);
    if (c && r.dependsOn) found.set(i, c);
  });
  return found;
}

/**
 * Tarjan's strongly connected components, iterative: a hostile list may chain 100,000 stages of one
 * shot, deeper than the call stack. A component of two or more stages is a cycle.
 */
function stronglyConnected(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let counter = 0;
  for (const root of edges.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work[work.length - 1] as { node: string; next: number };
      const out = edges.get(frame.node) ?? [];
      if (frame.next < out.length) {
        const to = out[frame.next++] as string;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(to) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) === index.get(frame.node)) {
        const group: string[] = [];
        for (;;) {
          const s = stack.pop() as string;
          onStack.delete(s);
          group.push(s);
          if (s === frame.node) break;
        }
        groups.push(group);
      }
    }
  }
  return groups;
}
