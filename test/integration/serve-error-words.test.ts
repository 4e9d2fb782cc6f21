/**
 * Issue 29 low items over the real HTTP server: a broken %-escape in a route's segment answered
 * 500 (the decoder threw); and errors sent to remote callers carried the farm host's absolute paths
 * (the data folder in a storage error). Now `%zz` is a 400 with words, and an answer says "[a path
 * on the farm host]" while the full sentence goes to serve's own log.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../electron/server/server.js';
import { engineFor, RESOURCES } from '../helpers/engine.js';
import { readFileSync } from 'node:fs';

interface Answer {
  ok: boolean;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

test('a broken %-escape in any route answers 400 bad_input in words, and the server keeps answering', async (ctx) => {
  const t = await engineFor(ctx);
  const logged: string[] = [];
  const server = await startServer({ engine: t.engine, port: 0, log: (m) => logged.push(m) });
  ctx.after(() => server.close());
  for (const [method, path] of [
    ['POST', '/api/call/%zz'],
    ['PUT', '/api/uploads/%zz?name=a.png'],
    ['GET', '/api/export/%E0%A4%A'],
    ['GET', '/files/asset/%zz'],
  ] as const) {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(method === 'GET' ? {} : { body: '{}' }),
    });
    assert.equal(res.status, 400, path);
    const body = (await res.json()) as Answer;
    assert.equal(body.error?.code, 'bad_input', path);
    assert.match(body.error?.message ?? '', /broken %-escape/, path);
  }
  const ok = await fetch(`${server.url}/api/call/farm.status`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(ok.status, 200);
  assert.deepEqual(
    logged.filter((l) => /failed:/.test(l)),
    [],
    'no request failed inside the server',
  );
});

test("a storage error over serve names no path of the farm host; serve's log has the whole sentence", async (ctx) => {
  const t = await engineFor(ctx);
  const logged: string[] = [];
  const server = await startServer({ engine: t.engine, port: 0, log: (m) => logged.push(m) });
  ctx.after(() => server.close());
  t.engine.db.sqlite?.pragma('foreign_keys = OFF');
  t.engine.db.exec('DROP TABLE jobs');
  const res = await fetch(`${server.url}/api/call/import.preview`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      fileName: 'shot_list.json',
      content: readFileSync(`${RESOURCES}samples/shot_list.json`, 'utf8'),
    }),
  });
  const text = await res.text();
  assert.equal(res.status, 507, text);
  assert.ok(!text.includes(t.dir), `the answer must not carry the data folder: ${text}`);
  const body = JSON.parse(text) as Answer;
  assert.equal(body.error?.code, 'storage');
  assert.match(
    body.error?.message ?? '',
    /^The database \[a path on the farm host\] is missing its table jobs \(changed outside Shotfarm\): checking shot_list\.json stored nothing/,
  );
  assert.ok(
    logged.some(
      (l) =>
        l.includes(`${t.dir}/shotfarm.sqlite is missing its table jobs`) &&
        /POST \/api\/call\/import\.preview answered 507/.test(l),
    ),
    logged.join('\n'),
  );
});
