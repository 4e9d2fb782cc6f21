/**
 * The ordered migration chain. Append a new entry for every schema change; never edit or reorder
 * shipped ones (their text is hashed and checked at every open).
 */
import { sql as m0001 } from './0001-initial.js';
import { sql as m0002 } from './0002-hook-deliveries.js';
import { sql as m0003 } from './0003-queued-age-index.js';
import { sql as m0004 } from './0004-attempt-contact.js';
import { sql as m0005 } from './0005-wait-reasons-node-lists.js';
import { sql as m0006 } from './0006-people.js';
import { sql as m0007 } from './0007-fair-share-uploads.js';
import { sql as m0008 } from './0008-runpod-endpoints.js';
import { sql as m0009 } from './0009-runpod-base-upload-owners.js';
import { sql as m0010 } from './0010-job-order-changes.js';
import { sql as m0011 } from './0011-attempt-error-detail.js';
import { sql as m0012 } from './0012-setting-changed-by.js';
import { sql as m0013 } from './0013-attempt-server-log.js';
import { sql as m0014 } from './0014-farm-state-changes.js';
import { sql as m0015 } from './0015-job-unblocked-at.js';
import { sql as m0016 } from './0016-engine-leases.js';
import { sql as m0018 } from './0018-vram-samples.js';
import { sql as m0019 } from './0019-forecast-due.js';
import { sql as m0020 } from './0020-hook-late.js';
import { sql as m0021 } from './0021-lease-reservations.js';
import { sql as m0022 } from './0022-drop-jobs-shot-stage.js';
import { sql as m0023 } from './0023-queue-order-rowid.js';
import { sql as m0024 } from './0024-references-checked-per-statement.js';
import { sql as m0025 } from './0025-queue-walk-rowid.js';

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { id: 1, name: '0001-initial', sql: m0001 },
  { id: 2, name: '0002-hook-deliveries', sql: m0002 },
  { id: 3, name: '0003-queued-age-index', sql: m0003 },
  { id: 4, name: '0004-attempt-contact', sql: m0004 },
  { id: 5, name: '0005-wait-reasons-node-lists', sql: m0005 },
  { id: 6, name: '0006-people', sql: m0006 },
  { id: 7, name: '0007-fair-share-uploads', sql: m0007 },
  { id: 8, name: '0008-runpod-endpoints', sql: m0008 },
  { id: 9, name: '0009-runpod-base-upload-owners', sql: m0009 },
  { id: 10, name: '0010-job-order-changes', sql: m0010 },
  { id: 11, name: '0011-attempt-error-detail', sql: m0011 },
  { id: 12, name: '0012-setting-changed-by', sql: m0012 },
  { id: 13, name: '0013-attempt-server-log', sql: m0013 },
  { id: 14, name: '0014-farm-state-changes', sql: m0014 },
  { id: 15, name: '0015-job-unblocked-at', sql: m0015 },
  { id: 16, name: '0016-engine-leases', sql: m0016 },
  { id: 18, name: '0018-vram-samples', sql: m0018 },
  { id: 19, name: '0019-forecast-due', sql: m0019 },
  { id: 20, name: '0020-hook-late', sql: m0020 },
  { id: 21, name: '0021-lease-reservations', sql: m0021 },
  { id: 22, name: '0022-drop-jobs-shot-stage', sql: m0022 },
  { id: 23, name: '0023-queue-order-rowid', sql: m0023 },
  { id: 24, name: '0024-references-checked-per-statement', sql: m0024 },
  { id: 25, name: '0025-queue-walk-rowid', sql: m0025 },
];
