/**
 * Fair share between projects, and files that travel with a shot list (the issue "One farm for the
 * whole studio", items 4 and 5). APPEND-ONLY: never edit once shipped; add 0008-… instead.
 *
 * `jobs_fair` is a partial index over queued jobs only, ordered (priority, rank, project,
 * enqueued_at): the fair-share candidates read the projects waiting at one priority with a skip
 * scan (one probe per project, not one row per job) and each project's head of queue without
 * sorting. Jobs enter it when queued and leave it when dispatched, so it stays the queue's size.
 *
 * `uploads` records the content-addressed input files a browser or studio-mode desktop sent with
 * a shot list (<data>/uploads/<sha256>): a row is written only after the file is verified and
 * renamed into place, so a row always names a complete file.
 */
export const sql = `
CREATE INDEX jobs_fair ON jobs (priority, rank, project, enqueued_at) WHERE state = 'queued';

CREATE TABLE uploads (
  sha256 TEXT PRIMARY KEY CHECK (length(sha256) = 64),
  size INTEGER NOT NULL,
  first_seen INTEGER NOT NULL
);
`;
