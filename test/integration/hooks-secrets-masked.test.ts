/**
 * Issue [R] defect 5: `hooks.list` answered webhook URLs with their secrets (a token in the path,
 * a key in the query, a user and password). Every hooks answer now masks them; the stored hook
 * keeps them (deliveries go to the full URL), and a list sent back as it was shown keeps them too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maskUrlSecrets } from '../../shared/url.js';
import { runCli } from '../helpers/cli.js';
import { engineFor } from '../helpers/engine.js';
import { standIn } from '../helpers/stand-in-servers.js';
import { jobViewFixture } from '../helpers/job-view.js';

test('maskUrlSecrets keeps where a URL goes and hides what may be a secret', () => {
  const cases: [string, string][] = [
    ['https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX', 'https://hooks.slack.com/services/***/***/***'],
    ['https://discord.com/api/webhooks/123456789/abcDEF-token', 'https://discord.com/api/webhooks/***/***'],
    [
      'https://chat.example/hooks/renders?token=s3cr3t&channel=fx',
      'https://chat.example/hooks/renders?token=***&channel=***',
    ],
    ['https://bot:hunter2@chat.example:8443/hook', 'https://***@chat.example:8443/hook'],
    ['https://chat.example/hook#frag', 'https://chat.example/hook#***'],
    ['https://chat.example/%74oken', 'https://chat.example/***'],
    ['not a url', '***'],
  ];
  for (const [url, shown] of cases) assert.equal(maskUrlSecrets(url), shown, url);
});

test('no hooks answer shows a webhook secret; the stored hook keeps it and delivers to the full URL', async (ctx) => {
  const t = await engineFor(ctx, { templates: false });
  const receiver = await standIn(ctx, (_p, _b, res) => res.writeHead(204).end());
  const full = `${receiver.url.replace('http://', 'http://bot:hunter2@')}/hooks/T0K3N-abc?key=s3cr3t`;
  const secrets = /hunter2|T0K3N|s3cr3t/;

  const added = await t.engine.call('hooks.add', {
    hook: { id: 'chat', kind: 'webhook', url: full, on: ['completed'], retries: 0 },
  });
  const answers: unknown[] = [added, await t.engine.call('hooks.list', {})];
  assert.equal(
    added.kind === 'webhook' ? added.url : '',
    `${receiver.url.replace('http://', 'http://***@')}/hooks/***?key=***`,
  );

  // Sent back as shown (the UI's settings form would do this): the stored URL stays whole.
  answers.push(
    await t.engine.call('hooks.set', {
      hooks: [added, { id: 'notify', kind: 'command', command: '/bin/true', on: ['failed'] }],
    }),
  );
  answers.push(await t.engine.call('hooks.remove', { id: 'notify' }));
  const cli = await runCli(t.dir, '--json', 'hooks', 'list');
  answers.push(cli.out, (await runCli(t.dir, 'hooks', 'list')).out);
  for (const a of answers) assert.doesNotMatch(typeof a === 'string' ? a : JSON.stringify(a), secrets);

  // A masked URL that is not the one shown for that hook is refused, not stored as "***".
  await assert.rejects(
    t.engine.call('hooks.set', { hooks: [{ ...added, id: 'other' }] }),
    (err: unknown) =>
      err instanceof Error && /Hook "other": its URL is masked \(\*\*\*\); send the full webhook URL/.test(err.message),
  );

  const job = jobViewFixture();
  assert.equal(t.engine.hooks.notify(job).length, 1);
  await t.engine.hooks.whenIdle();
  assert.deepEqual(
    receiver.seen.map((r) => r.path),
    ['/hooks/T0K3N-abc?key=s3cr3t'],
    'the delivery used the full URL',
  );
  const deliveries = await t.engine.call('hooks.deliveries', {});
  assert.equal(deliveries[0]?.status, 'delivered');
  assert.doesNotMatch(JSON.stringify(deliveries), secrets);
});
