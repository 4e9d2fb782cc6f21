/**
 * Multi-select in the queue (click, shift-click range, ctrl/cmd-click toggle, select all) and the
 * actions on jobs. Which actions apply comes from `actionAllowed` (shared/job-states.ts); only the
 * jobs an action applies to are sent, so a mixed selection does what it can. Risky bulk actions ask
 * first (lib/bulk-policy.ts); every action's toast offers its undo while it is possible (lib/undo.ts).
 * The selection only ever holds jobs the current filter shows.
 */
import { actionAllowed, type JobAction } from '../../shared/job-states.js';
import type { JobView } from '../../shared/domain.js';
import type { Priority } from '../../shared/priorities.js';
import { errorMessage, type ShotfarmClient } from '../client/client.js';
import { confirmationFor } from '../lib/bulk-policy.js';
import { matchesFilter } from '../lib/filter-match.js';
import { notYoursHint, othersLeftAlone, ownSplit } from '../lib/own-jobs.js';
import { undoFor, undoToSend, UNDO_WORDS, type UndoPlan } from '../lib/undo.js';
import { cleanFilter } from './queue-slice.js';
import type { AppState, GetState, SelectionSlice, SetState } from './types.js';

const ALL_CHUNK = 5_000;

export const ACTION_LABEL: Record<JobAction, string> = {
  bump: 'Bump',
  moveToTop: 'Move to top',
  hold: 'Hold',
  release: 'Release',
  cancel: 'Cancel',
  retry: 'Retry',
  newTake: 'New take',
  uncancel: 'Undo cancel',
};

/** What a toast says an action did: "Held 303 jobs". */
const DONE_WORDS: Record<JobAction, string> = {
  bump: 'Bumped',
  moveToTop: 'Moved to the top:',
  hold: 'Held',
  release: 'Released',
  cancel: 'Cancelled',
  retry: 'Retried',
  newTake: 'New takes of',
  uncancel: 'Un-cancelled',
};

export function selectedJobs(s: Pick<AppState, 'selected' | 'jobs'>): JobView[] {
  const out: JobView[] = [];
  for (const id of s.selected) {
    const j = s.jobs[id];
    if (j) out.push(j);
  }
  return out;
}

export function applicableIds(jobs: readonly JobView[], action: JobAction): string[] {
  return jobs.filter((j) => actionAllowed(action, j.state)).map((j) => j.id);
}

const plural = (n: number) => `${n.toLocaleString()} job${n === 1 ? '' : 's'}`;

export function createSelectionSlice(set: SetState, get: GetState, client: ShotfarmClient): SelectionSlice {
  const instanceName = (id: string | null) => (id ? (get().instances[id]?.name ?? null) : null);

  /** Sends the action for the jobs it applies to; the toast offers the undo. */
  async function perform(
    action: JobAction,
    jobs: JobView[],
    skipped: number,
    opts: { priority?: Priority },
  ): Promise<void> {
    const ids = jobs.map((j) => j.id);
    try {
      let changed: JobView[];
      switch (action) {
        case 'bump':
          changed = await client.call('jobs.bump', { ids, priority: opts.priority ?? 'rush' });
          break;
        case 'moveToTop':
          changed = await client.call('jobs.moveToTop', { ids });
          break;
        case 'hold':
          changed = await client.call('jobs.hold', { ids });
          break;
        case 'release':
          changed = await client.call('jobs.release', { ids });
          break;
        case 'cancel':
          changed = await client.call('jobs.cancel', { ids });
          break;
        case 'retry':
          changed = await client.call('jobs.retry', { ids });
          break;
        case 'newTake':
          changed = await client.call('jobs.newTake', { ids });
          break;
        case 'uncancel':
          changed = await client.call('jobs.uncancel', { ids });
          break;
      }
      const plan = undoFor(
        action,
        jobs,
        changed.map((j) => j.id),
      );
      const to = action === 'bump' ? ` to ${opts.priority ?? 'rush'}` : '';
      get().notify(
        'success',
        `${DONE_WORDS[action]} ${plural(changed.length)}${to}.${skipped ? ` ${plural(skipped)} not applicable, left alone.` : ''}`,
        plan ?? undefined,
      );
      get().upsertJobs(changed);
      get().pruneSelection(changed.map((j) => j.id));
      get().reloadVisible();
      get().refreshStatus();
    } catch (err) {
      get().notify('error', errorMessage(err));
    }
  }

  async function sendUndo(plan: UndoPlan): Promise<JobView[]> {
    switch (plan.kind) {
      case 'release':
        return client.call('jobs.release', { ids: plan.ids });
      case 'hold':
        return client.call('jobs.hold', { ids: plan.ids });
      case 'uncancel':
        return client.call('jobs.uncancel', { ids: plan.ids });
      case 'restoreOrder':
        return client.call('jobs.restoreOrder', { jobs: plan.order });
    }
  }

  return {
    selected: new Set(),
    anchor: null,
    clickRow(index, { shift, toggle }) {
      const s = get();
      const id = s.idAt(index);
      if (!id) return;
      if (shift && s.anchor !== null) {
        const next = new Set(toggle ? s.selected : []);
        const [a, b] = s.anchor < index ? [s.anchor, index] : [index, s.anchor];
        for (let i = a; i <= b; i++) {
          const rid = s.idAt(i);
          if (rid) next.add(rid);
        }
        set({ selected: next });
      } else if (toggle) {
        const next = new Set(s.selected);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        set({ selected: next, anchor: index });
      } else {
        set({ selected: new Set([id]), anchor: index });
      }
    },
    async selectAll() {
      // Rows of every job the filter shows, in chunks: the actions need their states.
      const { query, generation, total } = get();
      const ids = new Set<string>();
      try {
        for (let offset = 0; offset < Math.max(total, 1); offset += ALL_CHUNK) {
          const page = await client.call('jobs.list', {
            filter: cleanFilter(query.filter),
            sort: query.sort,
            descending: query.descending,
            offset,
            limit: ALL_CHUNK,
          });
          if (get().generation !== generation) return;
          for (const r of page.rows) ids.add(r.id);
          get().upsertJobs(page.rows);
          if (page.rows.length < ALL_CHUNK) break;
        }
        set({ selected: ids });
      } catch (err) {
        get().notify('error', errorMessage(err));
      }
    },
    clearSelection() {
      set({ selected: new Set(), anchor: null });
    },
    pruneSelection(ids) {
      const s = get();
      if (s.selected.size === 0) return;
      const filter = cleanFilter(s.query.filter);
      const hidden: string[] = [];
      for (const id of ids ?? s.selected) {
        const j = s.jobs[id];
        if (j && s.selected.has(id) && !matchesFilter(j, filter)) hidden.push(id);
      }
      if (hidden.length === 0) return;
      const next = new Set(s.selected);
      for (const id of hidden) next.delete(id);
      set({ selected: next, anchor: null });
    },
    runAction(action, opts = {}) {
      return get().runActionOn([...get().selected], action, opts);
    },
    async runActionOn(ids, action, opts = {}) {
      const s = get();
      const jobs = ids.map((id) => s.jobs[id]).filter((j): j is JobView => j !== undefined);
      let applicable = jobs.filter((j) => actionAllowed(action, j.state));
      if (applicable.length === 0) return;
      // An artist acts on the jobs they imported: a mixed selection offers "only my N jobs" (one
      // question, with what the action itself would ask), never a whole-selection refusal at the end.
      const session = get().session;
      const own = ownSplit(session, action, applicable);
      if (own && session && own.mine.length === 0) return get().notify('error', notYoursHint(session, action));
      const mixed = own !== null && own.others > 0;
      const of = applicable.length;
      if (own) applicable = own.mine;
      const skipped = jobs.length - applicable.length;
      const question = confirmationFor(action, applicable, instanceName);
      if (mixed && own) {
        const label = `${ACTION_LABEL[action]} only my ${plural(own.mine.length)}`;
        get().ask({
          title: `${label}?`,
          summary: othersLeftAlone(own.others, of),
          details: question ? [question.summary, ...question.details] : [],
          confirmLabel: label,
          danger: question?.danger ?? action === 'cancel',
          onConfirm: () => void perform(action, applicable, skipped, opts),
        });
      } else if (question) get().ask({ ...question, onConfirm: () => void perform(action, applicable, skipped, opts) });
      else await perform(action, applicable, skipped, opts);
    },
    async undo(id) {
      const entry = get().undoable.find((u) => u.id === id);
      if (!entry) return;
      const verdict = undoToSend(entry, get().session, get().jobs);
      if (verdict.kind === 'gone') return get().expireUndo(id);
      if (verdict.kind === 'refused') {
        get().expireUndo(id);
        return get().notify('error', `Could not undo: ${verdict.why}`);
      }
      const { plan, othersLeft } = verdict;
      try {
        const changed = await sendUndo(plan);
        get().expireUndo(id);
        get().dismiss(id);
        const left = othersLeft > 0 ? ` ${othersLeft.toLocaleString()} imported by others left alone.` : '';
        get().notify('success', `Undone: ${plural(changed.length)} ${UNDO_WORDS[plan.kind]}.${left}`);
        get().upsertJobs(changed);
        get().reloadVisible();
        get().refreshStatus();
      } catch (err) {
        get().notify('error', `Could not undo: ${errorMessage(err)}`);
      }
    },
  };
}
