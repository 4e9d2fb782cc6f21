/**
 * The import domain: a preview first (every row checked, nothing written), kept for the operator to
 * confirm, then the commit of its valid rows in one transaction.
 */
import type { ImportPreview, ImportRowView } from '../../../shared/domain.js';
import { ShotfarmError } from '../../../shared/errors.js';
import { actorName } from '../../../shared/people.js';
import { authorizeCreatedRush, createdRushRefusal } from '../auth/authorize.js';
import { randomId } from '../ids.js';
import { commitRows } from '../intake/commit-import.js';
import { readCsvShotList } from '../intake/csv-shot-list.js';
import { readJsonShotList } from '../intake/json-shot-list.js';
import { inputFolder } from '../intake/input-paths.js';
import { currentFarmPlaces } from '../files/farm-places.js';
import { uploadedInputs } from '../uploads/import-uploads.js';
import { checkRows, type CheckedRow } from '../intake/preview.js';
import { BIG_WRITE_ROWS, refreshPlannerStats } from '../store/job-store.js';
import { storageFailure } from '../store/storage-failure.js';
import { storeLabel } from '../store/store-target.js';
import { currentFarmFacts } from '../views/job-views.js';
import { checkShotListText } from '../intake/text-check.js';
import { parseDue } from '../../../shared/forecast.js';
import type { DomainHandlers, EngineContext } from './context.js';

interface StoredPreview {
  preview: ImportPreview;
  rows: CheckedRow[];
  /** The rows as pages show them, errors first and then in file order (made at the first page). */
  ordered: ImportRowView[] | null;
  createdAt: number;
  /** Who made it (actorName): it counts to their share of the kept previews. */
  by: string;
}

/** Previews are kept for the operator to confirm; after this they must be made again. */
const PREVIEW_TTL_MS = 60 * 60_000;
/**
 * Kept per person, and in all. A person's 21st preview drops their own oldest, never another's
 * (one shared pool of 20 once let one person evict everyone else's); past the total, the oldest of
 * whoever holds the most goes.
 */
const MAX_PREVIEWS_PER_PERSON = 20;
const MAX_PREVIEWS = 200;

function isCsv(fileName: string, content: string): boolean {
  return /\.(csv|tsv|txt)$/i.test(fileName) || (!/\.json$/i.test(fileName) && !content.trimStart().startsWith('{'));
}

const EXPIRED = 'This import preview has expired or was already imported; drop the file again.';

/** A kept preview's rows as pages show them: the rows with errors first, each group in file order. */
function orderedRows(p: StoredPreview): ImportRowView[] {
  if (!p.ordered) {
    const errors = p.preview.rows.filter((r) => r.status === 'error');
    p.ordered = errors.length ? [...errors, ...p.preview.rows.filter((r) => r.status !== 'error')] : p.preview.rows;
  }
  return p.ordered;
}

/** Whether committing these checked rows would store a rush job (duplicates and errors are not stored). */
function createsRush(rows: readonly { view: { status: string }; source: { priority: string } }[]): boolean {
  return rows.some((r) => r.view.status === 'new' && r.source.priority === 'rush');
}

export function importHandlers(ctx: EngineContext): DomainHandlers<'import'> {
  const previews = new Map<string, StoredPreview>();
  /** Makes room for one more preview of `by` (the map keeps insertion order: oldest first). */
  const prune = (by: string): void => {
    const now = ctx.clock.now();
    for (const [id, p] of previews) if (now - p.createdAt > PREVIEW_TTL_MS) previews.delete(id);
    const ids = (who: string): string[] => [...previews].filter(([, p]) => p.by === who).map(([id]) => id);
    const own = ids(by);
    while (own.length >= MAX_PREVIEWS_PER_PERSON) previews.delete(own.shift() as string);
    while (previews.size >= MAX_PREVIEWS) {
      const counts = new Map<string, number>();
      for (const p of previews.values()) counts.set(p.by, (counts.get(p.by) ?? 0) + 1);
      const most = [...counts].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
      previews.delete(ids(most)[0] as string);
    }
  };
  return {
    'import.preview': async ({ fileName, content, baseDir, mapping, uploads, due, progressId, firstRows }, caller) => {
      checkShotListText(fileName, content);
      const now = ctx.clock.now();
      // The import's own due time (the option) is checked first: a bad one refuses the whole import.
      let dueAll: number | null = null;
      if (due !== undefined) {
        const d = parseDue(due, now);
        if (!d.ok) throw new ShotfarmError('bad_input', `The import's ${d.message}.`);
        dueAll = d.value;
      }
      const read = isCsv(fileName, content)
        ? readCsvShotList(content, fileName, mapping ?? {}, now)
        : readJsonShotList(content, fileName, now);
      if (read.rows.length === 0) throw new ShotfarmError('bad_input', `${fileName} has no shots to import.`);
      // The option is the default: a row's own due time (a JSON field, a CSV column) wins.
      if (dueAll !== null) for (const r of read.rows) r.due ??= dueAll;
      // Node classes and models: against the running farm's lists, else the lists its last run stored.
      // Inputs only from the shot list's own folder (never the caller's working folder), never the database.
      // Files sent with the list (uploads) are found by their input name first: a stored file, never a client's path.
      const sent = uploadedInputs(ctx.db, ctx.settings, ctx.dbFile, uploads, ctx.clock.now());
      const farm = currentFarmPlaces(ctx.dbFile, ctx.settings);
      const folder = {
        ...inputFolder(baseDir, [ctx.dbFile, `${ctx.dbFile}-wal`, `${ctx.dbFile}-shm`, `${ctx.dbFile}-journal`]),
        farm,
        ...(sent ? { uploads: sent } : {}),
      };
      const total = read.rows.length;
      let checked;
      try {
        checked = await checkRows(ctx.db, read.rows, {
          fileName,
          folder,
          capability: currentFarmFacts(ctx),
          // Between steps the farm's own work runs (a 100k-row check is seconds of the engine's
          // thread), and the caller hears how far the check is.
          onStep: async (done, counts) => {
            if (progressId) ctx.events.emit('import.progress', { progressId, phase: 'checking', done, total, counts });
            await new Promise<void>((resolve) => setImmediate(resolve));
          },
        });
      } catch (err) {
        throw storageFailure(err, storeLabel(ctx.store), `checking ${fileName}`) ?? err;
      }
      const { rows, notices } = checked;
      const counts = { new: 0, duplicate: 0, error: 0 };
      for (const r of rows) counts[r.view.status]++;
      const preview: ImportPreview = {
        previewId: randomId(),
        fileName,
        format: read.format,
        mapping: read.mapping,
        notices,
        rows: rows.map((r) => r.view),
        totalRows: rows.length,
        counts,
        // Said at the preview, so the Import dialog does not offer what the commit would refuse.
        refusal: createdRushRefusal(caller, () => createsRush(rows)),
      };
      const by = actorName(caller);
      prune(by);
      const kept: StoredPreview = { preview, rows, ordered: null, createdAt: ctx.clock.now(), by };
      previews.set(preview.previewId, kept);
      if (progressId)
        ctx.events.emit('import.progress', { progressId, phase: 'done', done: total, total, counts: preview.counts });
      // A caller that pages gets the counts and the first page, not every row (a 100k-row answer
      // was about 25 MB for a dialog that shows a screenful).
      return firstRows === undefined ? preview : { ...preview, rows: orderedRows(kept).slice(0, firstRows) };
    },
    'import.previewRows': async ({ previewId, offset, limit }) => {
      const stored = previews.get(previewId);
      if (!stored) throw new ShotfarmError('not_found', EXPIRED);
      const ordered = orderedRows(stored);
      return { rows: ordered.slice(offset, offset + limit), offset, total: ordered.length };
    },
    'import.commit': async ({ previewId, progressId }, caller) => {
      const stored = previews.get(previewId);
      if (!stored) throw new ShotfarmError('not_found', EXPIRED);
      // The rush rule over what the rows would store (a JSON field, a CSV column, a template default):
      // a role that may not ask for rush may not import it either. Refused whole, nothing stored.
      authorizeCreatedRush(caller, () => createsRush(stored.rows));
      const total = stored.rows.length;
      // One transaction, all rows or none: the commit has no partial count to tell, only that it writes.
      if (progressId)
        ctx.events.emit('import.progress', {
          progressId,
          phase: 'writing',
          done: 0,
          total,
          counts: { new: 0, duplicate: 0, error: 0 },
        });
      let result;
      try {
        // The jobs say who imported them (an artist may then act on their own jobs).
        result = commitRows(ctx.db, ctx.clock, ctx.random, ctx.settings, stored.rows, actorName(caller));
      } catch (err) {
        // The transaction rolled back: nothing of this file is stored. Say which file could not take it.
        throw storageFailure(err, storeLabel(ctx.store), `importing ${stored.preview.fileName}`) ?? err;
      }
      previews.delete(previewId);
      if (result.imported >= BIG_WRITE_ROWS) refreshPlannerStats(ctx.db);
      if (progressId)
        ctx.events.emit('import.progress', {
          progressId,
          phase: 'done',
          done: total,
          total,
          counts: { new: result.imported, duplicate: result.duplicates, error: result.rejected },
        });
      if (result.imported > 0) {
        ctx.announcer.announceUnfinished(result.jobIds);
        ctx.farm()?.kick();
      }
      return result;
    },
  };
}
