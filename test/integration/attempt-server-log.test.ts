/**
 * Issue 25 build 7: when a LAN attempt fails with an execution error, the engine reads the server's
 * own log once (`GET /internal/logs/raw`, comfyui-protocol.md §15) after the outcome is stored and
 * keeps the lines of the attempt's window with it (migration 0013). A server without the route, or
 * one that does not answer, leaves the outcome as it is and a word instead of lines. Real SQLite,
 * simulator over loopback.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { farmFor } from '../helpers/farm.js';
import type { AttemptView } from '../../shared/domain.js';

async function simLog(url: string, m: string, ageMs: number): Promise<void> {
  const res = await fetch(`${url}/__sim/log`, { method: 'POST', body: JSON.stringify({ m, ageMs }) });
  assert.equal(res.status, 200);
}

async function attemptWithLog(
  farm: Awaited<ReturnType<typeof farmFor>>,
  id: string,
): Promise<AttemptView & { serverLog: NonNullable<AttemptView['serverLog']> }> {
  let got: AttemptView | undefined;
  await farm.waitFor(
    "the attempt's server log",
    async () => {
      [got] = await farm.engine.call('jobs.attempts', { id });
      return got?.serverLog != null;
    },
    15_000,
  );
  return got as AttemptView & { serverLog: NonNullable<AttemptView['serverLog']> };
}

test("a prompt that fails keeps the server's log lines of its window, and none from before or after it", async (ctx) => {
  // A server 5 h 30 min east of UTC: its stamps are naive local times, placed through its Date header.
  const farm = await farmFor(ctx, { instances: [{ script: ['error'], logUtcOffsetMin: 330 }] });
  const url = farm.sims[0]!.url;
  await simLog(url, 'an old line, a minute before the attempt\n', 60_000);
  await simLog(url, 'a line stamped a minute after the attempt\n', -60_000);
  const [id] = await farm.importJobs([{ id: 'sh010' }]);
  await farm.waitForStates([id!], ['failed_final'], 30_000);

  const check = async (): Promise<void> => {
    const a = await attemptWithLog(farm, id!);
    assert.equal(a.outcome, 'failed');
    assert.equal(a.serverLog.kind, 'lines');
    if (a.serverLog.kind !== 'lines') return;
    const text = a.serverLog.lines.map((l) => l.text);
    assert.ok(text.includes('got prompt'), 'the prompt arriving');
    assert.ok(
      text.some((l) => l.startsWith('!!! Exception during processing !!! Given groups=1')),
      "the node's error",
    );
    const tb = text.indexOf('Traceback (most recent call last):');
    assert.ok(tb >= 0, 'the traceback, one line per line of the write');
    assert.equal(text[tb + 1], '  File "<COMFYUI_ROOT>/execution.py", line 496, in execute');
    assert.ok(text.some((l) => l.startsWith('RuntimeError: Given groups=1')));
    assert.ok(text.some((l) => /^Prompt executed in \d+\.\d\d seconds$/.test(l)));
    assert.ok(!text.some((l) => l.includes('a minute')), 'nothing from outside the window');
    for (const l of a.serverLog.lines)
      assert.ok(l.at >= a.serverLog.from && l.at <= a.serverLog.to, `${l.text} is stamped inside the window`);
    assert.ok(a.startedAt !== null && a.finishedAt !== null);
    assert.ok(a.serverLog.from <= a.startedAt! && a.serverLog.to >= a.finishedAt!);
    assert.equal(a.serverLog.cut, 0);
  };
  await check();
  await farm.restartEngine();
  await check();
});

test('a server without /internal/logs/raw (404) keeps the outcome as it was and says the log is not offered', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ script: ['error'], serverLog: false }] });
  const [id] = await farm.importJobs([{ id: 'sh020' }]);
  await farm.waitForStates([id!], ['failed_final'], 30_000);
  const a = await attemptWithLog(farm, id!);
  assert.equal(a.outcome, 'failed');
  assert.equal(a.errorClass, 'permanent');
  assert.equal(a.exceptionType, 'RuntimeError');
  assert.match(a.traceback ?? '', /line 277, in process_inputs/);
  assert.deepEqual(a.serverLog.kind, 'not_offered');
  assert.match(a.serverLog.kind === 'not_offered' ? a.serverLog.detail : '', /answered 404/);
  assert.equal((await farm.job(id!)).state, 'failed_final');
});

test('a server that does not answer for its log leaves a word, not lines, and the outcome stands', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ script: ['error'] }] });
  const [id] = await farm.importJobs([{ id: 'sh030' }]);
  await farm.waitForStates([id!], ['failed_final'], 30_000);
  // The outcome is stored; the log is read a moment later: by then the workstation answers nothing.
  farm.sims[0]!.partition(true);
  ctx.after(() => farm.sims[0]!.partition(false));
  const a = await attemptWithLog(farm, id!);
  assert.equal(a.outcome, 'failed');
  assert.equal(a.serverLog.kind, 'unread');
  assert.match(a.serverLog.kind === 'unread' ? a.serverLog.detail : '', /no answer within 3000 ms/);
});

test('a prompt that completes reads no server log', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{}] });
  const [id] = await farm.importJobs([{ id: 'sh040' }]);
  await farm.waitForStates([id!], ['completed'], 30_000);
  const [a] = await farm.engine.call('jobs.attempts', { id: id! });
  assert.equal(a?.serverLog, null);
});
