/**
 * Issue 30: a 100k-row import on PostgreSQL spent ≈ 1.6 s of its commit in the server's per-row
 * foreign-key triggers — a job's shot and template, an event's job, a shot's episode: one query
 * and one row lock per row and per key, the same template row locked 100,000 times
 * (docs/performance.md#import-at-scale). PostgreSQL's text (schema-dialect.ts OWN_TEXT) replaces
 * those four references with one set-based check per statement over the rows it wrote, and needs
 * no locks for it because of the rule below. SQLite keeps its foreign keys (in-process, cheap).
 *
 * The rule, on both stores: a stored episode, shot, template or job is never deleted and its id
 * never changes. Shotfarm never does either (every job's events, attempts and outputs name them
 * forever); the triggers make it a property of the store, so a lock-free check cannot race with a
 * delete, and a hand-run DELETE is refused with words saying why.
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
CREATE TRIGGER episodes_never_deleted BEFORE DELETE ON episodes
BEGIN SELECT RAISE(ABORT, 'an episode is never deleted: its shots and jobs name it'); END;
CREATE TRIGGER shots_never_deleted BEFORE DELETE ON shots
BEGIN SELECT RAISE(ABORT, 'a shot is never deleted: its jobs name it'); END;
CREATE TRIGGER templates_never_deleted BEFORE DELETE ON templates
BEGIN SELECT RAISE(ABORT, 'a template is never deleted: the jobs made from it name it'); END;
CREATE TRIGGER jobs_never_deleted BEFORE DELETE ON jobs
BEGIN SELECT RAISE(ABORT, 'a job is never deleted: its events, attempts and outputs name it'); END;
CREATE TRIGGER episodes_id_kept BEFORE UPDATE OF id ON episodes WHEN NEW.id IS NOT OLD.id
BEGIN SELECT RAISE(ABORT, 'an episode''s id never changes'); END;
CREATE TRIGGER shots_id_kept BEFORE UPDATE OF id ON shots WHEN NEW.id IS NOT OLD.id
BEGIN SELECT RAISE(ABORT, 'a shot''s id never changes'); END;
CREATE TRIGGER templates_id_kept BEFORE UPDATE OF id ON templates WHEN NEW.id IS NOT OLD.id
BEGIN SELECT RAISE(ABORT, 'a template''s id never changes'); END;
CREATE TRIGGER jobs_id_kept BEFORE UPDATE OF id ON jobs WHEN NEW.id IS NOT OLD.id
BEGIN SELECT RAISE(ABORT, 'a job''s id never changes'); END;
`;
