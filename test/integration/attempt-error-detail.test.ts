/**
 * Issue 25 build 7: a failed attempt keeps what ComfyUI's `execution_error` said — node, exception
 * type, message and traceback — in its row (migration 0011), and `jobs.attempts` returns it, also
 * after the engine restarts. Real SQLite, simulator over loopback.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { farmFor } from '../helpers/farm.js';
import { RUNTIME_MESSAGE } from '../simulator/faults.js';

test('a failed attempt keeps the exception message and traceback ComfyUI sent, stored and returned after a restart', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{ script: ['error'] }] });
  const [id] = await farm.importJobs([{ id: 'sh010' }]);
  await farm.waitForStates([id!], ['failed_final'], 30_000);

  const check = async (): Promise<void> => {
    const [a] = await farm.engine.call('jobs.attempts', { id: id! });
    assert.equal(a?.outcome, 'failed');
    assert.equal(a?.exceptionType, 'RuntimeError');
    assert.ok(a?.nodeId && a.nodeType, 'the node is named');
    assert.equal(a?.exceptionMessage, RUNTIME_MESSAGE, 'the whole message, not only its first line');
    assert.match(a?.traceback ?? '', /^ {2}File "<COMFYUI_ROOT>\/execution\.py", line 496, in execute\n/);
    assert.match(
      a?.traceback ?? '',
      /line 277, in process_inputs\n {4}result = f\(\*\*inputs\)\n$/,
      'every frame, in order',
    );
  };
  await check();
  await farm.restartEngine();
  await check();
});

test('an attempt that completed has no error detail', async (ctx) => {
  const farm = await farmFor(ctx, { instances: [{}] });
  const [id] = await farm.importJobs([{ id: 'sh020' }]);
  await farm.waitForStates([id!], ['completed'], 30_000);
  const [a] = await farm.engine.call('jobs.attempts', { id: id! });
  assert.equal(a?.exceptionMessage, null);
  assert.equal(a?.traceback, null);
});
