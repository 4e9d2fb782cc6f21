/**
 * The import domain: a preview first (every row checked, nothing written), kept for the operator to
 * confirm, then the commit of its valid rows in one transaction.
 */
import type { ImportPreview } from '../../../shared/domain.js';
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
import { storageFailure } from '../store/storage-failure.js';
import { currentFarmFacts } from '../views/job-views.js';
import { checkShotListText } from '../intake/text-check.js';
import type { DomainHandlers, EngineContext } from './context.js';

interface StoredPreview {
  preview: ImportPreview;
  rows: CheckedRow[];
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
    'import.preview': async ({ fileName, content, baseDir, mapping, uploads }, caller) => {
      checkShotListText(fileName, content);
      const read = isCsv(fileName, content)
        ? readCsvShotList(content, fileName, mapping ?? {})
        : readJsonShotList(content, fileName);
      if (read.rows.length === 0) throw new ShotfarmError('bad_input', `${fileName} has no shots to import.`);
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
      let checked;
      try {
        checked = checkRows(ctx.db, read.rows, {
          fileName,
          folder,
          capability: currentFarmFacts(ctx),
        });
      } catch (err) {
        throw storageFailure(err, ctx.dbFile, `checking ${fileName}`) ?? err;
      }
      const { rows, notices } = checked;
      const count = (status: 'new' | 'duplicate' | 'error') => rows.filter((r) => r.view.status === status).length;
      const preview: ImportPreview = {
        previewId: randomId(),
        fileName,
        format: read.format,
        mapping: read.mapping,
        notices,
        rows: rows.map((r) => r.view),
        counts: { new: count('new'), duplicate: count('duplicate'), error: count('error') },
        // Said at the preview, so the Import dialog does not offer what the commit would refuse.
        refusal: createdRushRefusal(caller, () => createsRush(rows)),
      };
      const by = actorName(caller);
      prune(by);
      previews.set(preview.previewId, { preview, rows, createdAt: ctx.clock.now(), by });
      return preview;
    },
    'import.commit': async ({ previewId }, caller) => {
      const stored = previews.get(previewId);
      if (!stored)
        throw new ShotfarmError(
          'not_found',
          'This import preview has expired or was already imported; drop the file again.',
        );
      // The rush rule over what the rows would store (a JSON field, a CSV column, a template default):
      // a role that may not ask for rush may not import it either. Refused whole, nothing stored.
      authorizeCreatedRush(caller, () => createsRush(stored.rows));
      let result;
      try {
        // The jobs say who imported them (an artist may then act on their own jobs).
        result = commitRows(ctx.db, ctx.clock, ctx.random, ctx.settings, stored.rows, actorName(caller));
      } catch (err) {
        // The transaction rolled back: nothing of this file is stored. Say which file could not take it.
        throw storageFailure(err, ctx.dbFile, `importing ${stored.preview.fileName}`) ?? err;
      }
      previews.delete(previewId);
      if (result.imported > 0) {
        ctx.announcer.announceUnfinished(result.jobIds);
        ctx.farm()?.kick();
      }
      return result;
    },
  };
}
