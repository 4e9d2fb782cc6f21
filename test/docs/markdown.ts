/**
 * Reading the repository's Markdown the way GitHub shows it, for the tests that hold the docs to
 * the tree and the code: headings and their anchors, relative links, the README's map of folders.
 * Text inside fenced code blocks is neither a heading nor a link.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers/engine.js';

export const readRepoFile = (path: string): string => readFileSync(join(REPO, path), 'utf8');

/** The Markdown pages of the manual: README.md and every docs/*.md, as repository paths. */
export function manualPages(): string[] {
  return [
    'README.md',
    ...readdirSync(join(REPO, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

/** The text with every fenced code block blanked (line count kept, so line numbers stay right). */
export function withoutCode(md: string): string {
  let inFence = false;
  return md
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : line;
    })
    .join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a page offers, with GitHub's -1, -2 … for repeated headings. */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of withoutCode(md).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative links of a page (`[text](target)`), with their line; web and mail links left out. */
export function relativeLinks(md: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  withoutCode(md)
    .split('\n')
    .forEach((text, i) => {
      // Inline code is not a link either.
      for (const m of text.replace(/`[^`]*`/g, '').matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1] as string;
        if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) out.push({ target, line: i + 1 });
      }
    });
  return out;
}

/** The section of a page under `## title`, up to the next `## ` heading. */
export function section(md: string, title: string): string {
  const start = md.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`no "## ${title}" section`);
  const end = md.indexOf('\n## ', start + 1);
  return md.slice(start, end === -1 ? undefined : end);
}

/**
 * The paths the README's map names: its first code block under "What is where", one entry per
 * line whose name starts within the first 20 columns (a deeper line continues the one above),
 * nested by indentation: `electron/` then `  engine/` then `    auth/` is `electron/engine/auth`.
 */
export function mapPaths(readme: string): string[] {
  const block = /```\n([\s\S]*?)```/.exec(section(readme, 'What is where'))?.[1];
  if (block === undefined) throw new Error('the "What is where" section has no code block');
  const stack: { indent: number; path: string }[] = [];
  const out: string[] = [];
  for (const line of block.split('\n')) {
    const m = /^( *)(\S+)/.exec(line);
    if (!m || (m[1] as string).length >= 20) continue;
    const indent = (m[1] as string).length;
    while (stack.length > 0 && (stack.at(-1) as { indent: number }).indent >= indent) stack.pop();
    const parent = stack.at(-1)?.path ?? '';
    // `a/b/` on one line (e.g. `test/simulator/`) names each level on the way.
    const path = parent + (m[2] as string);
    out.push(path.replace(/\/$/, ''));
    if (path.endsWith('/')) stack.push({ indent, path });
  }
  return out;
}

/** The folders a user's clone has (tracked, or untracked and not ignored), as repository paths. */
export function repoFolders(): string[] {
  const r = spawnSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' });
  const files = r.status === 0 ? r.stdout.split('\n').filter(Boolean) : walk('');
  const dirs = new Set<string>();
  for (const f of files) {
    const parts = f.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return [...dirs].sort();
}

function walk(dir: string): string[] {
  return readdirSync(join(REPO, dir), { withFileTypes: true }).flatMap((e) => {
    if (['node_modules', 'dist', '.git', 'out', 'release', 'test-results', 'bench-results', 'native'].includes(e.name))
      return [];
    const path = dir ? `${dir}/${e.name}` : e.name;
    return e.isDirectory() ? walk(path) : [path];
  });
}

/** The folders the map must name: every top-level one, every one in electron/ and in electron/engine/. */
export function foldersTheMapMustName(folders: string[]): string[] {
  return folders.filter((d) => !d.includes('/') || /^electron\/[^/]+$/.test(d) || /^electron\/engine\/[^/]+$/.test(d));
}

/** The folders the map leaves unnamed. */
export function unnamedFolders(folders: string[], named: string[]): string[] {
  const names = new Set(named);
  return foldersTheMapMustName(folders).filter((d) => !names.has(d));
}
