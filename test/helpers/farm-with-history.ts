/**
 * A SQLite farm with rows in every table, for moving it (`db migrate`) in tests and the bench: jobs
 * imported through the contract, an attempt per job (two for every tenth), a ledger row per
 * finished attempt with its own hash, and people, settings, hooks, a workstation with its node
 * list, a hook delivery, an upload, order changes and the farm's paused state.
 */
import { createHash } from 'node:crypto';
import { insertAsset, insertAttempt } from './attempt-fixtures.js';
import { importText, makeEngine, type TestEngine } from './engine.js';

/** A shot list of n keyframe shots in one episode of Moonfall (prompts with quotes and an umlaut). */
export const shotList = (episode: string, n: number): string =>
  JSON.stringify({
    project: 'Moonfall',
    episode,
    shots: Array.from({ length: n }, (_, i) => ({
      id: `sh${i + 1}0`,
      stage: 'keyframe',
      template: 'keyframe-img2img',
      parameters: { prompt: `p${i} “quoted” ü` },
    })),
  });

export async function farmWithHistory(jobs: number): Promise<TestEngine> {
  const t = await makeEngine();
  const e = t.engine;
  await importText(e, 'shots.json', shotList('ep1', jobs));
  const ids = e.db.all<{ id: string }>('SELECT id FROM jobs ORDER BY id').map((r) => r.id);
  const now = t.clock.now();
  e.db.transaction(() => {
    ids.forEach((id, i) => {
      const tries = i % 10 === 0 ? 2 : 1;
      for (let n = 1; n <= tries; n++) {
        const done = n === tries;
        const attempt = insertAttempt(e.db, {
          jobId: id,
          n,
          instance: 'gpu-01',
          gpu: 'RTX 4090',
          queuedAt: now,
          dispatchedAt: now + n,
          startedAt: now + n,
          finishedAt: now + n + 1000,
          outcome: done ? 'completed' : 'failed',
          errorClass: done ? null : 'oom',
          reason: done ? null : 'CUDA out of memory',
        });
        if (done) {
          const path = `/renders/Moonfall/ep1/${id}.png`;
          insertAsset(e.db, id, attempt, path, now + 2000);
          e.db.run(
            'UPDATE assets SET sha256 = ? WHERE path = ?',
            createHash('sha256').update(path).digest('hex'),
            path,
          );
        }
      }
    });
    e.db.run(
      "INSERT INTO instances (id, name, url, created_at, updated_at) VALUES ('i-1', 'gpu-01', 'http://10.0.0.1:8188', ?, ?)",
      now,
      now,
    );
    e.db.run(
      "INSERT INTO instance_node_lists (instance_id, sha256, nodes_json, loaded_at) VALUES ('i-1', ?, '[\"KSampler\"]', ?)",
      'a'.repeat(64),
      now,
    );
    e.db.run(
      "INSERT INTO hook_deliveries (hook_id, job_id, event, dedupe_key, payload_json, created_at, updated_at) VALUES ('h1', ?, 'completed', 'k1', '{}', ?, ?)",
      ids[0],
      now,
      now,
    );
    e.db.run(
      'INSERT INTO uploads (sha256, size, first_seen, uploaded_by) VALUES (?, 12, ?, ?)',
      'b'.repeat(64),
      now,
      'mira',
    );
    // A measured run (issue 28's VRAM learning) and a group announced late (its forecast).
    e.db.run(
      "INSERT INTO vram_samples (attempt_id, template_id, gpu, pixels, outcome, need_gb, added_gb, peak_gb, baseline_gb, other_gb, warm, reads, at) VALUES ('a-1', (SELECT MIN(id) FROM templates), 'RTX 4090', 1048576, 'ok', 6.5, 6.1, 6.9, 0.4, 0.4, 1, 8, ?)",
      now,
    );
    e.db.run("INSERT INTO forecast_late (group_key, late_at) VALUES ('Moonfall/ep1', ?)", now);
  });
  const template = e.db.one<{ name: string }>('SELECT name FROM templates ORDER BY id LIMIT 1');
  if (template) await e.call('templates.pinVram', { name: template.name, pin: 'declared' });
  await e.call('users.add', { name: 'Mira', role: 'admin' });
  await e.call('users.add', { name: 'ben', role: 'artist' });
  await e.call('settings.set', { key: 'retry_attempts', value: '5' });
  await e.call('hooks.add', { hook: { id: 'h1', kind: 'command', command: '/bin/true', on: ['completed'] } });
  await e.call('jobs.bump', { ids: ids.slice(0, 3), priority: 'rush' });
  await e.call('jobs.moveToTop', { ids: [ids[Math.min(5, ids.length - 1)] as string] });
  await e.call('farm.pause', { by: 'mira' });
  return t;
}
