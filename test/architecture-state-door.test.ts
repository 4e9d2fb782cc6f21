import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO } from './helpers/engine.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'migrations' ? [] : sources(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

test('no code path changes a job state except the one door (electron/engine/job-state.ts)', () => {
  const offenders: string[] = [];
  for (const file of sources(join(REPO, 'electron'))) {
    const rel = relative(REPO, file);
    if (rel === 'electron/engine/job-state.ts') continue;
    const text = readFileSync(file, 'utf8').replace(/\s+/g, ' ');
    // Any UPDATE of the jobs table whose SET list assigns `state` (not state_reason) is a second door.
    for (const m of text.matchAll(/UPDATE jobs SET (.*?)(WHERE|`|'|")/gi)) {
      const sets = m[1] ?? '';
      if (/(^|[\s,])state\s*=/.test(sets)) offenders.push(`${rel}: UPDATE jobs SET ${sets.trim()}`);
    }
    // A job may be created in a state only together with its first event row (recordJobCreated).
    if (/INSERT INTO jobs/i.test(text) && !/recordJobs?Created\(/.test(text))
      offenders.push(`${rel}: INSERT INTO jobs without recordJobCreated`);
  }
  assert.deepEqual(offenders, []);
});

test('the door check itself notices a second door', () => {
  const sample = 'stmt(db, "UPDATE jobs SET state = \'queued\', updated_at = ? WHERE id = ?")'.replace(/\s+/g, ' ');
  const m = [...sample.matchAll(/UPDATE jobs SET (.*?)(WHERE|`|'|")/gi)][0];
  assert.ok(m && /(^|[\s,])state\s*=/.test(m[1] ?? ''));
  const harmless = 'UPDATE jobs SET state_reason = ?, updated_at = ? WHERE id = ?';
  const h = [...harmless.matchAll(/UPDATE jobs SET (.*?)(WHERE|`|'|")/gi)][0];
  assert.ok(h && !/(^|[\s,])state\s*=/.test(h[1] ?? ''));
});
