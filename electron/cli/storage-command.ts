/**
 * `shotfarm storage s3 set|show|off`: the optional S3-compatible copy of every output (SPEC §8).
 * Secrets are best left to the standard AWS environment variables; `show` never prints them.
 */
import type { Command } from 'commander';
import { printJson, type Io, type Run } from './context.js';
import { terminalJson } from './terminal-text.js';

export function registerStorage(program: Command, io: Io, run: Run): void {
  const s3 = program
    .command('storage')
    .description('optional copy of outputs to S3-compatible storage')
    .command('s3')
    .description('S3 upload settings');
  s3.command('set')
    .description('copy every output to a bucket; a job completes only once its copy is confirmed')
    .requiredOption('--bucket <name>')
    .option('--endpoint <url>', 'S3-compatible server (MinIO, Ceph, R2…); omit for AWS')
    .option('--region <region>')
    .option('--prefix <prefix>', 'prepended to every key')
    .option('--access-key-id <id>', 'otherwise AWS_ACCESS_KEY_ID')
    .option(
      '--secret-access-key <secret>',
      'otherwise AWS_SECRET_ACCESS_KEY (prefer the environment: command lines are visible to other users)',
    )
    .action((o) =>
      run(async (e, g) => {
        const value = Object.fromEntries(
          Object.entries({
            bucket: o.bucket,
            endpoint: o.endpoint,
            region: o.region,
            prefix: o.prefix,
            accessKeyId: o.accessKeyId,
            secretAccessKey: o.secretAccessKey,
          }).filter(([, v]) => v !== undefined),
        );
        // The contract validates it (a bad bucket name is a bad_input naming the field, never the value).
        const saved = await e.call('storage.set', { s3: value });
        if (g.json) return printJson(io, saved.s3);
        io.out(`Outputs will be copied to s3://${o.bucket}/${o.prefix ?? ''} (takes effect when the farm starts).`);
      }),
    );
  s3.command('show')
    .description('the current settings (never the secret)')
    .action(() =>
      run(async (e, g) => {
        const { s3 } = await e.call('storage.get', {});
        if (g.json) return printJson(io, s3);
        io.out(s3 ? terminalJson(s3) : 'S3 upload is off.');
      }),
    );
  s3.command('off')
    .description('stop copying outputs to S3')
    .action(() =>
      run(async (e) => {
        await e.call('storage.set', { s3: null });
        io.out('S3 upload is off.');
      }),
    );
}
