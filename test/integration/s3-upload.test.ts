import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ManualClock } from '../../electron/engine/clock.js';
import { openDatabase } from '../../electron/engine/store/database.js';
import { objectKeyFor } from '../../electron/engine/storage/object-key.js';
import {
  describeS3Settings,
  getS3Settings,
  resolveS3Config,
  setS3Settings,
  type S3Config,
} from '../../electron/engine/storage/s3-settings.js';
import { S3Uploader } from '../../electron/engine/storage/s3-uploader.js';
import { ShotfarmError } from '../../shared/errors.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** s3rver ships no types; this is the part of its API (README "Class: S3rver") the tests use. */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  configureBuckets(): Promise<void>;
  httpServer?: Server;
}
type S3rverCtor = new (opts: {
  port: number;
  address: string;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}) => S3rverInstance;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverCtor;

/** s3rver accepts exactly these credentials. */
const S3RVER_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const take = { project: 'Moonfall', episode: 'ep101', shot: 'sh010', stage: 'keyframe', take: 2 };

interface Farm {
  dir: string;
  endpoint: string;
  server: S3rverInstance;
  config: (over?: Partial<S3Config>) => S3Config;
  file: (name: string, content: string | Buffer) => { path: string; sha256: string };
  reader: () => S3Client;
  stop: () => Promise<void>;
  cleanup: () => Promise<void>;
}

async function farm(buckets = ['renders']): Promise<Farm> {
  const tmp = makeTempDir('shotfarm-s3-');
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: join(tmp.path, 'store'),
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  let running = true;
  const clients: S3Client[] = [];
  const stop = async (): Promise<void> => {
    if (!running) return;
    running = false;
    server.httpServer?.closeAllConnections();
    await server.close();
  };
  return {
    dir: tmp.path,
    endpoint,
    server,
    config: (over = {}) => ({
      endpoint,
      region: 'us-east-1',
      bucket: 'renders',
      prefix: 'studio/',
      forcePathStyle: true,
      credentials: S3RVER_KEYS,
      credentialsFrom: 'settings',
      ...over,
    }),
    file: (name, content) => {
      const path = join(tmp.path, name);
      writeFileSync(path, content);
      return { path, sha256: createHash('sha256').update(content).digest('hex') };
    },
    reader: () => {
      const c = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3RVER_KEYS });
      clients.push(c);
      return c;
    },
    stop,
    cleanup: async () => {
      for (const c of clients) c.destroy();
      await stop();
      tmp.cleanup();
    },
  };
}

async function objectBytes(c: S3Client, key: string): Promise<Buffer> {
  const got = await c.send(new GetObjectCommand({ Bucket: 'renders', Key: key }));
  return Buffer.from(await got.Body!.transformToByteArray());
}

test('an upload lands under the take layout and is confirmed against its SHA-256', async () => {
  const f = await farm();
  const up = new S3Uploader(f.config());
  try {
    const content = Buffer.alloc(3 * 1024 * 1024 + 17, 'moonlight');
    const { path, sha256 } = f.file('key_00001_.png', content);
    const key = up.keyFor(take, path);
    assert.equal(key, 'studio/Moonfall/ep101/sh010/keyframe/take-2/key_00001_.png');

    const r = await up.upload(path, key, sha256);
    assert.equal(r.key, key);
    assert.match(r.etag, /^[0-9a-f]{32}$/);
    // s3rver keeps no checksums, so the object was confirmed by downloading and hashing it.
    assert.equal(r.confirmedBy, 'download');
    assert.ok((await objectBytes(f.reader(), key)).equals(content));
    const head = await f.reader().send(new HeadObjectCommand({ Bucket: 'renders', Key: key }));
    assert.equal(head.Metadata?.sha256, sha256);
    assert.equal(head.ContentType, 'image/png');
  } finally {
    up.close();
    await f.cleanup();
  }
});

test('a server that reports checksums is trusted for the confirmation, and a wrong one is caught', async () => {
  const f = await farm();
  // The same s3rver behind a front that adds the x-amz-checksum-sha256 header AWS S3 returns
  // to a HeadObject with checksum mode on; `reported` decides what it claims.
  let reported = '';
  const heads: string[] = [];
  const s3 = f.server.callback();
  const front = createServer((req, res) => {
    if (req.method === 'HEAD') {
      heads.push(String(req.headers['x-amz-checksum-mode']));
      res.setHeader('x-amz-checksum-sha256', reported);
    }
    s3(req, res);
  });
  front.listen(0, '127.0.0.1');
  await once(front, 'listening');
  const up = new S3Uploader(f.config({ endpoint: `http://127.0.0.1:${(front.address() as AddressInfo).port}` }));
  try {
    const { path, sha256 } = f.file('motion.mp4', 'frames '.repeat(5000));
    reported = Buffer.from(sha256, 'hex').toString('base64');
    const ok = await up.upload(path, up.keyFor(take, path), sha256);
    assert.equal(ok.confirmedBy, 'server-checksum');
    assert.deepEqual(heads, ['ENABLED']);

    reported = createHash('sha256').update('something else').digest('base64');
    await assert.rejects(up.upload(path, up.keyFor(take, path), sha256), (err: unknown) => {
      assert.ok(err instanceof ShotfarmError);
      assert.deepEqual([err.code, err.retryable, err.details?.reason], ['unavailable', true, 'checksum']);
      assert.match(err.message, /the server reports SHA-256 [0-9a-f]{64}, the ledger [0-9a-f]{64}/);
      return true;
    });
  } finally {
    up.close();
    front.closeAllConnections();
    front.close();
    await f.cleanup();
  }
});

test('a stored object that does not match the ledger SHA-256 is detected and removed', async () => {
  const f = await farm();
  const up = new S3Uploader(f.config());
  try {
    const { path } = f.file('key_00002_.png', 'the real pixels');
    const ledgerSays = createHash('sha256').update('the pixels the ledger saw').digest('hex');
    const key = up.keyFor(take, path);
    await assert.rejects(up.upload(path, key, ledgerSays), (err: unknown) => {
      assert.ok(err instanceof ShotfarmError);
      assert.deepEqual(
        [err.code, err.retryable, err.details?.reason, err.details?.removed],
        ['unavailable', true, 'checksum', true],
      );
      assert.ok(
        err.message.startsWith(`Confirming the upload of s3://renders/${key} failed: the stored object's SHA-256 is `),
        err.message,
      );
      assert.ok(err.message.includes(`the ledger's ${ledgerSays}`));
      return true;
    });
    await assert.rejects(f.reader().send(new HeadObjectCommand({ Bucket: 'renders', Key: key })), /NotFound/);
    await assert.rejects(
      up.upload(path, key, 'abc'),
      (err: unknown) => err instanceof ShotfarmError && err.code === 'bad_input',
    );
  } finally {
    up.close();
    await f.cleanup();
  }
});

test('an upload to a stopped server fails with a retryable, readable error', async () => {
  const f = await farm();
  const up = new S3Uploader(f.config(), { maxAttempts: 1 });
  try {
    const { path, sha256 } = f.file('key.png', 'pixels');
    await f.stop();
    await assert.rejects(up.upload(path, up.keyFor(take, path), sha256), (err: unknown) => {
      assert.ok(err instanceof ShotfarmError);
      assert.deepEqual([err.code, err.retryable, err.details?.reason], ['unavailable', true, 'network']);
      assert.equal(
        err.message,
        `Uploading key.png to s3://renders/studio/Moonfall/ep101/sh010/keyframe/take-2/key.png failed: the S3 server ${f.endpoint} could not be reached (ECONNREFUSED). Check the endpoint and the network.`,
      );
      return true;
    });
  } finally {
    up.close();
    await f.cleanup();
  }
});

test('an upload to a bucket that does not exist says which bucket', async () => {
  const f = await farm(['other-bucket']);
  const up = new S3Uploader(f.config());
  try {
    const { path, sha256 } = f.file('key.png', 'pixels');
    await assert.rejects(up.upload(path, up.keyFor(take, path), sha256), (err: unknown) => {
      assert.ok(err instanceof ShotfarmError);
      assert.deepEqual([err.code, err.retryable, err.details?.reason], ['unavailable', true, 'bucket']);
      assert.match(
        err.message,
        new RegExp(
          `the bucket "renders" does not exist on ${f.endpoint}\\. Create it, or fix the bucket in the s3 setting\\.`,
        ),
      );
      return true;
    });
    await assert.rejects(
      up.upload(join(f.dir, 'gone.png'), 'k', 'a'.repeat(64)),
      (err: unknown) =>
        err instanceof ShotfarmError && err.code === 'storage' && /cannot be read \(ENOENT\)/.test(err.message),
    );
  } finally {
    up.close();
    await f.cleanup();
  }
});

test('credentials never appear in errors, logs or the shown settings', async () => {
  const f = await farm();
  const secret = { accessKeyId: 'AKIASHOTFARMSECRETID', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYSECRETKEY' };
  const logs: string[] = [];
  const up = new S3Uploader(f.config({ credentials: secret }), { log: (m) => void logs.push(m) });
  const down = new S3Uploader(f.config({ credentials: secret, endpoint: 'http://127.0.0.1:1' }), {
    log: (m) => void logs.push(m),
    maxAttempts: 1,
  });
  const leaks = (text: string): boolean => text.includes(secret.accessKeyId) || text.includes(secret.secretAccessKey);
  try {
    const { path, sha256 } = f.file('key.png', 'pixels');
    const errors: ShotfarmError[] = [];
    for (const u of [up, down]) {
      await u.upload(path, u.keyFor(take, path), sha256).then(
        () => assert.fail('the upload should have been refused'),
        (err: unknown) => void errors.push(err as ShotfarmError),
      );
    }
    assert.equal(errors[0]!.details?.reason, 'credentials');
    assert.match(errors[0]!.message, /refused the S3 credentials \(InvalidAccessKeyId\)/);
    assert.equal(errors[1]!.details?.reason, 'network');
    for (const e of errors) {
      assert.ok(e instanceof ShotfarmError);
      assert.ok(!leaks(JSON.stringify(e.envelope)), JSON.stringify(e.envelope));
      assert.ok(!leaks(e.stack ?? ''), 'stack');
    }
    assert.ok(!leaks(logs.join('\n')), logs.join('\n'));

    const db = openDatabase(join(f.dir, 'shotfarm.sqlite'), new ManualClock());
    try {
      setS3Settings(db, new ManualClock(), { bucket: 'renders', endpoint: f.endpoint, ...secret });
      assert.ok(!leaks(JSON.stringify(describeS3Settings(getS3Settings(db)!))));
      assert.equal(describeS3Settings(getS3Settings(db)!).credentials, 'settings');
      // A setting edited by hand into something invalid: the error names the rule, not the values.
      db.run(
        "UPDATE settings SET value_json = ? WHERE key = 's3'",
        JSON.stringify({ bucket: 'Not_A_Bucket', ...secret }),
      );
      assert.throws(
        () => getS3Settings(db),
        (err: unknown) =>
          err instanceof ShotfarmError && /bucket: must be an S3 bucket name/.test(err.message) && !leaks(err.message),
      );
      assert.throws(
        () => setS3Settings(db, new ManualClock(), { bucket: 'renders', accessKeyId: secret.accessKeyId }),
        (err: unknown) =>
          err instanceof ShotfarmError &&
          /give both accessKeyId and secretAccessKey/.test(err.message) &&
          !leaks(err.message),
      );
    } finally {
      db.close();
    }
  } finally {
    up.close();
    down.close();
    await f.cleanup();
  }
});

test('the uploader comes from the s3 setting, with credentials and endpoint from the AWS environment variables', async () => {
  const f = await farm();
  const db = openDatabase(join(f.dir, 'shotfarm.sqlite'), new ManualClock());
  let up: S3Uploader | null = null;
  try {
    assert.equal(S3Uploader.fromSettings(db, {}), null, 'no s3 setting: uploads are off');
    setS3Settings(db, new ManualClock(), { bucket: 'renders', prefix: 'shows/moonfall' });
    assert.throws(
      () => S3Uploader.fromSettings(db, {}),
      (err: unknown) => err instanceof ShotfarmError && /AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/.test(err.message),
    );

    const env = {
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'eu-west-3',
      AWS_ENDPOINT_URL_S3: f.endpoint,
    };
    up = S3Uploader.fromSettings(db, env)!;
    assert.deepEqual(
      [up.config.endpoint, up.config.region, up.config.prefix, up.config.forcePathStyle, up.config.credentialsFrom],
      [f.endpoint, 'eu-west-3', 'shows/moonfall/', true, 'environment'],
    );
    const { path, sha256 } = f.file('take.mp4', 'video bytes');
    const r = await up.upload(path, up.keyFor(take, path), sha256);
    assert.equal(r.key, 'shows/moonfall/Moonfall/ep101/sh010/keyframe/take-2/take.mp4');
    assert.equal((await objectBytes(f.reader(), r.key)).toString(), 'video bytes');

    // AWS itself (no endpoint): virtual-hosted style, region from the setting.
    const aws = resolveS3Config({ bucket: 'renders', region: 'us-west-2', accessKeyId: 'a', secretAccessKey: 'b' }, {});
    assert.deepEqual([aws.endpoint, aws.region, aws.forcePathStyle, aws.prefix], [undefined, 'us-west-2', false, '']);
  } finally {
    up?.close();
    db.close();
    await f.cleanup();
  }
});

test('object keys mirror the output folders and keep only the base file name', () => {
  assert.equal(objectKeyFor('', take, 'a.png'), 'Moonfall/ep101/sh010/keyframe/take-2/a.png');
  assert.equal(
    objectKeyFor('p/', take, '/out/Moonfall/ep101/x/../../evil.png'),
    'p/Moonfall/ep101/sh010/keyframe/take-2/evil.png',
  );
  assert.equal(objectKeyFor('p/', take, 'C:\\renders\\b.exr'), 'p/Moonfall/ep101/sh010/keyframe/take-2/b.exr');
});
