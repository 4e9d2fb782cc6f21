/**
 * Issue 27: a workstation kept free for a job too large for the slots that free up (a reservation,
 * scheduler/reservations.ts) lives in the memory of the engine driving it. On a PostgreSQL farm of
 * several engines that engine also writes it on the workstation's lease row — the job, its priority
 * and the engine that made it (trusted only while that engine still holds the lease) — so `jobs why`
 * asked of any engine says the workstation is kept free. Written only on PostgreSQL.
 * APPEND-ONLY: never edit once shipped.
 */
export const sql = `
ALTER TABLE workstation_leases ADD COLUMN reserved_job TEXT;
ALTER TABLE workstation_leases ADD COLUMN reserved_priority INTEGER;
ALTER TABLE workstation_leases ADD COLUMN reserved_by TEXT;
`;
