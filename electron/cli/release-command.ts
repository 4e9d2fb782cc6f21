/**
 * `shotfarm freeze` and `shotfarm verify` (SPEC §8 "Release freeze"). `verify` exits 8 when any
 * listed file is missing, changed or unreadable, so a delivery script can stop on it.
 */
import type { Command } from 'commander';
import { printJson, type Io, type Run } from './context.js';
import { EXIT } from './exit-codes.js';

/** `verify`: at least one file is missing, changed or unreadable (docs/cli.md → "Exit codes"). */
export const EXIT_VERIFY_MISMATCH = EXIT.verifyMismatch;

function size(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${bytes} bytes` : `${v.toFixed(1)} ${units[u]}`;
}

export function registerRelease(program: Command, io: Io, run: Run): void {
  program
    .command('freeze')
    .description(
      "write a release manifest (JSON + CSV, SHA-256 per file) of an episode's approved files, after re-hashing them",
    )
    .requiredOption('--project <name>')
    .requiredOption('--episode <name>')
    .requiredOption('--out <dir>', 'folder for manifest.json and manifest.csv (created; never overwritten)')
    .action((o: { project: string; episode: string; out: string }) =>
      run(async (e, g) => {
        const r = await e.call('release.freeze', { project: o.project, episode: o.episode, outDir: o.out });
        if (g.json) return printJson(io, r);
        io.out(`Froze ${r.files} approved file(s), ${size(r.bytes)}, of ${r.project} / ${r.episode}.`);
        io.out(`Manifest: ${r.manifestJson}`);
        io.out(`          ${r.manifestCsv}`);
      }),
    );

  program
    .command('verify')
    .description('re-hash every file of a release manifest (JSON or CSV); exit 8 when any is missing or changed')
    .argument('<manifest>', 'manifest.json or manifest.csv')
    .option(
      '--root <dir>',
      'read files relative to this folder instead of their recorded absolute paths (a copied delivery)',
    )
    .action((manifest: string, o: { root?: string }) =>
      run(async (e, g) => {
        const r = await e.call('release.verify', { path: manifest, ...(o.root === undefined ? {} : { root: o.root }) });
        const passed = r.passed;
        if (g.json) {
          printJson(io, r);
        } else {
          for (const p of r.missing) io.out(`MISSING     ${p}`);
          for (const c of r.changed)
            io.out(`CHANGED     ${c.path}\n            expected ${c.expected}\n            found    ${c.actual}`);
          for (const u of r.unreadable) io.out(`UNREADABLE  ${u.path} (${u.error})`);
          const what = r.project ? ` of ${r.project} / ${r.episode}` : '';
          io.out(
            `${r.checked} file(s)${what} checked: ${r.ok} match, ${r.missing.length} missing, ${r.changed.length} changed` +
              `${r.unreadable.length ? `, ${r.unreadable.length} unreadable` : ''}.`,
          );
        }
        return passed ? EXIT.ok : EXIT_VERIFY_MISMATCH;
      }),
    );
}
