/**
 * The desktop app in studio mode is a page of the app's own files, so the links it makes to the
 * farm — thumbnails, export downloads — must name the farm's origin (a path would point into the
 * app); a page the farm serves keeps linking by path. An export of another origin is fetched and
 * saved under the server's dated name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { downloadName } from '../../renderer/client/download-name.js';
import { createWsClient } from '../../renderer/client/ws-transport.js';
import { providePageWebSocket } from '../helpers/page-websocket.js';

test('studio-mode links name the farm origin and never carry the token (a farm that gives no ticket: a bare link); a served page links by path', async (ctx) => {
  ctx.after(providePageWebSocket());
  // A port nothing listens on: the events socket only tries, and close() stops it.
  const studio = createWsClient({ baseUrl: 'http://127.0.0.1:9', token: 't0k', absoluteUrls: true });
  const served = createWsClient({ baseUrl: 'http://127.0.0.1:9', token: null });
  ctx.after(() => (studio.close(), served.close()));
  await studio.linksReady;
  assert.equal(studio.assetUrl('a1'), 'http://127.0.0.1:9/files/asset/a1');
  assert.match(
    studio.exportUrl('runlog', { project: 'Moonfall' }) ?? '',
    /^http:\/\/127\.0\.0\.1:9\/api\/export\/runlog\?project=Moonfall$/,
  );
  assert.equal(served.assetUrl('a1'), '/files/asset/a1');
  assert.match(served.exportUrl('ledger', {}) ?? '', /^\/api\/export\/ledger/);
});

test("a fetched export keeps the server's dated file name, never a path", () => {
  assert.equal(
    downloadName('attachment; filename="shotfarm-runlog-2026-12-01_14-03-09.csv"'),
    'shotfarm-runlog-2026-12-01_14-03-09.csv',
  );
  assert.equal(downloadName('attachment; filename="../../etc/x.csv"'), '.._.._etc_x.csv');
  assert.equal(downloadName(null), 'shotfarm-export.csv');
});
