/**
 * Every relative link in README.md and docs/*.md lands: the file or folder exists inside the
 * repository, and a `#anchor` into a Markdown page names one of its headings (GitHub's anchors).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve, sep } from 'node:path';
import { REPO } from '../helpers/engine.js';
import { anchors, manualPages, readRepoFile, relativeLinks } from './markdown.js';

/** The broken links of one page (given as its repository path and its text). */
export function brokenLinks(page: string, md: string, read: (path: string) => string = readRepoFile): string[] {
  const root = resolve(REPO);
  const out: string[] = [];
  for (const { target, line } of relativeLinks(md)) {
    const [pathPart, anchor] = target.split('#') as [string, string | undefined];
    const path = pathPart === '' ? page : normalize(join(dirname(page), decodeURIComponent(pathPart)));
    const abs = resolve(root, path);
    const where = `${page}:${line} ${target}`;
    if (abs !== root && !abs.startsWith(root + sep)) out.push(`${where}: outside the repository`);
    else if (path !== page && !existsSync(abs)) out.push(`${where}: no such file`);
    else if (anchor !== undefined && path.endsWith('.md') && (path === page || statSync(abs).isFile())) {
      const text = path === page ? md : read(relative(root, abs));
      if (!anchors(text).has(anchor)) out.push(`${where}: no heading with that anchor`);
    }
  }
  return out;
}

test('every relative link in the README and docs/ resolves, anchors included', () => {
  const broken = manualPages().flatMap((p) => brokenLinks(p, readFileSync(join(REPO, p), 'utf8')));
  assert.deepEqual(broken, []);
});

test('the link check notices a missing page, a missing anchor and a path out of the repository', () => {
  const md = [
    '# Page',
    '[ok](settings.md#the-settings) [self](#page) [gone](no-such-page.md)',
    '[bad anchor](settings.md#no-such-heading) [out](../../etc/passwd)',
    '```',
    '[in code](nowhere.md)',
    '```',
  ].join('\n');
  assert.deepEqual(brokenLinks('docs/planted.md', md), [
    'docs/planted.md:2 no-such-page.md: no such file',
    'docs/planted.md:3 settings.md#no-such-heading: no heading with that anchor',
    'docs/planted.md:3 ../../etc/passwd: outside the repository',
  ]);
});
