import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startServer } from '../../electron/server/server.js';
import { startFarm } from '../helpers/farm.js';

test('/files/asset/:id streams a ledger file by id and refuses unknown ids and paths', async () => {
  const farm = await startFarm({ instances: [{}] });
  const s = await startServer({ engine: farm.engine });
  try {
    const [id] = await farm.importJobs([{ id: 'sh010' }]);
    await farm.waitForStates([id as string], ['completed']);
    const page = await farm.engine.call('assets.list', {});
    const asset = page.rows[0];
    assert.ok(asset, 'the completed job left an asset');

    const res = await fetch(`${s.url}/files/asset/${asset.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), readFileSync(asset.path));

    for (const bad of ['nope', '..%2F..%2Fshotfarm.sqlite', encodeURIComponent(asset.path), '%00']) {
      const r = await fetch(`${s.url}/files/asset/${bad}`);
      assert.equal(r.status, 404, bad);
      const body = (await r.json()) as { ok: boolean; error: { code: string } };
      assert.equal(body.error.code, 'not_found');
    }
    assert.equal((await fetch(`${s.url}/files/${encodeURIComponent('../shotfarm.sqlite')}`)).status, 404);
  } finally {
    await s.close();
    await farm.close();
  }
});
