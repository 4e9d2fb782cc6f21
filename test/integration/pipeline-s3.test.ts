/**
 * Outputs copied to S3-compatible storage (issue [G]): with the `s3` setting on, a job completes
 * only once every output is confirmed in the bucket with a matching checksum; a failed upload
 * leaves the job not completed. Against s3rver on loopback.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { setS3Settings } from '../../electron/engine/storage/s3-settings.js';
import { startFarm } from '../helpers/farm.js';
import { makeTempDir } from '../helpers/temp-dir.js';

type S3rverCtor = new (opts: {
  port: number;
  address: string;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}) => {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server & { closeAllConnections(): void };
};
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverCtor;
const KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

async function s3(bucket: string) {
  const tmp = makeTempDir('shotfarm-s3farm-');
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: join(tmp.path, 'store'),
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      server.httpServer?.closeAllConnections();
      await server.close();
      tmp.cleanup();
    },
  };
}

test('with S3 on, a job completes once its output is confirmed in the bucket with the same SHA-256', async () => {
  const store = await s3('renders');
  const farm = await startFarm({ instances: [{}], start: false });
  const reader = new S3Client({
    endpoint: store.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { ...KEYS },
  });
  try {
    setS3Settings(farm.engine.db, farm.engine.clock, {
      endpoint: store.endpoint,
      region: 'us-east-1',
      bucket: 'renders',
      prefix: 'studio',
      ...KEYS,
    });
    farm.startScheduler();
    const [id] = await farm.importJobs([{ id: 'sh010' }]);
    await farm.waitForStates([id!], ['completed']);
    const asset = farm.engine.db.one('SELECT path, sha256 FROM assets WHERE job_id = ?', id) as {
      path: string;
      sha256: string;
    };
    const name = asset.path.split('/').at(-1);
    const got = await reader.send(
      new GetObjectCommand({ Bucket: 'renders', Key: `studio/P/E/sh010/keyframe/take-1/${name}` }),
    );
    const bytes = Buffer.from(await got.Body!.transformToByteArray());
    assert.equal(createHash('sha256').update(bytes).digest('hex'), asset.sha256);
    assert.deepEqual(bytes, readFileSync(asset.path));
  } finally {
    reader.destroy();
    await farm.close();
    await store.close();
  }
});

test('a failed upload leaves the job not completed, with the reason, and no ledger rows', async () => {
  const store = await s3('renders');
  const farm = await startFarm({
    instances: [{}],
    start: false,
    config: { retry: { maxAttempts: 2, baseMs: 10, capMs: 20 } },
  });
  try {
    // The bucket does not exist: every upload fails.
    setS3Settings(farm.engine.db, farm.engine.clock, {
      endpoint: store.endpoint,
      region: 'us-east-1',
      bucket: 'no-such-bucket',
      ...KEYS,
    });
    farm.startScheduler();
    const [id] = await farm.importJobs([{ id: 'sh020' }]);
    const [v] = await farm.waitForStates([id!], ['failed_final'], 30_000);
    assert.match(v?.stateReason ?? '', /the copy to S3 was not confirmed/);
    assert.doesNotMatch(v?.stateReason ?? '', /S3RVER/, 'credentials never appear in messages');
    assert.equal((farm.engine.db.one('SELECT COUNT(*) AS n FROM assets') as { n: number }).n, 0);
    assert.equal(
      farm.sims[0]!.counts(id!).executed,
      1,
      'the retry collected the same render instead of rendering again',
    );
  } finally {
    await farm.close();
    await store.close();
  }
});
