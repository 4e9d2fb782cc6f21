/**
 * instances.addMany: a list of workstations stored all together or not at all. Inside one write
 * transaction (so no name or URL can be taken meanwhile) the entries are named (from their hosts
 * when the list gives no name), checked against the registered ones and each other, and inserted;
 * any problem rolls the whole list back and is reported at its entry. Then they are probed —
 * PROBE_PARALLEL at a time — and what each answered is recorded, as `shotfarm health` does.
 */
import type { ApiInput } from '../../../shared/api.js';
import { ShotfarmError } from '../../../shared/errors.js';
import {
  nameEntries,
  problemLines,
  type BatchProblem,
  type WorkstationBatchResult,
} from '../../../shared/workstation-batch.js';
import { isHealthy } from '../../../shared/domain.js';
import { healthAfterProbe } from '../health/probe.js';
import { probeMany } from '../health/probe-many.js';
import { randomId } from '../ids.js';
import { inTransaction } from '../store/database.js';
import { insertInstance, listInstanceRows, normaliseUrl, recordProbe } from '../store/instance-store.js';
import type { EngineContext } from './context.js';

/** How many problems the message itself lists (all of them are in details.problems). */
const LISTED = 20;

function refusal(problems: readonly BatchProblem[]): ShotfarmError {
  const lines = problemLines(problems);
  const more = lines.length > LISTED ? `; and ${lines.length - LISTED} more` : '';
  return new ShotfarmError(
    'bad_input',
    `No workstation was added: ${lines.length} problem(s) in the list. ${lines.slice(0, LISTED).join('; ')}${more}.`,
    {
      details: { problems: problems.map((p) => ({ source: p.source, message: p.message })) },
    },
  );
}

/** Stores the whole list in one transaction, or throws with every problem and stores nothing. */
function store(ctx: EngineContext, input: ApiInput<'instances.addMany'>): { id: string; url: string; name: string }[] {
  return inTransaction(ctx.db, () => {
    const rows = listInstanceRows(ctx.db);
    const named = nameEntries(input.workstations, new Set(rows.map((r) => r.name)));
    const problems = [...named.problems];
    // URL → the words for who has it already.
    const urls = new Map(rows.map((r) => [r.url, `already used by workstation "${r.name}"`]));
    for (const e of named.entries) {
      const url = normaliseUrl(e.url);
      const owner = urls.get(url);
      if (owner) problems.push({ source: e.source, message: `${url} is ${owner}` });
      else urls.set(url, `also on ${e.source}`);
    }
    // In the list's order: each entry's problems together.
    const order = new Map(input.workstations.map((w, i) => [w.source, i]));
    if (problems.length)
      throw refusal(problems.sort((a, b) => (order.get(a.source) ?? 0) - (order.get(b.source) ?? 0)));
    const now = ctx.clock.now();
    return named.entries.map((e) => {
      const id = randomId();
      insertInstance(ctx.db, id, e, now);
      return { id, url: normaliseUrl(e.url), name: e.name };
    });
  });
}

export async function addWorkstations(
  ctx: EngineContext,
  input: ApiInput<'instances.addMany'>,
  timeoutMs: number,
): Promise<WorkstationBatchResult> {
  const added = store(ctx, input);
  const probes = await probeMany(
    added.map((a) => a.url),
    timeoutMs,
  );
  const now = ctx.clock.now();
  const instances = added.map((a, i) => {
    const probe = probes[i] as (typeof probes)[number];
    recordProbe(ctx.db, a.id, probe, now);
    return {
      id: a.id,
      name: a.name,
      url: a.url,
      healthy: isHealthy(healthAfterProbe('active', probe)),
      error: probe.ok ? null : probe.error,
    };
  });
  return { added: added.length, healthy: instances.filter((i) => i.healthy).length, instances };
}
