/** Builds a queued-jobs store in its own process (so the bench process's RSS is the engine's, not the setup's). */
import { copyFileSync } from 'node:fs';
import { queuedStore } from './queue-fixture.js';

const [rows, dest] = [Number(process.argv[2]), process.argv[3] as string];
const file = await queuedStore(rows);
copyFileSync(file, dest);
process.exit(0);
