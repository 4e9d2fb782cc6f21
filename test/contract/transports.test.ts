/**
 * One contract, several transports: the same cases run in-process, over HTTP/WebSocket and over
 * Electron IPC (transport-table.ts), each against a real engine of its own. A call answers with the
 * engine's own result; bad input and an unknown method come back as the engine's own envelope,
 * changing nothing; a job change reaches a subscriber; the local-only methods are open to a caller on
 * this machine and refused to a page, and the desktop page is refused what its views do not call.
 * Where transports legitimately differ, the table says how.
 */
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { LOCAL_ONLY_METHODS } from '../../shared/methods.js';
import type { ImportPreview, ImportResult, JobView, TemplateView } from '../../shared/domain.js';
import { toErrorEnvelope, type CallAnswer, type ErrorEnvelope } from '../../shared/errors.js';
import type { HookConfig } from '../../shared/hooks.js';
import type { WorkstationBatchResult } from '../../shared/workstation-batch.js';
import { BULK_THRESHOLD } from '../../electron/engine/announcer.js';
import { networkRefusal } from '../../electron/engine/hosting/reach-refusal.js';
import { RESOURCES, tableCounts } from '../helpers/engine.js';
import { waitUntil } from '../helpers/wait.js';
import { TRANSPORTS, type Connection, type Transport } from './transport-table.js';

const CASE = { timeout: 30_000 };
const KEYFRAME = {
  fileName: 'keyframe-img2img.json',
  content: readFileSync(`${RESOURCES}templates/keyframe-img2img.json`, 'utf8'),
};

async function connect(ctx: TestContext, t: Transport): Promise<Connection> {
  const conn = await t.setup();
  ctx.after(() => conn.close());
  return conn;
}

/** The call's outcome as the wire's answer shape, so outcomes compare whole. */
function settle(answer: Promise<unknown>): Promise<CallAnswer> {
  // Connection.call rejects with a checked envelope, and engineAnswer makes one of what the engine throws.
  return answer.then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error: error as ErrorEnvelope }),
  );
}

/** What the engine itself answers, in the same shape: the outcome every transport must carry intact. */
function engineAnswer(conn: Connection, method: string, input: unknown): Promise<CallAnswer> {
  return settle(conn.engine.call(method as never, input).catch((err: unknown) => Promise.reject(toErrorEnvelope(err))));
}

/** Answers are JSON on one transport and structured clones on another: compare what both keep. */
const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

function shotList(shots: string[]): string {
  return JSON.stringify({
    project: 'Moonfall',
    episode: 'ep101',
    shots: shots.map((id) => ({
      id,
      stage: 'keyframe',
      template: 'keyframe-img2img',
      parameters: { prompt: `shot ${id}` },
    })),
  });
}

/** Registers the template through the transport where the page may (the desktop page's views never add templates). */
async function addTemplate(conn: Connection, t: Transport): Promise<TemplateView> {
  return (
    t.refusesUnused.has('templates.add')
      ? conn.engine.call('templates.add', KEYFRAME)
      : conn.call('templates.add', KEYFRAME)
  ) as Promise<TemplateView>;
}

async function importShots(conn: Connection, fileName: string, shots: string[]): Promise<ImportResult> {
  const preview = (await conn.call('import.preview', { fileName, content: shotList(shots) })) as ImportPreview;
  return (await conn.call('import.commit', { previewId: preview.previewId })) as ImportResult;
}

const BAD_INPUTS = [
  { why: 'a URL without a scheme', method: 'instances.add', input: { name: 'gpu-01', url: 'gpu-01:8188' } },
  { why: 'an id that is not a job id', method: 'jobs.hold', input: { ids: ['not-a-uuid'] } },
  { why: 'a field the method does not take', method: 'farm.status', input: { sneaky: 1 } },
];

const HOOK: HookConfig = { id: 'notify', on: ['completed'], kind: 'command', command: '/bin/true' };

for (const t of TRANSPORTS) {
  describe(`the contract over ${t.name}`, () => {
    test("a call answers with the engine's result: templates.add, then templates.list shows it", CASE, async (ctx) => {
      const conn = await connect(ctx, t);
      const added = await addTemplate(conn, t);
      assert.equal(conn.lastStatus(), t.statuses?.ok ?? null);
      assert.equal(added.name, 'keyframe-img2img');
      const listed = (await conn.call('templates.list', {})) as TemplateView[];
      assert.deepEqual(
        listed.map((v) => v.name),
        ['keyframe-img2img'],
      );
      assert.deepEqual(json(listed), json(await conn.engine.call('templates.list', {})), 'the result arrives whole');
    });

    test(
      "bad input is refused with the engine's bad_input envelope naming the method, and changes nothing",
      CASE,
      async (ctx) => {
        const conn = await connect(ctx, t);
        const before = tableCounts(conn.engine);
        for (const bad of BAD_INPUTS) {
          const answer = await settle(conn.call(bad.method, bad.input));
          assert.equal(conn.lastStatus(), t.statuses?.badInput ?? null, bad.why);
          assert.deepEqual(
            answer,
            await engineAnswer(conn, bad.method, bad.input),
            `${bad.why}: the engine's envelope, unchanged`,
          );
          assert.ok(!answer.ok, bad.why);
          assert.equal(answer.error.code, 'bad_input', bad.why);
          assert.ok(
            answer.error.message.startsWith(`Invalid input for ${bad.method}: `),
            `${bad.why}: ${answer.error.message}`,
          );
        }
        assert.deepEqual(tableCounts(conn.engine), before);
      },
    );

    test(
      'instances.addMany adds a whole list (names from hosts, each probed), and a list with a taken name adds none, naming its line',
      CASE,
      async (ctx) => {
        const conn = await connect(ctx, t);
        const added = (await conn.call('instances.addMany', {
          workstations: [
            { source: 'line 1', url: 'http://127.0.0.1:9' },
            { source: 'line 2', name: 'gpu-02', url: 'http://127.0.0.1:10', tags: ['img2img'] },
          ],
          timeoutMs: 2_000,
        })) as WorkstationBatchResult;
        assert.equal(conn.lastStatus(), t.statuses?.ok ?? null);
        assert.deepEqual(
          [added.added, added.healthy, added.instances.map((i) => [i.name, i.url, i.healthy])],
          [
            2,
            0,
            [
              ['127.0.0.1', 'http://127.0.0.1:9', false],
              ['gpu-02', 'http://127.0.0.1:10', false],
            ],
          ],
        );
        const stored = await conn.engine.call('instances.list', {});
        assert.deepEqual(
          stored.map((i) => [i.name, i.health, i.lastProbeAt !== null]),
          [
            ['127.0.0.1', 'unhealthy', true],
            ['gpu-02', 'unhealthy', true],
          ],
        );

        const before = tableCounts(conn.engine);
        const bad = {
          workstations: [
            { source: 'line 1', url: 'http://127.0.0.1:11' },
            { source: 'line 2', name: 'gpu-02', url: 'http://127.0.0.1:12' },
          ],
        };
        const answer = await settle(conn.call('instances.addMany', bad));
        assert.equal(conn.lastStatus(), t.statuses?.badInput ?? null);
        assert.deepEqual(answer, await engineAnswer(conn, 'instances.addMany', bad), "the engine's envelope, whole");
        assert.ok(!answer.ok);
        assert.equal(answer.error.code, 'bad_input');
        assert.deepEqual(answer.error.details, {
          problems: [{ source: 'line 2', message: 'a workstation is already named "gpu-02"' }],
        });
        assert.deepEqual(tableCounts(conn.engine), before, 'not even line 1 was stored');
      },
    );

    test('an unknown method is refused as not_found, prototype names included', CASE, async (ctx) => {
      const conn = await connect(ctx, t);
      for (const method of ['jobs.dropTable', 'constructor', '__proto__', 'toString']) {
        const answer = await settle(conn.call(method, {}));
        assert.equal(conn.lastStatus(), t.statuses?.unknownMethod ?? null, method);
        assert.deepEqual(
          answer,
          { ok: false, error: { code: 'not_found', message: `Unknown method ${method}.`, retryable: false } },
          method,
        );
      }
    });

    test(
      'a job change reaches a subscriber: job.changed for a small import, jobs.bulkChanged for a large one',
      CASE,
      async (ctx) => {
        const conn = await connect(ctx, t);
        const arrived = new EventEmitter();
        const wake = (recheck: () => void) => {
          arrived.on('event', recheck);
          return () => void arrived.off('event', recheck);
        };
        const changed: JobView[] = [];
        const bulk: number[] = [];
        ctx.after(conn.subscribe('job.changed', ({ job }) => void (changed.push(job), arrived.emit('event'))));
        ctx.after(conn.subscribe('jobs.bulkChanged', ({ count }) => void (bulk.push(count), arrived.emit('event'))));
        await addTemplate(conn, t);

        const small = await importShots(conn, 'small.json', ['sh010']);
        assert.equal(small.imported, 1);
        const id = small.jobIds[0] ?? '';
        const job = await waitUntil(() => changed.find((j) => j.id === id), {
          what: `job.changed for ${id} over ${t.name}`,
          wake,
          timeoutMs: 10_000,
        });
        assert.equal(job.state, 'queued');
        assert.deepEqual(
          json(job),
          json(await conn.engine.call('jobs.get', { id })),
          "the event carries the job's view",
        );

        // Past the bulk threshold one refetch event stands for them all.
        const many = BULK_THRESHOLD + 1;
        const large = await importShots(
          conn,
          'large.json',
          Array.from({ length: many }, (_, i) => `sh${1000 + i}`),
        );
        assert.equal(large.imported, many);
        await waitUntil(() => bulk.includes(many), {
          what: `jobs.bulkChanged {count: ${many}} over ${t.name}`,
          wake,
          timeoutMs: 10_000,
        });
        assert.ok(!changed.some((j) => large.jobIds.includes(j.id)), 'no job.changed per job of a bulk change');
      },
    );

    test(
      'a local-only method is open to a caller on this machine and refused to a page, which changes nothing',
      CASE,
      async (ctx) => {
        const conn = await connect(ctx, t);
        for (const method of LOCAL_ONLY_METHODS) {
          const answer = await settle(conn.call(method, {}));
          // Every page transport refuses a local-only method in serve's words (the desktop page too).
          const refused = isDeepStrictEqual(answer, { ok: false, error: networkRefusal(method, {}) });
          if (refused) assert.equal(conn.lastStatus(), t.statuses?.refused ?? null, method);
          assert.equal(
            refused,
            t.refuses.has(method),
            `${method}: refused here is ${t.refuses.has(method)}, got ${JSON.stringify(answer)}`,
          );
        }
        const answer = await settle(conn.call('hooks.set', { hooks: [HOOK] }));
        const status = t.refuses.has('hooks.set') ? t.statuses?.refused : t.statuses?.ok;
        assert.equal(conn.lastStatus(), status ?? null);
        assert.equal(answer.ok, !t.refuses.has('hooks.set'), JSON.stringify(answer));
        const stored = await conn.engine.call('hooks.list', {});
        assert.deepEqual(
          stored.map((h) => h.id),
          answer.ok ? [HOOK.id] : [],
          'hooks are stored only where hooks.set is open',
        );
      },
    );

    test(
      'a method no view of the page calls is refused to the desktop page, and changes nothing',
      CASE,
      async (ctx) => {
        const conn = await connect(ctx, t);
        const before = tableCounts(conn.engine);
        for (const method of t.refusesUnused) {
          const answer = await settle(conn.call(method, {}));
          assert.deepEqual(
            answer,
            {
              ok: false,
              error: {
                code: 'forbidden',
                message: `${method} is not available to the app's page; use the shotfarm command line on this machine.`,
                retryable: false,
              },
            },
            method,
          );
        }
        assert.deepEqual(tableCounts(conn.engine), before);
      },
    );
  });
}
